import type { AbleClients } from "../ports/client-asks.js";
import { randomUUID } from "node:crypto";
import type { AgentMode, PermissionRequest, PermissionResult } from "@tandem/protocol";
import type { CompatProfile } from "../compat/profile.js";
import type { Logger } from "../log.js";
import type { ModelToolCall } from "../loop/messages.js";
import type { ContextOptions } from "../ports/tool-context.js";
import { PermissionBroker } from "../permissions/broker.js";
import { couldNotAsk } from "../permissions/decision.js";
import type { SessionApprovals } from "../permissions/session-approvals.js";
import type { PermissionPolicy } from "../permissions/policy.js";
import { planModeDenial } from "../plan/plan-mode.js";
import type { LargeOutputSpill } from "../tools/large-output.js";
import type { PermissionAskOptions, Tool, ToolContext } from "../tools/types.js";
import type { ClientNeed, ClientPort } from "./client-port.js";
import type { EventEmitterPort } from "./emitter.js";
import type { PendingRequests } from "./pending.js";
import { ToolBridge } from "./tool-bridge.js";
import { UserInputBroker } from "./user-input.js";

/** What tool contexts need from their session. */
export interface ToolContextHost {
  readonly sessionId: string;
  readonly emitter: EventEmitterPort;
  readonly pending: PendingRequests;
  readonly protocolVersion: 2 | 3;
  readonly requestPermission: boolean;
  readonly canAskUser: boolean;
  readonly logger: Logger;
  readonly workingDirectory: string;
  readonly mode: AgentMode;
  /** The plan file, the one thing plan mode lets the agent write. */
  readonly planPath: string;
  /** Approve-all and what `approve-for-session` decisions remembered. */
  readonly approvals: SessionApprovals;
  /** The session's approve and deny rules and URL policy. */
  readonly permissionPolicy: Pick<PermissionPolicy, "decide">;
  /** A connected client able to answer `need`. */
  clientFor(need: ClientNeed): ClientPort | undefined;
  /** The profile of the session's client generation: how tools draw their diffs, and whether a round's permission requests go out one at a time in call order. */
  readonly profile: Pick<CompatProfile, "fileDiffs" | "permissionsInCallOrder">;
  /** The attached clients: a request whose client went away is asked again of another (see `ports/client-asks.ts`). */
  readonly clients: AbleClients;
  /** How long such a request waits for another able client to attach. */
  readonly clientReaskMs: number;
}

export type { ContextOptions, PermissionTurn } from "../ports/tool-context.js";

/** Who made a permission decision, as the `permission decided` log line names it. */
type DecidedBy = "client" | "nobody" | "plan-mode" | "hook" | "skill" | "policy" | "approve-all" | "session-approval";

interface Channel {
  permissions: PermissionBroker;
  toolBridge: ToolBridge;
  userInput: UserInputBroker;
}

/**
 * Builds the context each tool call runs with: permission requests (after the plan-mode gate and
 * the auto-approvals skills grant), client tool calls and user input, all emitted on the session's
 * emitter or a sub-agent's scoped one.
 */
export class ToolContexts {
  /** Permission, tool and user-input channels per emitter (the session's, or a sub-agent's scope). */
  private readonly channels = new WeakMap<EventEmitterPort, Channel>();
  /** Tools a skill's `allowed-tools` auto-approved for the rest of the session. */
  private readonly autoApproved = new Set<string>();

  /** @param largeOutputs where the session keeps tool outputs too long for the model, if it has a place. */
  constructor(
    private readonly host: ToolContextHost,
    private readonly largeOutputs?: LargeOutputSpill,
  ) {}

  /** Approves these tools without asking from now on. */
  autoApprove(toolNames: readonly string[]): void {
    for (const name of toolNames) this.autoApproved.add(name);
  }

  /** The context of one call; `preApproved` (a preToolUse hook said allow) skips the request. */
  create(call: ModelToolCall, tool: Tool, signal: AbortSignal, options: ContextOptions = {}): ToolContext {
    const { host } = this;
    const emitter = options.emitter ?? host.emitter;
    const channel = this.channelFor(emitter);
    return {
      sessionId: host.sessionId,
      toolCallId: call.id,
      toolName: tool.name,
      signal,
      workingDirectory: host.workingDirectory,
      emitter,
      requestPermission: (request, askOptions) => {
        // The reference sends MCP permission requests without a toolCallId.
        const full = (request.kind === "mcp" ? { ...request } : { ...request, toolCallId: call.id }) as PermissionRequest;
        const decided = this.decidedWithoutAsking(full, tool, emitter, options, askOptions);
        // 1.0.x asks a round's requests concurrently: each is its own pending request, answered by its id.
        const turn = host.profile.permissionsInCallOrder ? options.permissionTurn : undefined;
        if (!decided) {
          const asked = turn ? turn.ask(() => channel.permissions.request(full, signal)) : channel.permissions.request(full, signal);
          if (!this.host.logger.enabled("info")) return asked;
          return asked.then((result) => this.logged(full, result, result === couldNotAsk ? "nobody" : "client"));
        }
        turn?.pass();
        return Promise.resolve(this.logged(full, decided.result, decided.decidedBy));
      },
      callClientTool: (args) => channel.toolBridge.call(call.id, tool.name, args, signal),
      requestUserInput: (question) => channel.userInput.ask(call.id, question, signal),
      ...(this.largeOutputs ? { largeOutputs: this.largeOutputs } : {}),
      fileDiffs: host.profile.fileDiffs,
    };
  }

