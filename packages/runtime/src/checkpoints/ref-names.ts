import { createHash } from "node:crypto";

/** Where every session's checkpoint refs live: `refs/tandem/checkpoints/<namespace>/<n>`. */
export const checkpointRefRoot = "refs/tandem/checkpoints/";

/** Longer encodings are replaced by a full SHA-256 (a folder name must stay under 255 bytes). */
const maxEncodedLength = 200;

/**
 * The ref and branch name component of a session id, one-to-one: letters, digits and `-` stay as
 * they are, `_` becomes `_u`, `.` becomes `_d` and any other character `_x<hex code>_` (so a UUID
 * keeps its own name, and no two ids share one). An encoding longer than 200 characters becomes `_h` and the id's full SHA-256, which
 * no escaped id can equal (escapes never start with `_h`).
 *
 * @example
 * refNamespace("4f0c…-9a1e"); // "4f0c…-9a1e"
 * refNamespace("my.session_1"); // "my_dsession_u1"
 */
export function refNamespace(sessionId: string): string {
  const encoded = sessionId.replace(/[^A-Za-z0-9-]/g, (character) => (character === "_" ? "_u" : character === "." ? "_d" : `_x${character.codePointAt(0)!.toString(16)}_`));
  if (encoded.length <= maxEncodedLength) return encoded;
  return `_h${createHash("sha256").update(sessionId).digest("hex")}`;
}

/**
 * The name earlier versions gave a session's refs and branch: the id itself when it looked safe,
 * else `x-` and 32 hex digits of its SHA-256. Another session's id can equal that name, so refs
 * found under it are only a session's own when their turns are (see `GitCheckpoints.open`).
 */
export function legacyRefName(sessionId: string): string {
  if (/^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/.test(sessionId)) return sessionId;
  return `x-${createHash("sha256").update(sessionId).digest("hex").slice(0, 32)}`;
}

/** Whether refs under this namespace may have been written for another session by the earlier naming. */
export function mayHoldLegacyHashedRefs(namespace: string): boolean {
  return /^x-[0-9a-f]{32}$/.test(namespace);
}
