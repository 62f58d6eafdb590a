/**
 * Plugins and their marketplaces (`plugins.*`, server-scoped, official SDK 1.0.x). A marketplace is
 * a folder with a `marketplace.json` catalogue; a plugin is a folder (skills, agents, MCP servers)
 * installed into the runtime's home from a marketplace (`plugin@marketplace`) or directly from a path.
 */
import { z } from "zod";
import { defineRequest } from "../method.js";

const Empty = z.lazy(() => z.looseObject({}));
const EmptyOrNull = z.lazy(() => z.looseObject({}).nullable().optional());

/** An installed plugin: `marketplace` is "" and `directSourceId` set for a direct install. */
export const InstalledPluginInfo = z.lazy(() => z.looseObject({
  name: z.string(),
  marketplace: z.string(),
  directSourceId: z.string().optional(),
  version: z.string().optional(),
  enabled: z.boolean(),
}));
/** A registered marketplace; `isDefault` ones come with the runtime and cannot be removed. */
export const MarketplaceInfo = z.lazy(() => z.looseObject({ name: z.string(), source: z.string(), isDefault: z.boolean().optional() }));

/** `plugins.list`: the installed plugins. */
export const PluginsList = defineRequest("plugins.list", () => Empty.optional(), () => z.looseObject({ plugins: z.array(InstalledPluginInfo) }));
/** `plugins.install`: `plugin@marketplace`, or a plugin folder's path (a direct install, deprecated). */
export const PluginsInstall = defineRequest(
  "plugins.install",
  () => z.looseObject({ source: z.string().min(1), workingDirectory: z.string().optional() }),
  () => z.looseObject({ plugin: InstalledPluginInfo, skillsInstalled: z.number(), postInstallMessage: z.string().optional(), deprecationWarning: z.string().optional() }),
);
/** `plugins.uninstall`: by name or `plugin@marketplace`; `directSourceId` picks among direct installs. */
export const PluginsUninstall = defineRequest(
  "plugins.uninstall",
  () => z.looseObject({ name: z.string().min(1), directSourceId: z.string().nullable().optional() }),
  () => EmptyOrNull,
);
/** `plugins.update`: installs the plugin again from its source. */
export const PluginsUpdate = defineRequest(
  "plugins.update",
  () => z.looseObject({ name: z.string().min(1) }),
  () => z.looseObject({ previousVersion: z.string().optional(), newVersion: z.string().optional(), skillsInstalled: z.number() }),
);
/** `plugins.updateAll`: updates every installed plugin; one entry each, failures included. */
export const PluginsUpdateAll = defineRequest(
  "plugins.updateAll",
  () => Empty.optional(),
  () =>
    z.looseObject({
      results: z.array(
        z.looseObject({
          name: z.string(),
          marketplace: z.string(),
          success: z.boolean(),
          previousVersion: z.string().optional(),
          newVersion: z.string().optional(),
          skillsInstalled: z.number().optional(),
          error: z.string().optional(),
        }),
      ),
    }),
);
const pluginNames = z.lazy(() => z.looseObject({ names: z.array(z.string().min(1)) }));
/** `plugins.enable`: names or `plugin@marketplace` specs; unknown names are ignored. */
export const PluginsEnable = defineRequest("plugins.enable", () => pluginNames, () => EmptyOrNull);
/** `plugins.disable`: names or `plugin@marketplace` specs; unknown names are ignored. */
export const PluginsDisable = defineRequest("plugins.disable", () => pluginNames, () => EmptyOrNull);

/** `plugins.marketplaces.list`: the default marketplace and those added. */
export const PluginsMarketplacesList = defineRequest("plugins.marketplaces.list", () => Empty.optional(), () => z.looseObject({ marketplaces: z.array(MarketplaceInfo) }));
/** `plugins.marketplaces.add`: registers a marketplace folder under the name its catalogue gives. */
export const PluginsMarketplacesAdd = defineRequest(
  "plugins.marketplaces.add",
  () => z.looseObject({ source: z.string().min(1), workingDirectory: z.string().optional() }),
  () => z.looseObject({ name: z.string() }),
);
/** `plugins.marketplaces.remove`: refused (removed: false) while plugins from it are installed, unless `force`. */
export const PluginsMarketplacesRemove = defineRequest(
  "plugins.marketplaces.remove",
  () => z.looseObject({ name: z.string().min(1), force: z.boolean().optional() }),
  () => z.looseObject({ removed: z.boolean(), dependentPlugins: z.array(z.string()).optional() }),
);
/** `plugins.marketplaces.browse`: the plugins a marketplace's catalogue offers. */
export const PluginsMarketplacesBrowse = defineRequest(
  "plugins.marketplaces.browse",
  () => z.looseObject({ name: z.string().min(1) }),
  () => z.looseObject({ plugins: z.array(z.looseObject({ name: z.string(), description: z.string().optional() })) }),
);
/** `plugins.marketplaces.refresh`: reads one marketplace's catalogue again, or every one's. */
export const PluginsMarketplacesRefresh = defineRequest(
  "plugins.marketplaces.refresh",
  () => z.looseObject({ name: z.string().optional() }).optional(),
  () => z.looseObject({ results: z.array(z.looseObject({ name: z.string(), success: z.boolean(), error: z.string().optional() })) }),
);

/** The requests of this file, for `clientToServerRequests`. */
export const pluginRequests = [
  PluginsList,
  PluginsInstall,
  PluginsUninstall,
  PluginsUpdate,
  PluginsUpdateAll,
  PluginsEnable,
  PluginsDisable,
  PluginsMarketplacesList,
  PluginsMarketplacesAdd,
  PluginsMarketplacesRemove,
  PluginsMarketplacesBrowse,
  PluginsMarketplacesRefresh,
] as const;
