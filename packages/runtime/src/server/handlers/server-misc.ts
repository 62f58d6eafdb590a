import {
  AgentRegistrySpawn,
  SecretsAddFilterValues,
  SessionExtensionsSendAttachmentsToMessage,
  SessionFsSetProvider,
} from "@tandem/protocol";
import { ErrorCodes } from "@tandem/protocol/errors";
import { TandemError } from "../../errors.js";
import type { RuntimeServices } from "../runtime-services.js";
import type { MethodTable } from "../method-table.js";

/**
 * Server-scoped methods of several small areas: secret filtering, the session file-system provider,
 * the agent registry, extensions' attachments and delegated model responses.
 */
export function registerServerMiscMethods(table: MethodTable, runtime: RuntimeServices): void {
  table.on(SecretsAddFilterValues, ({ values }) => {
    runtime.secrets.add(values);
    return { ok: true as const };
  });

  // Accepts the client's offer; sessions keep their state in the runtime's store until a
  // client-side session file system is wired in behind this method.
  // Sessions live in the runtime's own store (files or PostgreSQL); saying yes here would let the
  // application believe its file system holds them.
  table.on(SessionFsSetProvider, () => {
    throw new TandemError(
      ErrorCodes.NotAvailable,
      "sessionFs.setProvider is not available in Tandem: sessions are stored by the runtime itself (files under its home, or PostgreSQL with --store); an application-provided session file system is not supported",
    );
  });

  table.on(AgentRegistrySpawn, () => {
    throw new TandemError(ErrorCodes.NotAvailable, "agentRegistry.spawn is not enabled in Tandem: there is no agent registry delegate to start agent processes; start another runtime, or use sub-agents (the task tool)");
  });

  table.on(SessionExtensionsSendAttachmentsToMessage, ({ sessionId }, client) => {
    runtime.sessions.get(sessionId);
    if (client.extensionId === undefined) {
      throw new TandemError(ErrorCodes.InvalidRequest, "session.extensions.sendAttachmentsToMessage is for extensions: this connection is not an extension's", { sessionId });
    }
    throw new TandemError(ErrorCodes.NotAvailable, "session.extensions.sendAttachmentsToMessage is not available in this version of Tandem: extensions cannot attach files to messages yet", { sessionId });
  });

}
