import { z } from "zod";
import { errorMessage, invalidParams } from "../errors.js";
import type { Logger } from "../log.js";
import type { JsonObjectFile } from "../store/json-object-file.js";

/** The user settings the runtime reads, with their types and defaults. */
export const userSettingDefinitions = {
  /** Skills turned off for every new session (added to its own `disabledSkills`) and reported disabled by discovery. */
  disabledSkills: { schema: z.array(z.string()), default: [] as string[] },
  /** Whether skill discovery includes each project's `.github/skills` folder. */
  discoverProjectSkills: { schema: z.boolean(), default: true },
} as const;

/** The name of a user setting. */
export type UserSettingKey = keyof typeof userSettingDefinitions;
/** The values of the user settings. */
export type UserSettingValues = { [K in UserSettingKey]: (typeof userSettingDefinitions)[K]["default"] };

/** One setting as `user.settings.get` reports it. */
export type UserSettingReport = {
  value: unknown;
  default: unknown;
  isDefault: boolean;
};

const settingKeys = Object.keys(userSettingDefinitions) as UserSettingKey[];

/**
 * The runtime's user settings, kept in the user's config file `<home>/config.json` beside
 * `trustedFolders` (keys these settings do not name, `trustedFolders` among them, are kept as they
 * are and never written through `set`). Read on first use and on `reload`; `set` goes through
 * {@link JsonObjectFile.update}, so a setting acknowledged is on disk.
 *
 * @example
 * const settings = new UserSettings(new JsonObjectFile("/home/me/.tandem/config.json"), logger);
 * await settings.set({ disabledSkills: ["draft-pr"] });
 * (await settings.values()).disabledSkills; // ["draft-pr"]
 */
export class UserSettings {
  private stored: Record<string, unknown> | undefined;

  constructor(
    private readonly config: JsonObjectFile,
    private readonly logger: Logger,
  ) {}

  /**
   * Session params with the user's `disabledSkills` added to the session's own. When the settings
   * file cannot be read the params are used as they are, and the reason is logged.
   */
  async applyToSession<T extends { disabledSkills?: string[] }>(params: T): Promise<T> {
    const values = await this.values().catch((error: unknown) => {
      this.logger.warn(`user settings not applied to the session: ${errorMessage(error)}`);
      return undefined;
    });
    if (!values || values.disabledSkills.length === 0) return params;
    return { ...params, disabledSkills: [...new Set([...(params.disabledSkills ?? []), ...values.disabledSkills])] };
  }

  /** The settings file. */
  get path(): string {
    return this.config.path;
  }

  /** Re-reads the settings file. */
  async reload(): Promise<void> {
    this.stored = await this.config.read();
  }

  /** Every known setting: its value, its default and whether the default is in effect. */
  async report(): Promise<Record<UserSettingKey, UserSettingReport>> {
    const values = await this.values();
    const stored = await this.storedSettings();
    return Object.fromEntries(
      settingKeys.map((key) => [key, { value: values[key], default: userSettingDefinitions[key].default, isDefault: !(key in stored) || !this.valid(key, stored[key]) }]),
    ) as Record<UserSettingKey, UserSettingReport>;
  }

  /** The effective values (a stored value of the wrong type counts as absent). */
  async values(): Promise<UserSettingValues> {
    const stored = await this.storedSettings();
    const values: Record<string, unknown> = {};
    for (const key of settingKeys) values[key] = this.valid(key, stored[key]) ? stored[key] : userSettingDefinitions[key].default;
    return values as UserSettingValues;
  }

  /**
   * Writes settings (`null` removes one, so its default applies again). Unknown keys and values of
   * the wrong type are refused with -32602 and nothing is written.
   */
  async set(changes: Record<string, unknown>): Promise<void> {
    for (const [key, value] of Object.entries(changes)) {
      if (!isSettingKey(key)) throw invalidParams(`Unknown user setting "${key}"; the settings are: ${settingKeys.join(", ")}`, { key });
      const parsed = userSettingDefinitions[key].schema.safeParse(value);
      if (value !== null && !parsed.success) throw invalidParams(`Invalid value for user setting "${key}": ${z.prettifyError(parsed.error)}`, { key });
    }
    this.stored = await this.config.update((current) => {
      const next = { ...current };
      for (const [key, value] of Object.entries(changes)) {
        if (value === null) delete next[key];
        else next[key] = value;
      }
      return next;
    });
  }

  private valid(key: UserSettingKey, value: unknown): boolean {
    return value !== undefined && userSettingDefinitions[key].schema.safeParse(value).success;
  }

  private async storedSettings(): Promise<Record<string, unknown>> {
    this.stored ??= await this.config.read();
    return this.stored;
  }
}

function isSettingKey(key: string): key is UserSettingKey {
  return Object.hasOwn(userSettingDefinitions, key);
}
