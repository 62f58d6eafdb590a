import {
  SessionHistoryListRewindPoints,
  SessionHistoryPreviewRewind,
  SessionHistoryRewind,
  SessionHistoryTruncate,
} from "@tandem/protocol/methods/history";
import {
  SessionWorkspacesDiff,
  SessionWorkspacesGetWorkspace,
  SessionWorkspacesListCheckpoints,
  SessionWorkspacesReadCheckpoint,
} from "@tandem/protocol/methods/workspaces";
import { SessionWorkspaceView } from "../../checkpoints/workspaces.js";
import type { RuntimeServices } from "../runtime-services.js";
import type { MethodTable } from "../method-table.js";

/** Rewind points, rewinds and truncation (`session.history.*`), and the workspace views over the git checkpoints (`session.workspaces.*`). */
export function registerHistoryMethods(table: MethodTable, runtime: RuntimeServices): void {
  const sessions = runtime.sessions;
  table.on(SessionHistoryListRewindPoints, ({ sessionId }) => sessions.get(sessionId).history.listRewindPoints());
  table.on(SessionHistoryPreviewRewind, ({ sessionId, eventId }) => sessions.get(sessionId).history.previewRewind(eventId));
  table.on(SessionHistoryRewind, ({ sessionId, eventId, mode }) => sessions.get(sessionId).history.rewind(eventId, mode));
  table.on(SessionHistoryTruncate, ({ sessionId, eventId }) => sessions.get(sessionId).history.truncate(eventId));

  const view = (sessionId: string): SessionWorkspaceView => new SessionWorkspaceView(sessions.get(sessionId));
  table.on(SessionWorkspacesGetWorkspace, ({ sessionId }) => view(sessionId).getWorkspace());
  table.on(SessionWorkspacesListCheckpoints, ({ sessionId }) => view(sessionId).listCheckpoints());
  table.on(SessionWorkspacesReadCheckpoint, ({ sessionId, number }) => view(sessionId).readCheckpoint(number));
  table.on(SessionWorkspacesDiff, ({ sessionId, mode, ignoreWhitespace }) => view(sessionId).diff(mode, ignoreWhitespace));
}
