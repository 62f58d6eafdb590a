import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";

/**
 * The bytes of the files under `path` (recursively; symbolic links count as themselves, never
 * followed). A missing path is 0 bytes; entries that vanish while being counted are skipped.
 *
 * @example
 * const bytes = await diskUsage("/home/me/.tandem/session-state/1234");
 */
export async function diskUsage(path: string): Promise<number> {
  const stats = await lstat(path).catch(() => undefined);
  if (!stats) return 0;
  if (!stats.isDirectory()) return stats.size;
  const entries = await readdir(path).catch(() => [] as string[]);
  const sizes = await Promise.all(entries.map((entry) => diskUsage(join(path, entry))));
  return sizes.reduce((total, size) => total + size, 0);
}
