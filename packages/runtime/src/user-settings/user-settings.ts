import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { z } from "zod";
import { errorMessage, invalidParams } from "../errors.js";
import type { Logger } from "../log.js";
import { persistenceFailed } from "../store/persistence-error.js";
import { userConfigFile } from "../trust/trusted-folders.js";

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
 * `trustedFolders` (a JSON object; keys these settings do not name, `trustedFolders` among them, are
 * kept as they are and never written through `set`). Read on first use and on `reload`; `set` writes the file whole (a
 * temporary file renamed over it) before it answers, so a setting acknowledged is on disk.
 *
 * @example
 * const settings = new UserSettings("/home/me/.tandem", logger);
 * await settings.set({ disabledSkills: ["draft-pr"] });
 * (await settings.values()).disabledSkills; // ["draft-pr"]
 */
export class UserSettings {
  private stored: Record<string, unknown> | undefined;
  /** Writes run one after another (a read-modify-write each). */
  private writing: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly home: string,
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
    return join(this.home, userConfigFile);
  }

  /** Re-reads the settings file. */
  async reload(): Promise<void> {
    this.stored = await this.readFile();
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
    const write = this.writing.then(async () => {
      const next = { ...(await this.readFile()) };
      for (const [key, value] of Object.entries(changes)) {
        if (value === null) delete next[key];
        else next[key] = value;
      }
      await this.writeFile(next);
      this.stored = next;
    });
    this.writing = write.catch(() => undefined);
    await write;
  }

  private valid(key: UserSettingKey, value: unknown): boolean {
    return value !== undefined && userSettingDefinitions[key].schema.safeParse(value).success;
  }

  private async storedSettings(): Promise<Record<string, unknown>> {
    this.stored ??= await this.readFile();
    return this.stored;
  }

  /** The file's object; a missing file is empty, an unreadable one is refused (it is not overwritten). */
  private async readFile(): Promise<Record<string, unknown>> {
    const text = await readFile(this.path, "utf8").catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return undefined;
      throw persistenceFailed(this.path, error, "read");
    });
    if (text === undefined || text.trim() === "") return {};
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw invalidParams(`The user settings file ${this.path} is not valid JSON (${(error as Error).message}); fix or remove it`, { path: this.path });
    }
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw invalidParams(`The user settings file ${this.path} must hold a JSON object`, { path: this.path });
    return parsed as Record<string, unknown>;
  }

  private async writeFile(settings: Record<string, unknown>): Promise<void> {
    const temporary = `${this.path}.${process.pid}.tmp`;
    try {
      await mkdir(dirname(this.path), { recursive: true });
      await writeFile(temporary, `${JSON.stringify(settings, null, 2)}\n`, { mode: 0o600 });
      await rename(temporary, this.path);
    } catch (error) {
      throw persistenceFailed(this.path, error);
    }
  }
}

function isSettingKey(key: string): key is UserSettingKey {
  return Object.hasOwn(userSettingDefinitions, key);
}
