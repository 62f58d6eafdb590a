import type { PermissionRequest, PermissionResult } from "@tandem/protocol";
import { PendingAbandoned } from "../ports/pending.js";
import type { SessionScopePort } from "../ports/session-scope.js";
import { couldNotAsk, readDecision } from "./decision.js";
import { askAbleClient, NoClientToAsk } from "../ports/client-asks.js";

/**
 * What the broker reads of its session's scope: the `requestPermission` flag of its configuration
 * (the application asked to be consulted), the protocol version, the clients to ask and how long
 * to wait for one that went away to be replaced.
 */
export type PermissionHost = Pick<SessionScopePort, "sessionId" | "emitter" | "pending" | "protocolVersion" | "config" | "clients" | "clientReaskMs" | "logger">;

/**
 * Asks the application for permission before a side effect. Protocol v3: a `permission.requested`
 * event answered by `session.permissions.handlePendingPermissionRequest`; v2: a
 * `permission.request` call. No client, a disconnect, an abort or a failing handler all mean
 * "denied" — no tool runs without a yes.
 *
 * @example
 * const result = await broker.request({ kind: "custom-tool", toolCallId, toolName, toolDescription, args }, signal);
 */
export class PermissionBroker {
  constructor(private readonly host: PermissionHost) {}

  async request(permissionRequest: PermissionRequest, signal: AbortSignal): Promise<PermissionResult> {
    if (this.host.config.requestPermission === false) return couldNotAsk;
    if (this.host.protocolVersion === 2) return this.requestV2(permissionRequest, signal);
    return this.requestV3(permissionRequest, signal);
  }

  private async requestV3(permissionRequest: PermissionRequest, signal: AbortSignal): Promise<PermissionResult> {
    const { emitter, pending } = this.host;
    if (emitter.sinkCount === 0) return couldNotAsk;
    // A `url` request keeps its URL: an approve-for-session answer remembers that URL's origin.
    const subject = permissionRequest.kind === "url" ? permissionRequest.url : undefined;
    const { requestId, promise } = pending.open<PermissionResult>("permission", signal, subject, permissionRequest);
    emitter.emit("permission.requested", { requestId, permissionRequest });
    let result: PermissionResult;
    try {
      result = await promise;
    } catch (error) {
      if (!(error instanceof PendingAbandoned)) throw error;
      result = couldNotAsk;
    }
    const toolCallId = (permissionRequest as { toolCallId?: unknown }).toolCallId;
    emitter.emit("permission.completed", { requestId, result, ...(typeof toolCallId === "string" ? { toolCallId } : {}) });
    return result;
  }

  private async requestV2(permissionRequest: PermissionRequest, signal: AbortSignal): Promise<PermissionResult> {
    try {
      // The client asked may go away before answering (its node died): the next one is asked.
      const response = await askAbleClient(
        this.host.clients,
        { kind: "permission" },
        (owner) => owner.sendRequest<{ result?: unknown }>("permission.request", { sessionId: this.host.sessionId, permissionRequest }, signal),
        { signal, waitMs: this.host.clientReaskMs },
      );
      const decision = readDecision(response?.result);
      if (!decision.valid) this.host.logger.warn(`permission.request answered with an invalid result (${decision.reason}); treating it as denied`);
      return decision.result;
    } catch (error) {
      if (error instanceof NoClientToAsk && !error.afterLoss) return couldNotAsk;
      this.host.logger.warn("permission.request failed; treating it as denied", error);
      return couldNotAsk;
    }
  }
}
