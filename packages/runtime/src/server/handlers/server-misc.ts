import { AgentRegistrySpawn, SecretsAddFilterValues, SessionExtensionsSendAttachmentsToMessage } from "@tandem/protocol/methods/server-misc";
import { ErrorCodes } from "@tandem/protocol/errors";
import { TandemError } from "../../errors.js";
import type { RuntimeServices } from "../runtime-services.js";
import type { MethodTable } from "../method-table.js";

/**
 * Server-scoped methods of several small areas: secret filtering, the agent registry, extensions' attachments and delegated model responses.
 */
export function registerServerMiscMethods(table: MethodTable, runtime: RuntimeServices): void {
  table.on(SecretsAddFilterValues, ({ values }) => {
    runtime.secrets.add(values);
    return { ok: true as const };
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
