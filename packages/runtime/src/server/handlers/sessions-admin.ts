import { type SessionMetadata, SessionResume } from "@tandem/protocol";
import {
  SessionsBulkDelete,
  SessionsCheckInUse,
  SessionsClose,
  SessionsConnect,
  SessionsEnrichMetadata,
  SessionsFindByPrefix,
  SessionsFindByTaskId,
  SessionsGetLastForContext,
  SessionsGetSizes,
  SessionsList,
  SessionsLoadDeferredRepoHooks,
  SessionsOpen,
  SessionsPruneOld,
  SessionsReleaseLock,
  SessionsReloadPluginHooks,
  SessionsSave,
  SessionsSetAdditionalPlugins,
} from "@tandem/protocol/methods/sessions-admin";
import { ErrorCodes } from "@tandem/protocol/errors";
import { TandemError } from "../../errors.js";
import type { RuntimeServices } from "../runtime-services.js";
import { SessionAdmin } from "../../session-admin/session-admin.js";
import type { MethodTable } from "../method-table.js";

/** The server-scoped `sessions.*` methods: stored sessions listed, found, measured, saved, closed, deleted, pruned, opened. */
export function registerSessionsAdminMethods(table: MethodTable, runtime: RuntimeServices): void {
  const { sessions, store } = runtime;
  const admin = new SessionAdmin({
    listStored: () => store.list(),
    listSessions: (filter) => sessions.list(filter),
    sessionDir: (sessionId) => store.sessionDir(sessionId),
    isOpen: (sessionId) => sessions.find(sessionId) !== undefined,
    isStored: (sessionId) => store.exists(sessionId),
    saveOpen: async (sessionId) => {
      const session = sessions.get(sessionId);
      await session.emitter.log.flush({ durable: true });
      if (session.emitter.log.failure) throw session.emitter.log.failure;
      await sessions.writeWorkspaceNow(session);
    },
    close: (sessionId) => sessions.destroy(sessionId),
    delete: async (sessionId) => (await sessions.delete(sessionId)).success,
  });

  table.on(SessionsList, async ({ source, metadataLimit, filter }) => {
    // Tandem runs sessions locally only: there are no remote ones to list.
    if (source === "remote") return { sessions: [] };
    const listed = await sessions.list(filter?.cwd === undefined ? undefined : { cwd: filter.cwd });
    // Entries past `metadataLimit` carry the cheap fields only.
    return { sessions: listed.map((entry, index) => ({ ...(metadataLimit === undefined || index < metadataLimit ? entry : withoutDetails(entry)), isRemote: false as const })) };
  });
  table.on(SessionsFindByPrefix, async ({ prefix }) => optionalId(await admin.findByPrefix(prefix)));
  // Tandem sessions are not linked to tasks, so no task id names one.
  table.on(SessionsFindByTaskId, () => ({}));
  table.on(SessionsGetLastForContext, async ({ context }) => optionalId(await admin.lastForContext(context?.cwd)));
  table.on(SessionsGetSizes, async () => ({ sizes: await admin.sizes() }));
  table.on(SessionsCheckInUse, ({ sessionIds }) => ({ inUse: admin.checkInUse(sessionIds) }));
  table.on(SessionsSave, async ({ sessionId }) => {
    await admin.save(sessionId);
    return {};
  });
  table.on(SessionsClose, async ({ sessionId }) => {
    await admin.close(sessionId);
    return {};
  });
  table.on(SessionsReleaseLock, ({ sessionId }) => {
    admin.releaseLock(sessionId);
    return {};
  });
  table.on(SessionsBulkDelete, async ({ sessionIds }) => ({ freedBytes: await admin.bulkDelete(sessionIds) }));
  table.on(SessionsPruneOld, (params) => admin.pruneOld(params));
  table.on(SessionsEnrichMetadata, async ({ sessions: entries }) => ({ sessions: await admin.enrich(entries) }));

  table.on(SessionsOpen, async (params, client) => {
    const { kind } = params;
    if (kind !== "resume" && kind !== "resumeLast") {
      throw new TandemError(ErrorCodes.NotAvailable, `sessions.open with kind "${kind}" is not available in Tandem: it opens local sessions by resuming them (kind "resume" or "resumeLast"); create new ones with session.create`, { kind });
    }
    const sessionId = kind === "resume" ? params.sessionId : await admin.lastForContext(params.context?.cwd);
    if (sessionId === undefined || (!sessions.find(sessionId) && !(await store.exists(sessionId)))) return { status: "not_found" as const };
    await runtime.dispatch(SessionResume.method, { sessionId }, client);
    return { status: "resumed" as const, sessionId };
  });
  table.on(SessionsConnect, ({ sessionId }) => {
    throw new TandemError(ErrorCodes.NotAvailable, `Cannot connect to session ${sessionId}: remote sessions are not available in Tandem, which runs every session locally (resume a local session with session.resume)`, { sessionId });
  });

  // Tandem loads no plugins and no hook files: hooks come from the clients' `hooks` callbacks.
  table.on(SessionsSetAdditionalPlugins, ({ plugins }) => {
    if (plugins.length > 0) throw new TandemError(ErrorCodes.NotAvailable, "Plugins are not available in Tandem: sessions.setAdditionalPlugins accepts only an empty list", { count: plugins.length });
    return {};
  });
  table.on(SessionsReloadPluginHooks, ({ sessionId }) => {
    sessions.get(sessionId);
    return {};
  });
  table.on(SessionsLoadDeferredRepoHooks, ({ sessionId }) => {
    sessions.get(sessionId);
    return { startupPrompts: [], hookCount: 0 };
  });
}

function optionalId(sessionId: string | undefined): { sessionId?: string } {
  return sessionId === undefined ? {} : { sessionId };
}

/** A listed session without its summary and name. */
function withoutDetails(entry: SessionMetadata): SessionMetadata {
  const { summary: _summary, ...rest } = entry;
  delete (rest as { name?: unknown }).name;
  return rest;
}
