import { randomUUID } from "node:crypto";
import type { PermissionRequest, PermissionResult } from "@tandem/protocol";
import type { ModelToolCall } from "../loop/messages.js";
import type { ContextOptions } from "../ports/tool-context.js";
import type { SessionScopePort } from "../ports/session-scope.js";
import { PermissionBroker, type PermissionHost } from "../permissions/broker.js";
import { couldNotAsk } from "../permissions/decision.js";
import type { SessionPermissions } from "../permissions/session-permissions.js";
import { planModeDenial } from "../plan/plan-mode.js";
import type { LargeOutputSpill } from "../tools/large-output.js";
import type { PermissionAskOptions, Tool, ToolContext } from "../tools/types.js";
import type { EventEmitterPort } from "./emitter.js";
import { ToolBridge, type ToolBridgeHost } from "./tool-bridge.js";
import { UserInputBroker, type UserInputHost } from "./user-input.js";

/** What tool contexts read of their session's scope: who to ask, the mode and the client generation's ways. */
export type ToolContextScope = Pick<
  SessionScopePort,
  "sessionId" | "emitter" | "pending" | "protocolVersion" | "config" | "logger" | "workingDirectory" | "mode" | "profile" | "clients" | "clientReaskMs"
>;

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

  /**
   * @param permissions the session's standing decisions (approvals, rules, skills' approvals).
   * @param planPath the plan file, the one thing plan mode lets the agent write.
   * @param largeOutputs where the session keeps tool outputs too long for the model, if it has a place.
   */
  constructor(
    private readonly scope: ToolContextScope,
    private readonly permissions: SessionPermissions,
    private readonly planPath: () => string,
    private readonly largeOutputs?: LargeOutputSpill,
  ) {}

  /** The context of one call; `preApproved` (a preToolUse hook said allow) skips the request. */
  create(call: ModelToolCall, tool: Tool, signal: AbortSignal, options: ContextOptions = {}): ToolContext {
    const { scope } = this;
    const emitter = options.emitter ?? scope.emitter;
    const channel = this.channelFor(emitter);
    return {
      sessionId: scope.sessionId,
      toolCallId: call.id,
      toolName: tool.name,
      signal,
      workingDirectory: scope.workingDirectory,
      emitter,
      requestPermission: (request, askOptions) => {
        // The reference sends MCP permission requests without a toolCallId.
        const full = (request.kind === "mcp" ? { ...request } : { ...request, toolCallId: call.id }) as PermissionRequest;
        const decided = this.decidedWithoutAsking(full, tool, emitter, options, askOptions);
        // 1.0.x asks a round's requests concurrently: each is its own pending request, answered by its id.
        const turn = scope.profile.permissionsInCallOrder ? options.permissionTurn : undefined;
        if (!decided) {
          const asked = turn ? turn.ask(() => channel.permissions.request(full, signal)) : channel.permissions.request(full, signal);
          if (!scope.logger.enabled("info")) return asked;
          return asked.then((result) => this.logged(full, result, result === couldNotAsk ? "nobody" : "client"));
        }
        turn?.pass();
        return Promise.resolve(this.logged(full, decided.result, decided.decidedBy));
      },
      callClientTool: (args) => channel.toolBridge.call(call.id, tool.name, args, signal),
      requestUserInput: (question) => channel.userInput.ask(call.id, question, signal),
      ...(this.largeOutputs ? { largeOutputs: this.largeOutputs } : {}),
      fileDiffs: scope.profile.fileDiffs,
    };
  }

  /** Logs a permission decision at `info`: the request's kind, the decision and who made it (never the request's details). */
  private logged(request: PermissionRequest, result: PermissionResult, decidedBy: DecidedBy): PermissionResult {
    const { logger } = this.scope;
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
    const { scope, permissions } = this;
    const denial = scope.mode === "plan" ? planModeDenial(full, this.planPath()) : undefined;
    if (denial) return { result: denial, decidedBy: "plan-mode" };
    const byPolicy = permissions.policy.decide(full);
    if (byPolicy?.kind === "denied-by-rules") return { result: this.decidedByPolicy(full, byPolicy, emitter), decidedBy: "policy" };
    // A hook or a skill approved the call as its arguments named it, not what it met on the way.
    if (!askOptions.newTarget && options.preApproved) return { result: { kind: "approved" }, decidedBy: "hook" };
    if (!askOptions.newTarget && permissions.approvedBySkill(tool.name)) return { result: { kind: "approved" }, decidedBy: "skill" };
    if (byPolicy) return { result: this.decidedByPolicy(full, { kind: "approved" }, emitter), decidedBy: "policy" };
    const standing = permissions.approvals.covers(full, askOptions.sessionApprovalsAfter === undefined ? {} : { approvedAfter: askOptions.sessionApprovalsAfter });
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
    const view = seenThrough(this.scope, emitter);
    const channel = { permissions: new PermissionBroker(view), toolBridge: new ToolBridge(view), userInput: new UserInputBroker(view) };
    this.channels.set(emitter, channel);
    return channel;
  }
}

/** The scope, with another emitter (a sub-agent's): the rest is read from the scope at each use. */
function seenThrough(scope: ToolContextScope, emitter: EventEmitterPort): PermissionHost & UserInputHost & ToolBridgeHost {
  return {
    emitter,
    get sessionId() {
      return scope.sessionId;
    },
    get pending() {
      return scope.pending;
    },
    get protocolVersion() {
      return scope.protocolVersion;
    },
    get config() {
      return scope.config;
    },
    get logger() {
      return scope.logger;
    },
    get workingDirectory() {
      return scope.workingDirectory;
    },
    get clients() {
      return scope.clients;
    },
    get clientReaskMs() {
      return scope.clientReaskMs;
    },
  };
}
