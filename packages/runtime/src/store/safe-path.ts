import { realpath } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { SessionId } from "@tandem/protocol";
import { invalidParams } from "../errors.js";

/**
 * Checks that a client-given session id is one safe path component (see the protocol's
 * `SessionId`): never `.`, `..`, a path, or a hidden name. The server edge validates ids already;
 * this is the second line, where an id becomes a path.
 *
 * @example
 * assertSessionId("../../etc"); // throws -32602 "Invalid session id …"
 */
export function assertSessionId(sessionId: string): void {
  const checked = SessionId.safeParse(sessionId);
  if (checked.success) return;
  throw invalidParams(`Invalid session id ${JSON.stringify(sessionId)}: ${checked.error.issues[0]?.message ?? "not allowed"}`, { sessionId });
}

/** Whether a name could be a session id (used to skip foreign entries when listing). */
export function isSafeSessionId(name: string): boolean {
  return SessionId.safeParse(name).success;
}

/**
 * Resolves `path` (relative to `root`) and checks that it stays strictly inside `root`, both as
 * written and after following symbolic links of the parts that exist. Throws -32602 naming `what`
 * otherwise (an absolute path, `..`, a NUL byte, the root itself, or a link that points out);
 * `folder` names the root in those messages.
 *
 * @example
 * await resolveInside("/home/me/.tandem/session-state/s1/files", "notes/a.md", "Workspace file");
 */
export async function resolveInside(root: string, path: string, what: string, folder = "its folder"): Promise<string> {
  if (path === "" || path.includes("\0") || isAbsolute(path)) {
    throw invalidParams(`${what} must be a relative path inside ${folder}: ${JSON.stringify(path)}`, { path });
  }
  const full = resolve(root, path);
  if (!isStrictlyInside(root, full)) throw invalidParams(`${what} must stay inside ${folder}: ${JSON.stringify(path)}`, { path });
  const realRoot = await realPathOfPrefix(root);
  const realFull = await realPathOfPrefix(full);
  if (!isStrictlyInside(realRoot, realFull)) {
    throw invalidParams(`${what} leads outside ${folder} through a symbolic link: ${JSON.stringify(path)}`, { path });
  }
  return full;
}

/** Whether `candidate` is below `root` (and not `root` itself). */
export function isStrictlyInside(root: string, candidate: string): boolean {
  const relation = relative(root, candidate);
  return relation !== "" && !relation.startsWith(`..${sep}`) && relation !== ".." && !isAbsolute(relation);
}

/**
 * The real path of the longest existing prefix of `path`, with the rest appended: symlinks are
 * resolved where they exist, names that do not exist yet are kept as written.
 */
export async function realPathOfPrefix(path: string): Promise<string> {
  const missing: string[] = [];
  let current = path;
  for (;;) {
    try {
      const real = await realpath(current);
      return missing.length === 0 ? real : join(real, ...missing.reverse());
    } catch {
      // A dangling link or a missing name: keep it as written and try its parent.
      const parent = dirname(current);
      if (parent === current) return path;
      missing.push(basename(current));
      current = parent;
    }
  }
}
