import type { Dirent } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { globToRegExp } from "./glob-pattern.js";

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
 * are skipped.
 *
 * @example
 * for await (const file of walkFiles("/work/repo")) console.log(file.relative);
 */
export async function* walkFiles(root: string, options: WalkOptions = {}): AsyncGenerator<WalkedFile> {
  const maxFiles = options.maxFiles ?? 200_000;
  let count = 0;
  let stopped = false;
  async function* visit(directory: string, relative: string, ignores: IgnoreRule[]): AsyncGenerator<WalkedFile> {
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

interface IgnoreRule {
  /** Folder of the `.gitignore`, relative to the walk root ("" for the root). */
  base: string;
  regex: RegExp;
  negate: boolean;
  directoryOnly: boolean;
  /** Matched against the whole path below `base` (the pattern has a `/`), else against the name. */
  anchored: boolean;
}

async function readIgnoreFile(file: string, base: string): Promise<IgnoreRule[]> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    return [];
  }
  return parseGitignore(text, base);
}

/** The rules of a `.gitignore` (the common subset: globs, `!`, trailing `/`, leading `/`). */
export function parseGitignore(text: string, base = ""): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  for (const raw of text.split(/\r?\n/)) {
    let line = raw.replace(/(?<!\\)\s+$/, "");
    if (line === "" || line.startsWith("#")) continue;
    const negate = line.startsWith("!");
    if (negate) line = line.slice(1);
    const directoryOnly = line.endsWith("/");
    if (directoryOnly) line = line.slice(0, -1);
    const anchored = line.includes("/");
    if (line.startsWith("/")) line = line.slice(1);
    if (line === "") continue;
    rules.push({ base, regex: globToRegExp(line), negate, directoryOnly, anchored });
  }
  return rules;
}

function isIgnored(rules: IgnoreRule[], relative: string, isDirectory: boolean): boolean {
  let ignored = false;
  for (const rule of rules) {
    if (rule.directoryOnly && !isDirectory) continue;
    if (rule.base !== "" && !relative.startsWith(`${rule.base}/`)) continue;
    const below = rule.base === "" ? relative : relative.slice(rule.base.length + 1);
    const subject = rule.anchored ? below : below.slice(below.lastIndexOf("/") + 1);
    if (rule.regex.test(subject)) ignored = !rule.negate;
  }
  return ignored;
}
