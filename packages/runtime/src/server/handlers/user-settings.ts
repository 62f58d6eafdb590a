import { UserSettingsGet, UserSettingsReload, UserSettingsSet } from "@tandem/protocol/methods/user-settings";
import type { RuntimeServices } from "../runtime-services.js";
import type { MethodTable } from "../method-table.js";

/** `user.settings.*`: the runtime's user settings (`<home>/config.json`), read, written and re-read. */
export function registerUserSettingsMethods(table: MethodTable, runtime: RuntimeServices): void {
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
