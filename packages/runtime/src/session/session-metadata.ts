import type { SessionMetadata } from "@tandem/protocol";
import type { StoredSessionInfo, WorkspaceInfo } from "../store/types.js";
import type { Session } from "./session.js";

/** The result of `session.create` / `session.resume`. */
export type SessionOpened = {
  sessionId: string;
  workspacePath: string;
  capabilities: { ui: { elicitation: boolean } };
};

/** Which stored sessions `session.list` returns. */
export type SessionListFilter = { cwd?: string; gitRoot?: string; repository?: string; branch?: string } | null;

/**
 * The data of a new session's `session.start` event (its `context` is added by the caller).
 *
 * @example
 * session.emitter.emit("session.start", { ...startData(session, runtimeVersion, false), context });
 */
export function startData(session: Session, runtimeVersion: string, alreadyInUse: boolean) {
  return {
    sessionId: session.sessionId,
    version: 1,
    producer: "tandem",
    copilotVersion: runtimeVersion,
    startTime: session.scope.startTime.toISOString(),
    selectedModel: session.scope.model,
    ...(session.scope.config.reasoningEffort ? { reasoningEffort: session.scope.config.reasoningEffort } : {}),
    context: { cwd: session.scope.workingDirectory },
    alreadyInUse,
  };
}

/**
 * What `workspace.yaml` holds for a session now.
 *
 * @example
 * await store.writeWorkspace(workspaceInfo(session));
 */
export function workspaceInfo(session: Session): WorkspaceInfo {
  return {
    id: session.sessionId,
    cwd: session.scope.workingDirectory,
    summary_count: 0,
    created_at: session.scope.startTime.toISOString(),
    updated_at: new Date().toISOString(),
    summary: session.title.summary,
    model: session.scope.model,
    ...(session.title.name !== undefined ? { name: session.title.name } : {}),
    client_generation: session.scope.profile.generation,
  };
}

/**
 * The `metadata` of a `session.created` / `session.updated` lifecycle notification.
 *
 * @example
 * broadcastLifecycle({ type: "session.updated", sessionId, metadata: lifecycleMetadata(session) });
 */
export function lifecycleMetadata(session: Session) {
  return {
    startTime: session.scope.startTime.toISOString(),
    modifiedTime: new Date().toISOString(),
    ...(session.title.summary ? { summary: session.title.summary } : {}),
  };
}

/**
 * The answer to `session.create` (`resumed: false`) or `session.resume`.
 *
 * @example
 * return openedResult(session, true);
 */
export function openedResult(session: Session, resumed: boolean): SessionOpened {
  return { sessionId: session.sessionId, workspacePath: session.scope.workspacePath, capabilities: { ui: { elicitation: resumed || session.scope.clients.anyAnswersElicitation } } };
}

/**
 * `session.list`: the stored sessions that have at least one message, in the store's order, as
 * metadata (only `cwd` filters).
 *
 * @example
 * const sessions = listedSessions(await store.list(), { cwd: "/repo" });
 */
export function listedSessions(stored: readonly StoredSessionInfo[], filter?: SessionListFilter): SessionMetadata[] {
  return stored
    .filter((item) => item.workspace.summary !== undefined)
    .filter((item) => !filter?.cwd || item.workspace.cwd === filter.cwd)
    .map((item) => ({
      sessionId: item.sessionId,
      startTime: item.workspace.created_at,
      modifiedTime: item.modifiedTime.toISOString(),
      summary: item.workspace.summary,
      ...(item.workspace.name !== undefined ? { name: item.workspace.name } : {}),
      isRemote: false,
      context: { cwd: item.workspace.cwd },
    }));
}
