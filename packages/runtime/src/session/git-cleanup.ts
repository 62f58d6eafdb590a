import { removeSessionGitState } from "../checkpoints/git-state.js";
import type { Logger } from "../log.js";
import type { SessionStore } from "../store/types.js";

/**
 * `session.delete`'s git step: removes the session's checkpoint refs, worktree and branch from the
 * user's repository (see {@link removeSessionGitState}) before its folder goes. A step that fails
 * is logged and the deletion goes on: the session's data is what the caller asked to remove.
 *
 * @example
 * await removeGitStateOfSession(store, logger, sessionId, session?.workingDirectory);
 */
export async function removeGitStateOfSession(store: SessionStore, logger: Logger, sessionId: string, workingDirectory: string | undefined): Promise<void> {
  const removed = await removeSessionGitState({
    sessionId,
    sessionDir: store.sessionDir(sessionId),
    workingDirectory: workingDirectory ?? (await store.readWorkspace(sessionId))?.cwd,
    turnIds: () => storedTurnIds(store, sessionId),
  });
  if (removed.failures.length > 0) logger.warn(`some of its git state could not be removed: ${removed.failures.join("; ")}`);
}

/** The ids of the session's persisted `user.message` events. */
async function storedTurnIds(store: SessionStore, sessionId: string): Promise<ReadonlySet<string>> {
  const ids = new Set<string>();
  const log = store.openEventLog(sessionId);
  try {
    await log.scan(0, (line) => {
      if (!line.includes('"user.message"')) return;
      try {
        const event = JSON.parse(line) as { type?: unknown; id?: unknown };
        if (event.type === "user.message" && typeof event.id === "string") ids.add(event.id);
      } catch {
        // A line that is not an event names no turn.
      }
    });
  } finally {
    await log.close();
  }
  return ids;
}
