import { readdir, stat } from "node:fs/promises";
import { probeSync } from "../fs-probe.js";
import { join } from "node:path";

/** Where an extension was found: the session's project (`.github/extensions`) or the user's Tandem home (`extensions/`). */
export type ExtensionSource = "project" | "user";

/** One discovered extension. */
export interface ExtensionSpec {
  /** Source-qualified id, e.g. `project:deploy` (as 1.0.x's `session.extensions_loaded` names them). */
  readonly id: string;
  /** The folder name. */
  readonly name: string;
  readonly source: ExtensionSource;
  /** The absolute path of its `extension.mjs`. */
  readonly entry: string;
}

/** The file an extension folder must hold. */
export const extensionEntryFile = "extension.mjs";

/** The folders searched, in order: the project's, then the user's. */
export function extensionRoots(workingDirectory: string, home: string): Array<{ source: ExtensionSource; dir: string }> {
  return [
    { source: "project", dir: join(workingDirectory, ".github", "extensions") },
    { source: "user", dir: join(home, "extensions") },
  ];
}

/**
 * Finds `<root>/<name>/extension.mjs` under the project's `.github/extensions` and the user's
 * `<home>/extensions`. Missing folders are simply empty; names are sorted, so the start order is stable.
 *
 * @example
 * const specs = await discoverExtensions(session.workingDirectory, store.home);
 */
export async function discoverExtensions(workingDirectory: string, home: string): Promise<ExtensionSpec[]> {
  // Both folders at once: this runs before the first message of every new foreground session.
  const roots = await Promise.all(
    // Most projects have neither folder: a probe first spares a failing readdir (see probeSync).
    extensionRoots(workingDirectory, home).map(async ({ source, dir }) => ({ source, dir, names: probeSync(dir) ? (await readdir(dir).catch(() => [] as string[])).sort() : [] })),
  );
  const found: ExtensionSpec[] = [];
  for (const { source, dir, names } of roots) {
    for (const name of names) {
      const entry = join(dir, name, extensionEntryFile);
      const info = await stat(entry).catch(() => undefined);
      if (info?.isFile()) found.push({ id: `${source}:${name}`, name, source, entry });
    }
  }
  return found;
}
