import { randomUUID } from "node:crypto";
import type { ProviderError } from "../providers/errors.js";
import type { SessionScopePort } from "../ports/session-scope.js";
import { PendingAbandoned } from "./pending.js";

/** The model a rate-limited session switches to when the user agrees: the provider picks one. */
export const autoModel = "auto";

/** The answers a client gives (1.0.x `AutoModeSwitchResponse`). */
export type AutoModeSwitchResponse = "yes" | "yes_always" | "no";

/** What the switch reads of its session's scope: the current model, who to ask and where the offer is announced. */
export type AutoModeSwitchHost = Pick<SessionScopePort, "sessionId" | "model" | "emitter" | "pending" | "logger" | "clients">;

/**
 * Offers the user the `auto` model when the provider rate-limits the session's model for the user
 * (an error code ending in `rate_limited`, e.g. `user_weekly_rate_limited`): `auto_mode_switch.requested`,
 * answered by a client that registered `onAutoModeSwitchRequest` (asked through
 * `autoModeSwitch.request`) or by `session.ui.handlePendingAutoModeSwitch`, then
 * `auto_mode_switch.completed`. A yes switches the model (`session.model_change` with
 * `cause: "rate_limit_auto_switch"`) and the call is made again. Clients that answer in their own
 * process register a direct handler (`session.ui.registerDirectAutoModeSwitchHandler`); while one
 * is registered, no client is asked and the answer comes by request id. Nobody to ask, or an
 * abort: no switch.
 *
 * @example
 * if (await autoModeSwitch.offer(error, signal)) response = await callModel();
 */
export class AutoModeSwitch {
  private readonly directHandlers = new Set<string>();
  /** The user answered `yes_always`: later rate limits switch without asking. */
  private always = false;

  /** @param switchModel switches the session to another model (and announces it) when the user agreed. */
  constructor(
    private readonly host: AutoModeSwitchHost,
    private readonly switchModel: (modelId: string, reasoningEffort: undefined, options: { cause: string }) => void,
  ) {}

  /** Registers an in-process handler; the handle undoes it. */
  registerDirectHandler(): string {
    const handle = randomUUID();
    this.directHandlers.add(handle);
    return handle;
  }

  /** Undoes a registration; false for a handle that is not active. */
  unregisterDirectHandler(handle: string): boolean {
    return this.directHandlers.delete(handle);
  }

  /** Answers a waiting offer by its request id; false when none waits under it. */
  answer(requestId: string, response: AutoModeSwitchResponse): boolean {
    return this.host.pending.settle(requestId, "autoModeSwitch", response);
  }

  /** Whether `error` is a rate limit the `auto` model gets around. */
  applies(error: ProviderError): boolean {
    return error.errorType === "rate_limit" && /rate_limited$/.test(error.providerCode ?? "") && this.host.model !== autoModel;
  }

  /** Offers the switch for `error`; true when the model was switched (make the call again). */
  async offer(error: ProviderError, signal: AbortSignal): Promise<boolean> {
    if (!this.applies(error)) return false;
    if (this.always) return this.switch();
    const client = this.directHandlers.size > 0 ? undefined : this.host.clients.clientFor({ kind: "autoModeSwitch" });
    if (!client && this.directHandlers.size === 0) return false;
    const { emitter, pending, sessionId } = this.host;
    const retryAfterSeconds = error.retryAfterMs === undefined ? undefined : Math.round(error.retryAfterMs / 1000);
    const details = { errorCode: error.providerCode, ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}) };
    const { requestId, promise } = pending.open<AutoModeSwitchResponse>("autoModeSwitch", signal);
    emitter.emit("auto_mode_switch.requested", { requestId, ...details });
    if (client) {
      client.sendRequest<{ response?: unknown }>("autoModeSwitch.request", { sessionId, ...details }, signal).then(
        (answer) => pending.settle(requestId, "autoModeSwitch", readResponse(answer?.response)),
        (failure: unknown) => {
          this.host.logger.warn("autoModeSwitch.request failed; not switching", failure);
          pending.settle(requestId, "autoModeSwitch", "no");
        },
      );
    }
    let response: AutoModeSwitchResponse = "no";
    try {
      response = await promise;
    } catch (failure) {
      if (!(failure instanceof PendingAbandoned)) throw failure;
    }
    emitter.emit("auto_mode_switch.completed", { requestId, response });
    if (response === "no" || signal.aborted) return false;
    if (response === "yes_always") this.always = true;
    return this.switch();
  }

  private switch(): boolean {
    this.switchModel(autoModel, undefined, { cause: "rate_limit_auto_switch" });
    return true;
  }
}

function readResponse(value: unknown): AutoModeSwitchResponse {
  return value === "yes" || value === "yes_always" ? value : "no";
}
