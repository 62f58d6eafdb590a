import { z } from "zod";
import { defineRequest } from "../method.js";

const noParams = () => z.preprocess((value) => (value === undefined || value === null || Array.isArray(value) ? {} : value), z.looseObject({}));

/** One user setting: its effective value, its default, and whether the default is in effect. */
export const UserSettingMetadata = z.lazy(() => z.looseObject({ value: z.unknown(), default: z.unknown(), isDefault: z.boolean() }));

/** `user.settings.get`: every user setting the runtime knows, keyed by name. */
export const UserSettingsGet = defineRequest("user.settings.get", noParams, () => z.looseObject({ settings: z.record(z.string(), UserSettingMetadata) }));

/**
 * `user.settings.set`: writes settings to the user's settings file (`null` clears one back to its
 * default). `shadowedKeys`: keys written whose value something else overrides, so the write does
 * not take effect.
 */
export const UserSettingsSet = defineRequest(
  "user.settings.set",
  () => z.looseObject({ settings: z.record(z.string(), z.unknown()) }),
  () => z.looseObject({ shadowedKeys: z.array(z.string()) }),
);

/** `user.settings.reload`: re-reads the user's settings file. */
export const UserSettingsReload = defineRequest("user.settings.reload", noParams, () => z.looseObject({}).nullable());

/** The `user.settings.*` requests. */
export const userSettingsRequests = [UserSettingsGet, UserSettingsSet, UserSettingsReload] as const;
