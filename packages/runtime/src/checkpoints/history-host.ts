import type { PersistedEventsPort } from "../ports/events.js";
import type { SessionScopePort } from "../ports/session-scope.js";

/**
 * What a session's history (`SessionHistory`) and its rewinds read of the session's scope: ids,
 * folders, the conversation, the logger, the config and the emitter with its persisted log.
 *
 * @example
 * const history = new SessionHistory(scope satisfies HistoryHost, () => turns.busy);
 */
export type HistoryHost = Pick<SessionScopePort, "sessionId" | "workingDirectory" | "workspacePath" | "messages" | "logger" | "config"> & { readonly emitter: PersistedEventsPort };
