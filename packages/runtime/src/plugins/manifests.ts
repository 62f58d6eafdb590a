import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { ErrorCodes, TandemError } from "../errors.js";

/** One plugin a marketplace's catalogue offers. */
export interface MarketplaceEntry {
  name: string;
  /** The plugin folder, relative to the marketplace folder (`./my-plugin`). */
  source: string;
  description?: string;
  version?: string;
}

/** A marketplace catalogue (`marketplace.json`). */
export interface MarketplaceManifest {
  name: string;
  plugins: MarketplaceEntry[];
}

/** A plugin's own manifest (`plugin.json`). */
export interface PluginManifest {
  name: string;
  description?: string;
  version?: string;
}

/** Where a catalogue or manifest may sit in its folder, in the order they are looked for. */
const manifestFolders = ["", ".github/plugin", ".claude-plugin"];

/** Names of marketplaces and plugins: they become folder names, so no separators or dot-names. */
const safeName = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/**
 * Reads a marketplace folder's catalogue (`marketplace.json`, or under `.github/plugin/` or
 * `.claude-plugin/`). Throws a typed error naming the file and what is wrong with it.
 *
 * @example
 * const { name, plugins } = await readMarketplaceManifest("/srv/marketplace");
 */
export async function readMarketplaceManifest(folder: string): Promise<MarketplaceManifest> {
  const { path, value } = await readManifest(folder, "marketplace.json", "marketplace");
  const name = requireName(value.name, path);
  const plugins = Array.isArray(value.plugins) ? value.plugins : [];
  const entries: MarketplaceEntry[] = [];
  for (const [index, plugin] of plugins.entries()) {
    const entry = plugin as Record<string, unknown> | null;
    const pluginName = requireName(entry?.name, `${path} (plugins[${index}])`);
    const source = typeof entry?.source === "string" ? entry.source : `./${pluginName}`;
    entries.push({
      name: pluginName,
      source,
      ...(typeof entry?.description === "string" ? { description: entry.description } : {}),
      ...(typeof entry?.version === "string" ? { version: entry.version } : {}),
    });
  }
  return { name, plugins: entries };
}

/**
 * Reads a plugin folder's manifest (`plugin.json`, or under `.github/plugin/` or `.claude-plugin/`).
 *
 * @example
 * const { name, version } = await readPluginManifest("/srv/my-plugin");
 */
export async function readPluginManifest(folder: string): Promise<PluginManifest> {
  const { path, value } = await readManifest(folder, "plugin.json", "plugin");
  return {
    name: requireName(value.name, path),
    ...(typeof value.description === "string" ? { description: value.description } : {}),
    ...(typeof value.version === "string" ? { version: value.version } : {}),
  };
}

/**
 * Counts a plugin's skills: a `SKILL.md` at its root, and `skills/<name>/SKILL.md`.
 *
 * @example
 * await countSkills("/home/me/.tandem/plugins/installed/mp/demo"); // 1
 */
export async function countSkills(folder: string): Promise<number> {
  let count = (await isFile(join(folder, "SKILL.md"))) ? 1 : 0;
  const names = await readdir(join(folder, "skills")).catch(() => [] as string[]);
  for (const name of names) if (await isFile(join(folder, "skills", name, "SKILL.md"))) count++;
  return count;
}

async function readManifest(folder: string, fileName: string, kind: string): Promise<{ path: string; value: Record<string, unknown> }> {
  for (const sub of manifestFolders) {
    const path = join(folder, sub, fileName);
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch {
      continue;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new TandemError(ErrorCodes.InvalidParams, `The ${kind} manifest ${path} is not valid JSON: ${(error as Error).message}`, { path });
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) throw new TandemError(ErrorCodes.InvalidParams, `The ${kind} manifest ${path} is not a JSON object`, { path });
    return { path, value: value as Record<string, unknown> };
  }
  throw new TandemError(ErrorCodes.InvalidParams, `${folder} has no ${fileName} (looked in the folder, .github/plugin/ and .claude-plugin/)`, { path: folder });
}

function requireName(name: unknown, where: string): string {
  if (typeof name === "string" && safeName.test(name)) return name;
  throw new TandemError(ErrorCodes.InvalidParams, `${where}: "name" must be 1–100 letters, digits, ".", "_" or "-" (not starting with "." or "-"); got ${JSON.stringify(name)}`, { path: where });
}

async function isFile(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isFile() ?? false;
}
