import { statSync, type Stats } from "node:fs";

/**
 * A path's stats, or undefined when it is missing or cannot be looked at (EACCES, ENOTDIR…), read
 * synchronously. For the existence checks that run in every session's create and turn (`.git`
 * up the folder tree, the session folder, the extension folders), where the answer is mostly "no":
 * a failing async `stat` cost ~50 µs of CPU on the bench machine (the ENOENT error object and its
 * stack), a `statSync` that does not throw ~1–2 µs. Local metadata lookups only: no file is read.
 *
 * @example
 * if (!probeSync(join(dir, ".git"))) continue;
 */
export function probeSync(path: string): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}
