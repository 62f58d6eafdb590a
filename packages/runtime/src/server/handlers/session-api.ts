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
import type { MethodTable } from "../method-table.js";
import { PreSerializedJson } from "../writer.js";

/** The 1.0.x session API: name, options, event log, queue, approve-all, fork, `session.workspaces.*` files. */
export function registerSessionApiMethods(table: MethodTable, runtime: RuntimeServices): void {
  const sessions = runtime.sessions;

  table.on(SessionNameGet, ({ sessionId }) => {
    const session = sessions.get(sessionId);
    return { name: session.title.current() };
  });
  table.on(SessionNameSet, async ({ sessionId, name }) => {
    const session = sessions.get(sessionId);
    await session.title.rename(name, () => sessions.writeWorkspaceNow(session));
    return {};
  });

  table.on(SessionOptionsUpdate, async (params) => {
    const session = sessions.get(params.sessionId);
    const { ignored } = await applyOptions(session, params, () => sessions.writeWorkspaceNow(session));
    if (ignored.length > 0) session.scope.logger.info(`session.options.update left unchanged what Tandem has no use for: ${ignored.join(", ")}`);
    return { success: true };
  });

  table.on(SessionEventLogRead, async ({ sessionId, ...params }) => new PreSerializedJson(await readEventLog(sessions.get(sessionId).emitter, params)) as never);
  table.on(SessionEventLogTail, ({ sessionId }) => eventLogTail(sessions.get(sessionId).emitter));

  table.on(SessionQueuePendingItems, ({ sessionId }) => sessions.get(sessionId).turns.pendingMessages.pendingItems());
  table.on(SessionQueueRemoveAt, ({ sessionId, id }) => ({ removed: sessions.get(sessionId).turns.pendingMessages.removeAt(id) }));
  table.on(SessionQueueRemoveMostRecent, ({ sessionId }) => ({ removed: sessions.get(sessionId).turns.pendingMessages.removeMostRecent() }));
  table.on(SessionQueueClear, ({ sessionId }) => {
    sessions.get(sessionId).turns.pendingMessages.clear();
    return {};
  });

  table.on(SessionPermissionsSetApproveAll, ({ sessionId, enabled }) => {
    sessions.get(sessionId).permissions.setApproveAll(enabled);
    return { success: true };
  });
  table.on(SessionPermissionsConfigure, ({ sessionId, approveAllToolPermissionRequests, approveAllReadPermissionRequests, rules, paths, urls, additionalContentExclusionPolicies }) => {
    const session = sessions.get(sessionId);
    if (additionalContentExclusionPolicies !== undefined) {
      // Nothing is applied: a policy half-applied would look stricter or looser than it is.
      throw new TandemError(ErrorCodes.NotAvailable, "session.permissions.configure: additionalContentExclusionPolicies is not available in this version of Tandem; nothing was changed", { fields: ["additionalContentExclusionPolicies"] });
    }
    // Checked as a whole first (rule kinds, absolute paths): a refused patch changes nothing.
    session.permissions.policy.configure({ rules, paths, urls });
    if (approveAllToolPermissionRequests !== undefined) session.permissions.setApproveAll(approveAllToolPermissionRequests);
    if (approveAllReadPermissionRequests !== undefined) session.permissions.approvals.setApproveAllReads(approveAllReadPermissionRequests);
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
