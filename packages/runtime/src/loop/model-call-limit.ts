/**
 * How many model calls (rounds of the agent loop) one user message may take. A model that keeps
 * asking for tools would otherwise call the provider forever (thousands of calls a minute against a
 * fast server). The 1.0.x protocol names no such limit, so it is Tandem's own: the runtime flag
 * `--max-model-calls-per-turn <n>`, else `TANDEM_MAX_MODEL_CALLS_PER_TURN`, else the default.
 *
 * This module imports nothing: the runtime's entry reads the variable at start-up.
 */

/**
 * The default limit: well past what real work takes in one turn (long coding tasks make tens of
 * calls, a long tool loop a few hundred: reading 200 files one at a time is 201 calls), low enough
 * to stop a runaway loop within minutes (against a fast model server one went through ~80 calls a
 * second).
 */
export const defaultMaxModelCallsPerTurn = 1000;

/** The environment variable that sets the limit when the flag does not. */
export const maxModelCallsPerTurnVariable = "TANDEM_MAX_MODEL_CALLS_PER_TURN";

/** Whether `value` is a usable limit: a whole number of calls, at least 1. */
export function isModelCallLimit(value: number): boolean {
  return Number.isSafeInteger(value) && value >= 1;
}

/**
 * The limit `TANDEM_MAX_MODEL_CALLS_PER_TURN` sets (a whole number, at least 1), else the default.
 * A value that is not a usable limit is an error naming the variable.
 *
 * @example
 * maxModelCallsPerTurnFromEnv({ TANDEM_MAX_MODEL_CALLS_PER_TURN: "50" }); // 50
 * maxModelCallsPerTurnFromEnv({}); // 1000
 */
export function maxModelCallsPerTurnFromEnv(env: NodeJS.ProcessEnv): number {
  const raw = env[maxModelCallsPerTurnVariable]?.trim();
  if (raw === undefined || raw === "") return defaultMaxModelCallsPerTurn;
  const value = Number(raw);
  if (!isModelCallLimit(value)) throw new Error(`${maxModelCallsPerTurnVariable} must be a whole number of model calls (at least 1), got ${JSON.stringify(raw)}`);
  return value;
}

/**
 * A turn made as many model calls as the limit allows and was stopped before the next one. The
 * session reports it as `session.error` with `errorType: "model_call_limit"`; the session stays
 * usable (the next message starts a new count).
 *
 * @example
 * new ModelCallLimitReached(1000).message; // "This turn reached the limit of 1000 model calls …"
 */
export class ModelCallLimitReached extends Error {
  /** The `errorType` of the `session.error` that reports it. */
  readonly errorType = "model_call_limit";

  constructor(readonly limit: number) {
    super(
      `This turn reached the limit of ${limit} model calls per message and was stopped before calling the model again. ` +
        `Send another message to continue, or raise the limit with the runtime flag --max-model-calls-per-turn or ${maxModelCallsPerTurnVariable}.`,
    );
    this.name = "ModelCallLimitReached";
  }
}
