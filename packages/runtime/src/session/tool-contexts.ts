import type { AbleClients } from "./client-asks.js";
import { randomUUID } from "node:crypto";
import type { AgentMode, PermissionRequest, PermissionResult } from "@tandem/protocol";
import type { Logger } from "../log.js";
import type { ModelToolCall } from "../loop/messages.js";
import { PermissionBroker } from "../permissions/broker.js";
import type { SessionApprovals } from "../permissions/session-approvals.js";
import { planModeDenial } from "../plan/plan-mode.js";
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
  /** A connected client able to answer `need`. */
  clientFor(need: ClientNeed): ClientPort | undefined;
  /** The attached clients: a request whose client went away is asked again of another (see `client-asks.ts`). */
  readonly clients: AbleClients;
  /** How long such a request waits for another able client to attach. */
  readonly clientReaskMs: number;
}

/** How one call's context is made. */
export interface ContextOptions {
  /** A preToolUse hook said allow: no permission request. */
  preApproved?: boolean;
  /** The emitter of a sub-agent's scope (default: the session's). */
  emitter?: EventEmitterPort;
  /** The call's place in its round's permission order (see `PermissionTurns`). */
  permissionTurn?: PermissionTurn;
}

/** One call's place in the permission order of its round of tool calls. */
export interface PermissionTurn {
  /** Sends `request` once the earlier calls of the round are past theirs. */
  ask<T>(request: () => Promise<T>): Promise<T>;
  /** The call was answered without asking anyone: later calls need not wait for it. */
  pass(): void;
}

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

  constructor(private readonly host: ToolContextHost) {}

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
        const turn = options.permissionTurn;
        if (!decided) return turn ? turn.ask(() => channel.permissions.request(full, signal)) : channel.permissions.request(full, signal);
        turn?.pass();
        return Promise.resolve(decided);
      },
      callClientTool: (args) => channel.toolBridge.call(call.id, tool.name, args, signal),
      requestUserInput: (question) => channel.userInput.ask(call.id, question, signal),
    };
  }

  /** The decision when nobody needs to be asked: plan mode's gate, a hook, a skill or a standing approval. */
  private decidedWithoutAsking(
    full: PermissionRequest,
    tool: Tool,
    emitter: EventEmitterPort,
    options: ContextOptions,
    askOptions: PermissionAskOptions = {},
  ): PermissionResult | undefined {
    const { host } = this;
    const denial = host.mode === "plan" ? planModeDenial(full, host.planPath) : undefined;
    if (denial) return denial;
    // A hook or a skill approved the call as its arguments named it, not what it met on the way.
    if (!askOptions.newTarget && (options.preApproved || this.autoApproved.has(tool.name))) return { kind: "approved" };
    const standing = host.approvals.covers(full, askOptions.sessionApprovalsAfter === undefined ? {} : { approvedAfter: askOptions.sessionApprovalsAfter });
    if (!standing) return undefined;
    // Nobody is asked; the completion says who decided (1.0.x `decisionSource`).
    const approved: PermissionResult = { kind: "approved" };
    const decisionSource = standing === "approve-all" ? "host_policy" : "authorization_carry_forward";
    emitter.emit("permission.completed", { requestId: randomUUID(), result: approved, decisionSource, ...(full.toolCallId ? { toolCallId: full.toolCallId } : {}) });
    return approved;
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
