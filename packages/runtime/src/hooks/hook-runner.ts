import { randomUUID } from "node:crypto";
import { errorMessage } from "../errors.js";
import type { ClientPort } from "../ports/clients.js";
import type { SessionScopePort } from "../ports/session-scope.js";

/**
 * The hook points: around tool calls, around a user's prompt (as sent, and as the model will see
 * it), at session start and end, on errors, and when the agent is about to stop.
 */
export type HookType = "preToolUse" | "postToolUse" | "userPromptSubmitted" | "userPromptTransformed" | "sessionStart" | "sessionEnd" | "errorOccurred" | "agentStop" | "preMcpToolCall";

/**
 * What the runner reads of its session's scope: the `hooks` flag of its configuration (the
 * application registered hooks), the clients whose hooks run, and where hook events go.
 */
export type HookHost = Pick<SessionScopePort, "sessionId" | "emitter" | "logger" | "workingDirectory" | "config" | "clients">;

/** How long a hook may take before it is given up on. */
export function hookTimeoutFromEnv(env: NodeJS.ProcessEnv): number {
  const value = Number(env.TANDEM_HOOK_TIMEOUT_MS);
  return Number.isFinite(value) && value > 0 ? value : 30_000;
}

/**
 * Calls the application's hooks (`hooks.invoke` on the most recent client that registered hooks) with `hook.start` /
 * `hook.end` events around each call. A hook that throws, answers garbage or times out is reported
 * (`hook.end` with `success: false` and a `session.warning`) and treated as "no opinion" — it never
 * wedges the session.
 *
 * @example
 * const output = await hooks.run("preToolUse", { toolName, toolArgs });
 */
export class HookRunner {
  /**
   * @param inputSessionId The `sessionId` hook inputs carry: the session's own, or a sub-agent's
   *   (see {@link forSubAgent}) so a hook can tell the agent whose tool call it sees.
   */
  constructor(
    private readonly host: HookHost,
    private readonly timeoutMs: number,
    private readonly inputSessionId: string = host.sessionId,
  ) {}

  /** The same hooks, with inputs that name the sub-agent `agentId` as their `sessionId`. */
  forSubAgent(agentId: string): HookRunner {
    return new HookRunner(this.host, this.timeoutMs, agentId);
  }

  /** Whether the application registered hooks (`hooks: true` in session.create). */
  private get enabled(): boolean {
    return this.host.config.hooks === true;
  }

  /** Whether calling a hook could have any effect. */
  get active(): boolean {
    return this.enabled && this.host.clients.clientFor({ kind: "hooks" }) !== undefined;
  }

  /**
   * Runs one hook in every client that registered hooks (the application's, then each
   * extension's) and merges their outputs (see {@link mergeHookOutputs}); undefined when there is none.
   */
  async run(hookType: HookType, fields: Record<string, unknown>, signal?: AbortSignal): Promise<Record<string, unknown> | undefined> {
    if (!this.enabled) return undefined;
    const owners = this.host.clients.hookClients();
    let merged: Record<string, unknown> | undefined;
    for (const owner of owners) merged = mergeHookOutputs(merged, await this.runIn(owner, hookType, fields, signal));
    return merged;
  }

  private async runIn(owner: ClientPort, hookType: HookType, fields: Record<string, unknown>, signal?: AbortSignal): Promise<Record<string, unknown> | undefined> {
    const input = { sessionId: this.inputSessionId, timestamp: Date.now(), cwd: this.host.workingDirectory, ...fields };
    const hookInvocationId = randomUUID();
    const { emitter } = this.host;
    emitter.emit("hook.start", { hookInvocationId, hookType, input });
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    try {
      const response = await owner.sendRequest<{ output?: unknown } | null>(
        "hooks.invoke",
        { sessionId: this.host.sessionId, hookType, input },
        combined,
      );
      const output = response?.output;
      const outputObject = output && typeof output === "object" && !Array.isArray(output) ? (output as Record<string, unknown>) : undefined;
      emitter.emit("hook.end", { hookInvocationId, hookType, success: true, ...(outputObject ? { output: outputObject } : {}) });
      return outputObject;
    } catch (error) {
      const message = timeout.aborted ? `hook ${hookType} timed out after ${this.timeoutMs} ms` : errorMessage(error);
      this.host.logger.warn(message);
      emitter.emit("hook.end", { hookInvocationId, hookType, success: false, error: { message } });
      if (!signal?.aborted) emitter.emit("session.warning", { warningType: "hook", message: `The ${hookType} hook failed: ${message}` });
      return undefined;
    }
  }
}

const decisionStrength: Record<string, number> = { allow: 1, ask: 2, deny: 3 };

/**
 * Two hooks' outputs as one: later fields win, except that the stricter `permissionDecision`
 * (deny > ask > allow) wins with its reason, and `additionalContext` texts are joined.
 */
export function mergeHookOutputs(first: Record<string, unknown> | undefined, second: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!first) return second;
  if (!second) return first;
  const merged: Record<string, unknown> = { ...first, ...second };
  const strength = (output: Record<string, unknown>) => decisionStrength[String(output.permissionDecision)] ?? 0;
  if (strength(first) > strength(second)) {
    merged.permissionDecision = first.permissionDecision;
    merged.permissionDecisionReason = first.permissionDecisionReason;
  }
  const contexts = [first.additionalContext, second.additionalContext].filter((text): text is string => typeof text === "string" && text.length > 0);
  if (contexts.length > 0) merged.additionalContext = contexts.join("\n\n");
  return merged;
}
