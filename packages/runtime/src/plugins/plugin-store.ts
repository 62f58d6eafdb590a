import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { cp, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { ErrorCodes, invalidParams, TandemError } from "../errors.js";
import { countSkills, readMarketplaceManifest, readPluginManifest, type MarketplaceManifest } from "./manifests.js";

/** An installed plugin as `plugins.list` reports it. */
export type InstalledPlugin = { name: string; marketplace: string; directSourceId?: string; version?: string; enabled: boolean };

/** A registered marketplace as `plugins.marketplaces.list` reports it. */
export type MarketplaceSummary = { name: string; source: string; isDefault?: boolean };

interface InstalledRecord extends InstalledPlugin {
  /** The folder it was copied from (the marketplace's plugin folder, or the direct path). */
  origin: string;
}

interface StoreState {
  marketplaces: Array<{ name: string; path: string }>;
  installed: InstalledRecord[];
}

/** The marketplace that comes with the runtime: a folder in its home the user fills. */
export const defaultMarketplaceName = "local";

/**
 * Plugins installed into the runtime's home (`<home>/plugins/`), and the marketplaces they come
 * from. Marketplaces are local folders with a `marketplace.json`; the default one is
 * `<home>/plugins/marketplace`. Installing copies the plugin's folder to
 * `<home>/plugins/installed/…`, so later changes to the source need `update`. The state
 * (`plugins.json`) is written through a temporary file and a rename; changes run one at a time.
 * Marketplaces and plugins from GitHub or git URLs need the hosted service's fetching and are
 * refused with a typed error.
 *
 * @example
 * const store = new PluginStore(home);
 * const { name } = await store.addMarketplace("/srv/marketplace", process.cwd());
 * await store.install(`demo@${name}`, process.cwd());
 */
export class PluginStore {
  private readonly root: string;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(home: string) {
    this.root = join(home, "plugins");
  }

  /** The installed plugins. */
  async list(): Promise<InstalledPlugin[]> {
    return (await this.read()).installed.map(publicView);
  }

  /** The default marketplace first, then those added. */
  async marketplaces(): Promise<MarketplaceSummary[]> {
    const state = await this.read();
    return [{ name: defaultMarketplaceName, source: `Local: ${this.defaultMarketplacePath}`, isDefault: true }, ...state.marketplaces.map(({ name, path }) => ({ name, source: `Local: ${path}` }))];
  }

  /** Registers a marketplace folder under the name its catalogue gives. */
  addMarketplace(source: string, workingDirectory: string): Promise<{ name: string }> {
    return this.change(async (state) => {
      const path = localPath(source, workingDirectory, "marketplace");
      const manifest = await readMarketplaceManifest(path);
      if (manifest.name === defaultMarketplaceName) throw invalidParams(`The marketplace name "${defaultMarketplaceName}" is the default marketplace's; rename the catalogue in ${path}`, { name: manifest.name });
      const existing = state.marketplaces.find((marketplace) => marketplace.name === manifest.name);
      if (existing && existing.path !== path) throw invalidParams(`A marketplace named "${manifest.name}" is already registered from ${existing.path}; remove it first`, { name: manifest.name });
      if (!existing) state.marketplaces.push({ name: manifest.name, path });
      return { name: manifest.name };
    });
  }

  /** Unregisters a marketplace; while plugins from it are installed only with `force` (which uninstalls them). */
  removeMarketplace(name: string, force: boolean): Promise<{ removed: boolean; dependentPlugins?: string[] }> {
    return this.change(async (state) => {
      if (name === defaultMarketplaceName) throw invalidParams(`The default marketplace "${name}" cannot be removed`, { name });
      if (!state.marketplaces.some((marketplace) => marketplace.name === name)) throw invalidParams(`No marketplace named "${name}" is registered`, { name });
      const dependents = state.installed.filter((plugin) => plugin.marketplace === name);
      if (dependents.length > 0 && !force) return { removed: false, dependentPlugins: dependents.map((plugin) => plugin.name) };
      for (const plugin of dependents) await rm(this.installPath(plugin), { recursive: true, force: true });
      state.installed = state.installed.filter((plugin) => plugin.marketplace !== name);
      state.marketplaces = state.marketplaces.filter((marketplace) => marketplace.name !== name);
      return { removed: true };
    });
  }

  /** The plugins a marketplace's catalogue offers. */
  async browse(name: string): Promise<Array<{ name: string; description?: string; version?: string }>> {
    const manifest = await this.catalogue(await this.read(), name);
    return manifest.plugins.map(({ name: pluginName, description, version }) => ({ name: pluginName, ...(description ? { description } : {}), ...(version ? { version } : {}) }));
  }

  /** Reads one marketplace's catalogue again (or every one's); a broken one is a failed entry. */
  async refresh(name: string | undefined): Promise<Array<{ name: string; success: boolean; error?: string }>> {
    const state = await this.read();
    const names = name !== undefined ? [name] : [defaultMarketplaceName, ...state.marketplaces.map((marketplace) => marketplace.name)];
    const results: Array<{ name: string; success: boolean; error?: string }> = [];
    for (const marketplace of names) {
      try {
        await this.catalogue(state, marketplace);
        results.push({ name: marketplace, success: true });
      } catch (error) {
        if (name !== undefined && error instanceof TandemError && error.code === ErrorCodes.InvalidParams && !this.knows(state, marketplace)) throw error;
        results.push({ name: marketplace, success: false, error: (error as Error).message });
      }
    }
    return results;
  }

  /**
   * Installs `plugin@marketplace`, or the plugin folder at a local path (a direct install: it
   * carries a `deprecationWarning`, since plugins are meant to come from a marketplace).
   */
  install(source: string, workingDirectory: string): Promise<{ plugin: InstalledPlugin; skillsInstalled: number; deprecationWarning?: string }> {
    return this.change(async (state) => {
      const spec = parseSpec(source);
      if (spec && !looksLocal(source, workingDirectory)) {
        const origin = await this.marketplacePluginFolder(state, spec.plugin, spec.marketplace);
        const record = await this.copyIn(state, { name: spec.plugin, marketplace: spec.marketplace, enabled: true, origin: origin.folder, ...(origin.version ? { version: origin.version } : {}) });
        return { plugin: publicView(record), skillsInstalled: await countSkills(this.installPath(record)) };
      }
      const folder = localPath(source, workingDirectory, "plugin");
      const manifest = await readPluginManifest(folder);
      const directSourceId = createHash("sha256").update(folder).digest("hex").slice(0, 16);
      const record = await this.copyIn(state, { name: manifest.name, marketplace: "", directSourceId, enabled: true, origin: folder, ...(manifest.version ? { version: manifest.version } : {}) });
      return {
        plugin: publicView(record),
        skillsInstalled: await countSkills(this.installPath(record)),
        deprecationWarning: `Installing a plugin directly from a path is deprecated: add the folder that holds it to a marketplace (plugins.marketplaces.add) and install it as ${manifest.name}@<marketplace>.`,
      };
    });
  }

  /** Removes an installed plugin (by name or `plugin@marketplace`; `directSourceId` picks a direct install). */
  uninstall(name: string, directSourceId: string | undefined): Promise<void> {
    return this.change(async (state) => {
      const record = this.find(state, name, directSourceId);
      await rm(this.installPath(record), { recursive: true, force: true });
      state.installed = state.installed.filter((plugin) => plugin !== record);
    });
  }

  /** Installs a plugin again from where it came from. */
  update(name: string): Promise<{ previousVersion?: string; newVersion?: string; skillsInstalled: number }> {
    return this.change(async (state) => this.updateRecord(state, this.find(state, name, undefined)));
  }

  /** Updates every installed plugin; each gets an entry, failures included. */
  updateAll(): Promise<Array<{ name: string; marketplace: string; success: boolean; previousVersion?: string; newVersion?: string; skillsInstalled?: number; error?: string }>> {
    return this.change(async (state) => {
      const results = [];
      for (const record of [...state.installed]) {
        try {
          results.push({ name: record.name, marketplace: record.marketplace, success: true, ...(await this.updateRecord(state, record)) });
        } catch (error) {
          results.push({ name: record.name, marketplace: record.marketplace, success: false, error: (error as Error).message });
        }
      }
      return results;
    });
  }

  /** Turns marketplace plugins on or off for new sessions; unknown names and direct installs are left alone. */
  setEnabled(names: readonly string[], enabled: boolean): Promise<void> {
    return this.change(async (state) => {
      for (const name of names) {
        const spec = parseSpec(name);
        for (const record of state.installed) {
          if (record.marketplace === "") continue;
          const matches = spec ? record.name === spec.plugin && record.marketplace === spec.marketplace : record.name === name;
          if (matches) record.enabled = enabled;
        }
      }
    });
  }

  private get defaultMarketplacePath(): string {
    return join(this.root, "marketplace");
  }

  private knows(state: StoreState, name: string): boolean {
    return name === defaultMarketplaceName || state.marketplaces.some((marketplace) => marketplace.name === name);
  }

  private async catalogue(state: StoreState, name: string): Promise<MarketplaceManifest> {
    if (name === defaultMarketplaceName) {
      if (!existsSync(this.defaultMarketplacePath)) return { name, plugins: [] };
      return readMarketplaceManifest(this.defaultMarketplacePath);
    }
    const marketplace = state.marketplaces.find((candidate) => candidate.name === name);
    if (!marketplace) throw invalidParams(`No marketplace named "${name}" is registered (plugins.marketplaces.add adds one)`, { name });
    return readMarketplaceManifest(marketplace.path);
  }

  private async marketplacePluginFolder(state: StoreState, plugin: string, marketplace: string): Promise<{ folder: string; version?: string }> {
    const manifest = await this.catalogue(state, marketplace);
    const entry = manifest.plugins.find((candidate) => candidate.name === plugin);
    if (!entry) throw invalidParams(`Marketplace "${marketplace}" offers no plugin "${plugin}" (it offers: ${manifest.plugins.map((candidate) => candidate.name).join(", ") || "none"})`, { plugin, marketplace });
    const base = marketplace === defaultMarketplaceName ? this.defaultMarketplacePath : state.marketplaces.find((candidate) => candidate.name === marketplace)!.path;
    const folder = resolve(base, entry.source);
    const inside = relative(base, folder);
    if (inside.startsWith("..") || isAbsolute(inside)) throw invalidParams(`Marketplace "${marketplace}": the source of "${plugin}" (${entry.source}) points outside the marketplace folder`, { plugin, marketplace });
    return { folder, ...(entry.version ? { version: entry.version } : {}) };
  }

  private async updateRecord(state: StoreState, record: InstalledRecord): Promise<{ previousVersion?: string; newVersion?: string; skillsInstalled: number }> {
    const previousVersion = record.version;
    const origin = record.marketplace === "" ? { folder: record.origin, version: (await readPluginManifest(record.origin)).version } : await this.marketplacePluginFolder(state, record.name, record.marketplace);
    const { version: _old, ...rest } = record;
    const updated = await this.copyIn(state, { ...rest, origin: origin.folder, ...(origin.version ? { version: origin.version } : {}) });
    return { ...(previousVersion ? { previousVersion } : {}), ...(updated.version ? { newVersion: updated.version } : {}), skillsInstalled: await countSkills(this.installPath(updated)) };
  }

  /** Copies the plugin folder into the home (replacing an earlier copy) and records it. */
  private async copyIn(state: StoreState, record: InstalledRecord): Promise<InstalledRecord> {
    if (!existsSync(record.origin)) throw invalidParams(`The plugin folder ${record.origin} does not exist`, { path: record.origin });
    const target = this.installPath(record);
    const staging = `${target}.${process.pid}.staging`;
    await rm(staging, { recursive: true, force: true });
    await mkdir(dirname(target), { recursive: true });
    await cp(record.origin, staging, { recursive: true, dereference: false });
    await rm(target, { recursive: true, force: true });
    await rename(staging, target);
    const index = state.installed.findIndex((plugin) => plugin.name === record.name && plugin.marketplace === record.marketplace && plugin.directSourceId === record.directSourceId);
    const kept = index >= 0 ? { ...record, enabled: state.installed[index]!.enabled } : record;
    if (index >= 0) state.installed[index] = kept;
    else state.installed.push(kept);
    return kept;
  }

  private installPath(record: Pick<InstalledRecord, "name" | "marketplace" | "directSourceId">): string {
    return record.marketplace === "" ? join(this.root, "installed", "_direct", record.directSourceId ?? "unknown", record.name) : join(this.root, "installed", record.marketplace, record.name);
  }

  private find(state: StoreState, name: string, directSourceId: string | undefined): InstalledRecord {
    const spec = parseSpec(name);
    const matches = state.installed.filter((plugin) =>
      spec ? plugin.name === spec.plugin && plugin.marketplace === spec.marketplace : plugin.name === name && (directSourceId === undefined || plugin.directSourceId === directSourceId),
    );
    if (matches.length === 0) throw invalidParams(`No installed plugin "${name}"${directSourceId ? ` with directSourceId ${directSourceId}` : ""}`, { name });
    if (matches.length > 1) throw invalidParams(`"${name}" names ${matches.length} installed plugins; use plugin@marketplace or directSourceId`, { name });
    return matches[0]!;
  }

  private change<T>(operation: (state: StoreState) => Promise<T>): Promise<T> {
    const next = this.queue.then(async () => {
      const state = await this.read();
      const result = await operation(state);
      await mkdir(this.root, { recursive: true });
      const file = join(this.root, "plugins.json");
      const temporary = `${file}.${process.pid}.tmp`;
      await writeFile(temporary, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
      await rename(temporary, file);
      return result;
    });
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async read(): Promise<StoreState> {
    const file = join(this.root, "plugins.json");
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return { marketplaces: [], installed: [] };
      throw error;
    }
    try {
      const parsed = JSON.parse(text) as Partial<StoreState>;
      return { marketplaces: Array.isArray(parsed.marketplaces) ? parsed.marketplaces : [], installed: Array.isArray(parsed.installed) ? parsed.installed : [] };
    } catch (error) {
      throw new TandemError(ErrorCodes.InternalError, `The plugin state ${file} is not valid JSON (${(error as Error).message}); fix or remove it`, { path: file });
    }
  }
}

function publicView(record: InstalledRecord): InstalledPlugin {
  return {
    name: record.name,
    marketplace: record.marketplace,
    ...(record.directSourceId ? { directSourceId: record.directSourceId } : {}),
    ...(record.version ? { version: record.version } : {}),
    enabled: record.enabled,
  };
}

/** `plugin@marketplace`, or undefined for anything else. */
function parseSpec(source: string): { plugin: string; marketplace: string } | undefined {
  const match = /^([^@/\\\s]+)@([^@/\\\s]+)$/.exec(source);
  return match ? { plugin: match[1]!, marketplace: match[2]! } : undefined;
}

function looksLocal(source: string, workingDirectory: string): boolean {
  return isAbsolute(source) || source.startsWith(".") || existsSync(resolve(workingDirectory, source));
}

/** The absolute folder of a local source; GitHub repositories and URLs are refused with a typed error. */
function localPath(source: string, workingDirectory: string, kind: "marketplace" | "plugin"): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(source) || /^[\w.-]+@[\w.-]+:/.test(source) || (!looksLocal(source, workingDirectory) && /^[\w.-]+\/[\w.-]+(?:[#:].*)?$/.test(source))) {
    throw new TandemError(
      ErrorCodes.NotAvailable,
      `A ${kind} from GitHub or a git URL (${source}) is not available: Tandem does not fetch from hosted services; clone it and give the local folder instead`,
      { source },
    );
  }
  const path = resolve(workingDirectory, source);
  if (!existsSync(path)) throw invalidParams(`The ${kind} folder ${path} does not exist`, { source });
  return path;
}
