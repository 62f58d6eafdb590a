import { lstat, realpath, stat } from "node:fs/promises";
import { homedir } from "../../node-os.js";
import { isAbsolute, join, resolve, sep } from "node:path";
import { realPathOfPrefix } from "../../store/safe-path.js";

/**
 * The absolute path a tool works on and shows in its permission request. A relative path resolves
 * against the working directory. When the path leaves the working directory through `..` or a
 * symbolic link, the real path (symlinks resolved) is returned, so what the user approves is what
 * the tool touches — a link is never followed silently.
 *
 * @example
 * await resolveToolPath("src/../../etc/passwd", "/work/repo"); // "/work/etc/passwd"
 * await resolveToolPath("link-to-etc/passwd", "/work/repo");   // "/etc/passwd"
 */
export async function resolveToolPath(input: string, workingDirectory: string): Promise<string> {
  const lexical = resolve(workingDirectory, expandHome(input));
  const real = await realPathOfPrefix(lexical);
  const realRoot = await realpath(workingDirectory).catch(() => resolve(workingDirectory));
  if (isInside(real, realRoot)) return lexical;
  return real;
}

/** Whether `path` is `root` or below it. */
export function isInside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** `~` and `~/x` mean the home folder. */
export function expandHome(input: string): string {
  if (input === "~") return homedir();
  if (input.startsWith("~/")) return join(homedir(), input.slice(2));
  return input;
}

/** Whether the text is an absolute path. */
export function isAbsolutePath(input: string): boolean {
  return isAbsolute(input);
}

/** What is at a path (a dangling symlink is "other"). */
export async function pathKind(path: string): Promise<"file" | "directory" | "other" | "missing"> {
  const target = await stat(path).catch(() => undefined);
  if (target) return target.isDirectory() ? "directory" : target.isFile() ? "file" : "other";
  const link = await lstat(path).catch(() => undefined);
  return link ? "other" : "missing";
}
