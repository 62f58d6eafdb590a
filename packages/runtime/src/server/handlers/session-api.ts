import {
  SessionEventLogRead,
  SessionEventLogTail,
  SessionNameGet,
  SessionNameSet,
  SessionOptionsUpdate,
  SessionPermissionsConfigure,
  SessionPermissionsSetApproveAll,
  SessionQueueClear,
  SessionQueuePendingItems,
  SessionQueueRemoveAt,
  SessionQueueRemoveMostRecent,
  SessionsFork,
  SessionWorkspacesCreateFile,
  SessionWorkspacesListFiles,
  SessionWorkspacesReadFile,
} from "@tandem/protocol/methods/session-api";
import { ErrorCodes } from "@tandem/protocol/errors";
import { TandemError } from "../../errors.js";
import type { RuntimeServices } from "../runtime-services.js";
import { eventLogTail, readEventLog } from "../../session/event-log-api.js";
import { forkSession } from "../../session/fork.js";
import { applyOptions } from "../../session/options-update.js";
import type { Session } from "../../session/session.js";
import { shortTitle } from "../../session/session.js";
import type { MethodTable } from "../method-table.js";
import { PreSerializedJson } from "../writer.js";

/** The 1.0.x session API: name, options, event log, queue, approve-all, fork, `session.workspaces.*` files. */
export function registerSessionApiMethods(table: MethodTable, runtime: RuntimeServices): void {
  const sessions = runtime.sessions;

  table.on(SessionNameGet, ({ sessionId }) => {
    const session = sessions.get(sessionId);
    return { name: session.name ?? session.autoName ?? (session.summary !== undefined ? shortTitle(session.summary) : null) };
  });
  table.on(SessionNameSet, async ({ sessionId, name }) => {
    const session = sessions.get(sessionId);
    session.name = name;
    await sessions.writeWorkspaceNow(session);
    session.emitter.emit("session.title_changed", { title: name });
    return {};
  });

  table.on(SessionOptionsUpdate, async (params) => {
    const session = sessions.get(params.sessionId);
    const { ignored } = await applyOptions(session, params, () => sessions.writeWorkspaceNow(session));
    if (ignored.length > 0) session.logger.info(`session.options.update left unchanged what Tandem has no use for: ${ignored.join(", ")}`);
    return { success: true };
  });

  table.on(SessionEventLogRead, async ({ sessionId, ...params }) => new PreSerializedJson(await readEventLog(sessions.get(sessionId).emitter, params)) as never);
  table.on(SessionEventLogTail, ({ sessionId }) => eventLogTail(sessions.get(sessionId).emitter));

  table.on(SessionQueuePendingItems, ({ sessionId }) => sessions.get(sessionId).pendingMessages.pendingItems());
  table.on(SessionQueueRemoveAt, ({ sessionId, id }) => ({ removed: sessions.get(sessionId).pendingMessages.removeAt(id) }));
  table.on(SessionQueueRemoveMostRecent, ({ sessionId }) => ({ removed: sessions.get(sessionId).pendingMessages.removeMostRecent() }));
  table.on(SessionQueueClear, ({ sessionId }) => {
    sessions.get(sessionId).pendingMessages.clear();
    return {};
  });

  table.on(SessionPermissionsSetApproveAll, ({ sessionId, enabled }) => {
    setApproveAll(sessions.get(sessionId), enabled);
    return { success: true };
  });
  table.on(SessionPermissionsConfigure, ({ sessionId, approveAllToolPermissionRequests, approveAllReadPermissionRequests, rules, paths, urls, additionalContentExclusionPolicies }) => {
    const session = sessions.get(sessionId);
    if (additionalContentExclusionPolicies !== undefined) {
      // Nothing is applied: a policy half-applied would look stricter or looser than it is.
      throw new TandemError(ErrorCodes.NotAvailable, "session.permissions.configure: additionalContentExclusionPolicies is not available in this version of Tandem; nothing was changed", { fields: ["additionalContentExclusionPolicies"] });
    }
    // Checked as a whole first (rule kinds, absolute paths): a refused patch changes nothing.
    session.permissionPolicy.configure({ rules, paths, urls });
    if (approveAllToolPermissionRequests !== undefined) setApproveAll(session, approveAllToolPermissionRequests);
    if (approveAllReadPermissionRequests !== undefined) session.approvals.setApproveAllReads(approveAllReadPermissionRequests);
    return { success: true };
  });

  table.on(SessionWorkspacesListFiles, async ({ sessionId }) => ({ files: await sessions.get(sessionId).workspace.listFiles() }));
  table.on(SessionWorkspacesReadFile, async ({ sessionId, path }) => ({ content: await sessions.get(sessionId).workspace.readFile(path) }));
  table.on(SessionWorkspacesCreateFile, async ({ sessionId, path, content }) => {
    await sessions.get(sessionId).workspace.createFile(path, content);
    return {};
  });

  table.on(SessionsFork, (params) =>
    forkSession({ store: runtime.store, flushSource: async (sessionId) => sessions.find(sessionId)?.emitter.log.flush() }, params),
  );
}

/** Turns approve-all on or off; a change is recorded as `session.permissions_changed` (persisted, so it survives resume). */
function setApproveAll(session: Session, enabled: boolean): void {
  const { previousMode, mode } = session.approvals.setApproveAll(enabled);
  if (previousMode !== mode) session.emitter.emit("session.permissions_changed", { previousMode, mode });
}
