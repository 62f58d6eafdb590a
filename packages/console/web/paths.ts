/** Paths as the user reads them: relative to the session's working directory, the full path on hover. */

/**
 * `path` relative to `cwd` when it lies under it ("." for `cwd` itself); otherwise unchanged.
 *
 * @example
 * displayPath("/work/app/src/a.ts", "/work/app"); // "src/a.ts"
 * displayPath("/etc/hosts", "/work/app"); // "/etc/hosts"
 */
export function displayPath(path: string, cwd: string | undefined): string {
  if (!cwd || !path.startsWith("/")) return path;
  const base = cwd.replace(/\/+$/, "");
  if (path === base) return ".";
  return path.startsWith(`${base}/`) ? path.slice(base.length + 1) : path;
}

/** Every occurrence of the working directory in `text` (a summary line) shortened the same way. */
export function shortenPaths(text: string, cwd: string | undefined): string {
  if (!cwd) return text;
  const base = cwd.replace(/\/+$/, "");
  if (!base) return text;
  return text.split(`${base}/`).join("");
}
