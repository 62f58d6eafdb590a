import { UserSettingsGet, UserSettingsReload, UserSettingsSet } from "@tandem/protocol";
import type { Runtime } from "../../runtime.js";
import type { MethodTable } from "../dispatch.js";

/** `user.settings.*`: the runtime's user settings (`<home>/config.json`), read, written and re-read. */
export function registerUserSettingsMethods(table: MethodTable, runtime: Runtime): void {
  const settings = runtime.userSettings;
  table.on(UserSettingsGet, async () => ({ settings: await settings.report() }));
  table.on(UserSettingsSet, async ({ settings: changes }) => {
    await settings.set(changes);
    // Nothing overrides the settings file, so no written key is shadowed.
    return { shadowedKeys: [] };
  });
  table.on(UserSettingsReload, async () => {
    await settings.reload();
    return {};
  });
}
