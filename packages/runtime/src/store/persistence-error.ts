import { rename, rm, writeFile } from "node:fs/promises";
import { errorMessage, ErrorCodes, TandemError } from "../errors.js";

/** What was being done to a session file when it failed. */
export type PersistenceOperation = "open" | "read" | "write" | "truncate" | "datasync" | "rename" | "delete";

/**
 * A session file could not be written (ENOSPC, EIO, EDQUOT, EROFS…): a `PersistenceFailed` error
 * naming the file and the OS error, with `data.path`, `data.code` (the errno name) and
 * `data.operation`.
 *
 * @example
 * throw persistenceFailed("/home/me/.tandem/session-state/abc/workspace.yaml", error);
 */
export function persistenceFailed(path: string, error: unknown, operation: PersistenceOperation = "write"): TandemError {
  if (error instanceof TandemError && error.code === ErrorCodes.PersistenceFailed) return error;
  const code = osErrorCode(error);
  return new TandemError(ErrorCodes.PersistenceFailed, `Could not ${operation} ${path}: ${errorMessage(error)}`, {
    path,
    operation,
    ...(code ? { code } : {}),
  });
}

/** The errno name of a Node file-system error (`ENOSPC`, `EIO`…), if it has one. */
export function osErrorCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const { code } = error as { code?: unknown };
  return typeof code === "string" ? code : undefined;
}

/**
 * Replaces a small file whole or not at all: writes a temporary file next to it and renames it
 * over the old one, so a full disk leaves the previous contents intact instead of a truncated file
 * (plain `writeFile` truncates first). No fsync: these files are rewritten often and the events
 * log, not they, is the session's record. Throws {@link persistenceFailed}.
 *
 * @example
 * await writeFileAtomic(join(dir, "workspace.yaml"), text);
 */
export async function writeFileAtomic(path: string, content: string): Promise<void> {
  // Math.random, not crypto: a name that only has to differ from a concurrent write's (crypto's
  // random bytes cost ~25 µs and a getpid per call, three times in every session).
  const temporary = `${path}.${Math.random().toString(36).slice(2, 10)}.tmp`;
  try {
    await writeFile(temporary, content);
  } catch (error) {
    // The half-written temporary file only wastes space; removing it is best effort.
    await rm(temporary, { force: true }).catch(() => undefined);
    throw persistenceFailed(path, error);
  }
  try {
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => undefined);
    throw persistenceFailed(path, error, "rename");
  }
}