  /** Logs a permission decision at `info`: the request's kind, the decision and who made it (never the request's details). */
  private logged(request: PermissionRequest, result: PermissionResult, decidedBy: DecidedBy): PermissionResult {
    const { logger } = this.host;
    if (!logger.enabled("info")) return result;
    const toolCallId = (request as { toolCallId?: unknown }).toolCallId;
    logger.info("permission decided", { kind: request.kind, decision: result.kind, decidedBy, ...(typeof toolCallId === "string" ? { toolCallId } : {}) });
    return result;
  }

  /** The decision when nobody needs to be asked: plan mode's gate, a hook, a skill or a standing approval. */
  private decidedWithoutAsking(
    full: PermissionRequest,
    tool: Tool,
    emitter: EventEmitterPort,
    options: ContextOptions,
    askOptions: PermissionAskOptions = {},
  ): { result: PermissionResult; decidedBy: DecidedBy } | undefined {
    const { host } = this;
    const denial = host.mode === "plan" ? planModeDenial(full, host.planPath) : undefined;
    if (denial) return { result: denial, decidedBy: "plan-mode" };
    const byPolicy = host.permissionPolicy.decide(full);
    if (byPolicy?.kind === "denied-by-rules") return { result: this.decidedByPolicy(full, byPolicy, emitter), decidedBy: "policy" };
    // A hook or a skill approved the call as its arguments named it, not what it met on the way.
    if (!askOptions.newTarget && options.preApproved) return { result: { kind: "approved" }, decidedBy: "hook" };
    if (!askOptions.newTarget && this.autoApproved.has(tool.name)) return { result: { kind: "approved" }, decidedBy: "skill" };
    if (byPolicy) return { result: this.decidedByPolicy(full, { kind: "approved" }, emitter), decidedBy: "policy" };
    const standing = host.approvals.covers(full, askOptions.sessionApprovalsAfter === undefined ? {} : { approvedAfter: askOptions.sessionApprovalsAfter });
    if (!standing) return undefined;
    // Nobody is asked; the completion says who decided (1.0.x `decisionSource`).
    const approved: PermissionResult = { kind: "approved" };
    const decisionSource = standing === "approve-all" ? "host_policy" : "authorization_carry_forward";
    emitter.emit("permission.completed", { requestId: randomUUID(), result: approved, decisionSource, ...(full.toolCallId ? { toolCallId: full.toolCallId } : {}) });
    return { result: approved, decidedBy: standing === "approve-all" ? "approve-all" : "session-approval" };
  }

  /** A decision the session's rules or URL policy made: nobody is asked, the completion says the host's policy decided. */
  private decidedByPolicy(full: PermissionRequest, result: PermissionResult, emitter: EventEmitterPort): PermissionResult {
    emitter.emit("permission.completed", { requestId: randomUUID(), result, decisionSource: "host_policy", ...(full.toolCallId ? { toolCallId: full.toolCallId } : {}) });
    return result;
  }

  private channelFor(emitter: EventEmitterPort): Channel {
    const existing = this.channels.get(emitter);
    if (existing) return existing;
    const { host } = this;
    // The session, seen through another emitter.
    const view = {
      emitter,
      get sessionId() {
        return host.sessionId;
      },
      get pending() {
        return host.pending;
      },
      get protocolVersion() {
        return host.protocolVersion;
      },
      get requestPermission() {
        return host.requestPermission;
      },
      get logger() {
        return host.logger;
      },
      get canAskUser() {
        return host.canAskUser;
      },
      get workingDirectory() {
        return host.workingDirectory;
      },
      clientFor: (need: ClientNeed) => host.clientFor(need),
      get clients() {
        return host.clients;
      },
      get clientReaskMs() {
        return host.clientReaskMs;
      },
    };
    const channel = { permissions: new PermissionBroker(view), toolBridge: new ToolBridge(view), userInput: new UserInputBroker(view) };
    this.channels.set(emitter, channel);
    return channel;
  }
}
