import { randomUUID } from "node:crypto";
import { errorMessage } from "../errors.js";
import type { Logger } from "../log.js";
import type { ClientNeed, ClientPort } from "../session/client-port.js";
import type { EventEmitterPort } from "../session/emitter.js";

/** The hook points of seed 002 §6. */
export type HookType = "preToolUse" | "postToolUse" | "userPromptSubmitted" | "sessionStart" | "sessionEnd" | "errorOccurred";

/** What the runner needs from its session. */
export interface HookHost {
  readonly sessionId: string;
  readonly emitter: EventEmitterPort;
  readonly logger: Logger;
  readonly workingDirectory: string;
  /** Whether the application registered hooks (`hooks: true` in session.create). */
  readonly hooksEnabled: boolean;
  /** A connected client able to answer `need` (here: one that registered hooks). */
  clientFor(need: ClientNeed): ClientPort | undefined;
}

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
  constructor(
    private readonly host: HookHost,
    private readonly timeoutMs: number,
  ) {}

  /** Whether calling a hook could have any effect. */
  get active(): boolean {
    return this.host.hooksEnabled && this.host.clientFor({ kind: "hooks" }) !== undefined;
  }

  /** Runs one hook; resolves with its output object, or undefined when there is none. */
  async run(hookType: HookType, fields: Record<string, unknown>, signal?: AbortSignal): Promise<Record<string, unknown> | undefined> {
    const owner = this.host.clientFor({ kind: "hooks" });
    if (!this.host.hooksEnabled || !owner) return undefined;
    const input = { timestamp: Date.now(), cwd: this.host.workingDirectory, ...fields };
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
      this.host.logger.warn(`session ${this.host.sessionId}: ${message}`);
      emitter.emit("hook.end", { hookInvocationId, hookType, success: false, error: { message } });
      if (!signal?.aborted) emitter.emit("session.warning", { warningType: "hook", message: `The ${hookType} hook failed: ${message}` });
      return undefined;
    }
  }
}
