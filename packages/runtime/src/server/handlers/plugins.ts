import {
  PluginsDisable,
  PluginsEnable,
  PluginsInstall,
  PluginsList,
  PluginsMarketplacesAdd,
  PluginsMarketplacesBrowse,
  PluginsMarketplacesList,
  PluginsMarketplacesRefresh,
  PluginsMarketplacesRemove,
  PluginsUninstall,
  PluginsUpdate,
  PluginsUpdateAll,
} from "@tandem/protocol/methods/plugins";
import type { PluginStore } from "../../plugins/plugin-store.js";
import type { MethodTable } from "../method-table.js";

/**
 * `plugins.*` (server-scoped): installing plugins from local marketplaces into the runtime's home.
 * A relative `source` is resolved against the request's `workingDirectory`, else the runtime's.
 */
export function registerPluginMethods(table: MethodTable, store: PluginStore, runtimeDirectory: () => string): void {
  table.on(PluginsList, async () => ({ plugins: await store.list() }));
  table.on(PluginsInstall, ({ source, workingDirectory }) => store.install(source, workingDirectory ?? runtimeDirectory()));
  table.on(PluginsUninstall, async ({ name, directSourceId }) => {
    await store.uninstall(name, directSourceId ?? undefined);
    return {};
  });
  table.on(PluginsUpdate, ({ name }) => store.update(name));
  table.on(PluginsUpdateAll, async () => ({ results: await store.updateAll() }));
  table.on(PluginsEnable, async ({ names }) => {
    await store.setEnabled(names, true);
    return {};
  });
  table.on(PluginsDisable, async ({ names }) => {
    await store.setEnabled(names, false);
    return {};
  });
  table.on(PluginsMarketplacesList, async () => ({ marketplaces: await store.marketplaces() }));
  table.on(PluginsMarketplacesAdd, ({ source, workingDirectory }) => store.addMarketplace(source, workingDirectory ?? runtimeDirectory()));
  table.on(PluginsMarketplacesRemove, ({ name, force }) => store.removeMarketplace(name, force === true));
  table.on(PluginsMarketplacesBrowse, async ({ name }) => ({ plugins: await store.browse(name) }));
  table.on(PluginsMarketplacesRefresh, async (params) => ({ results: await store.refresh(params?.name) }));
}
