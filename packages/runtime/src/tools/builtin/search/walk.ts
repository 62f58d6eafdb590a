import type { Dirent } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Ignore } from "ignore";

/** A file found by {@link walkFiles}. */
export interface WalkedFile {
  path: string;
  /** The path relative to the walk's root, `/`-separated. */
  relative: string;
}

/** What {@link walkFiles} skips. */
export interface WalkOptions {
  /** Include names starting with `.` (`.git` is always skipped). */
  includeHidden?: boolean;
  signal?: AbortSignal;
  /** Stop after this many files (default 200,000). */
  maxFiles?: number;
  /** Called (once) with `maxFiles` when the walk stopped there with files left. */
  onLimit?: (maxFiles: number) => void;
}

const ALWAYS_SKIPPED = new Set([".git", "node_modules"]);

/**
 * The files below `root` in path order (names sorted within each folder), as `rg --files` would
 * list them: hidden names, `.git`, `node_modules`, symlinks and what `.gitignore` files exclude
 * are skipped (`.gitignore` semantics from the `ignore` package, loaded on the first walk; a deeper
 * file's rules win over its parents', as in git).
 *
 * @example
 * for await (const file of walkFiles("/work/repo")) console.log(file.relative);
 */
export async function* walkFiles(root: string, options: WalkOptions = {}): AsyncGenerator<WalkedFile> {
  const maxFiles = options.maxFiles ?? 200_000;
  let count = 0;
  let stopped = false;
  const { default: ignore } = await import("ignore");
  const readIgnoreFile = async (file: string, base: string): Promise<IgnoreFile[]> => {
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch {
      return [];
    }
    return [{ base, rules: ignore().add(text) }];
  };
  async function* visit(directory: string, relative: string, ignores: IgnoreFile[]): AsyncGenerator<WalkedFile> {
    if (options.signal?.aborted) return;
    let entries: Dirent[];
    try {
      entries = await readdir(directory, { withFileTypes: true });
    } catch {
      return;
    }
    const rules = [...ignores, ...(await readIgnoreFile(join(directory, ".gitignore"), relative))];
    entries.sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
    for (const entry of entries) {
      if (stopped) return;
      if (ALWAYS_SKIPPED.has(entry.name)) continue;
      if (!options.includeHidden && entry.name.startsWith(".")) continue;
      const childRelative = relative === "" ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) {
        if (isIgnored(rules, childRelative, true)) continue;
        yield* visit(join(directory, entry.name), childRelative, rules);
        continue;
      }
      if (!entry.isFile() || isIgnored(rules, childRelative, false)) continue;
      if (count >= maxFiles) {
        stopped = true;
        options.onLimit?.(maxFiles);
        return;
      }
      count++;
      yield { path: join(directory, entry.name), relative: childRelative };
    }
  }
  yield* visit(root, "", []);
}

/** The rules of one `.gitignore`. */
interface IgnoreFile {
  /** Folder of the `.gitignore`, relative to the walk root ("" for the root). */
  base: string;
  rules: Ignore;
}

/** Whether the `.gitignore` files (outermost first) exclude a path: the last file with a say decides. */
function isIgnored(files: IgnoreFile[], relative: string, isDirectory: boolean): boolean {
  let ignored = false;
  for (const file of files) {
    if (file.base !== "" && !relative.startsWith(`${file.base}/`)) continue;
    const below = file.base === "" ? relative : relative.slice(file.base.length + 1);
    const verdict = file.rules.test(isDirectory ? `${below}/` : below);
    if (verdict.ignored) ignored = true;
    else if (verdict.unignored) ignored = false;
  }
  return ignored;
}
