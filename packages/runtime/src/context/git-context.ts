// Reads `.git` files directly instead of running `git` (three processes per turn end otherwise):
// HEAD, config and the worktree link are all this needs.
import { readFile } from "node:fs/promises";
import { probeSync } from "../fs-probe.js";
import { dirname, isAbsolute, join, resolve } from "node:path";
import type { SessionContext } from "@tandem/protocol";

/**
 * The session's place: `cwd`, and inside a git repository its `gitRoot`, `branch` (absent when
 * HEAD is detached) and `repository` (`owner/name` from the `origin` remote, else the first remote).
 *
 * @example
 * await readGitContext("/work/repo/src"); // { cwd: "/work/repo/src", gitRoot: "/work/repo", branch: "main", repository: "acme/app" }
 */
export async function readGitContext(cwd: string): Promise<SessionContext> {
  const found = findGitRoot(cwd);
  if (!found) return { cwd };
  const { root, dotGitIsDirectory } = found;
  const gitDir = dotGitIsDirectory ? join(root, ".git") : await linkedGitDir(root);
  if (!gitDir) return { cwd, gitRoot: root };
  // These run in the create of every session: read together, not one round trip after another.
  const [commonDir, head] = await Promise.all([
    readFile(join(gitDir, "commondir"), "utf8").then(
      (text) => resolve(gitDir, text.trim()),
      () => gitDir,
    ),
    readFile(join(gitDir, "HEAD"), "utf8").catch(() => ""),
  ]);
  const branch = /^ref:\s*refs\/heads\/(.+)$/m.exec(head)?.[1]?.trim();
  const config = await readFile(join(commonDir, "config"), "utf8").catch(() => "");
  const repository = repositoryOf(remoteUrl(config));
  return { cwd, gitRoot: root, ...(branch ? { branch } : {}), ...(repository ? { repository } : {}) };
}

/** Whether two contexts name the same place. */
export function sameContext(a: SessionContext, b: SessionContext): boolean {
  return a.cwd === b.cwd && a.gitRoot === b.gitRoot && a.branch === b.branch && a.repository === b.repository;
}

/** The nearest folder at or above `start` with a `.git` (looked for synchronously: see {@link probeSync}). */
export function findGitRoot(start: string): { root: string; dotGitIsDirectory: boolean } | undefined {
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    const info = probeSync(join(dir, ".git"));
    if (info) return { root: dir, dotGitIsDirectory: info.isDirectory() };
    if (dirname(dir) === dir) return undefined;
  }
}

/** `.git` as a file (worktrees, submodules): `gitdir: <path>`. */
async function linkedGitDir(root: string): Promise<string | undefined> {
  const text = await readFile(join(root, ".git"), "utf8").catch(() => "");
  const target = /^gitdir:\s*(.+)$/m.exec(text)?.[1]?.trim();
  if (!target) return undefined;
  return isAbsolute(target) ? target : resolve(root, target);
}

/** The `origin` remote's URL, else the first remote's. */
function remoteUrl(config: string): string | undefined {
  const remotes = new Map<string, string>();
  let current: string | undefined;
  for (const line of config.split(/\r?\n/)) {
    const section = /^\s*\[\s*remote\s+"([^"]+)"\s*\]/.exec(line);
    if (section) {
      current = section[1];
      continue;
    }
    if (/^\s*\[/.test(line)) {
      current = undefined;
      continue;
    }
    const url = /^\s*url\s*=\s*(.+?)\s*$/.exec(line)?.[1];
    if (current && url && !remotes.has(current)) remotes.set(current, url);
  }
  return remotes.get("origin") ?? remotes.values().next().value;
}

/** `git@github.com:owner/name.git`, `https://host/owner/name`, `ssh://git@host/owner/name.git` → `owner/name`. */
export function repositoryOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  const path = url.replace(/^[a-z+]+:\/\/[^/]+\//i, "").replace(/^[^@/:]+@[^:/]+:/, "").replace(/\.git\/?$/, "").replace(/\/+$/, "");
  const parts = path.split("/").filter(Boolean);
  if (parts.length < 2) return undefined;
  return `${parts.at(-2)}/${parts.at(-1)}`;
}
