import { describe, expect, it } from "vitest";
import { parseArgs } from "../../src/args.js";
import { defaultMaxModelCallsPerTurn, maxModelCallsPerTurnFromEnv, ModelCallLimitReached } from "../../src/loop/model-call-limit.js";

describe("the model-call limit per user message", () => {
  it("is 1000 unless TANDEM_MAX_MODEL_CALLS_PER_TURN says otherwise", () => {
    expect(defaultMaxModelCallsPerTurn).toBe(1000);
    expect(maxModelCallsPerTurnFromEnv({})).toBe(1000);
    expect(maxModelCallsPerTurnFromEnv({ TANDEM_MAX_MODEL_CALLS_PER_TURN: "" })).toBe(1000);
    expect(maxModelCallsPerTurnFromEnv({ TANDEM_MAX_MODEL_CALLS_PER_TURN: " 7 " })).toBe(7);
  });

  it("refuses values that are not a whole number of calls, naming the variable", () => {
    for (const raw of ["0", "-1", "2.5", "lots", "1e400"]) {
      expect(() => maxModelCallsPerTurnFromEnv({ TANDEM_MAX_MODEL_CALLS_PER_TURN: raw })).toThrow(`TANDEM_MAX_MODEL_CALLS_PER_TURN must be a whole number of model calls (at least 1), got ${JSON.stringify(raw)}`);
    }
  });

  it("--max-model-calls-per-turn takes a whole number of calls, at least 1", () => {
    expect(parseArgs(["--max-model-calls-per-turn", "12"]).maxModelCallsPerTurn).toBe(12);
    expect(parseArgs([]).maxModelCallsPerTurn).toBeUndefined();
    expect(() => parseArgs(["--max-model-calls-per-turn", "0"])).toThrow("--max-model-calls-per-turn needs a whole number of model calls (at least 1)");
    expect(() => parseArgs(["--max-model-calls-per-turn"])).toThrow("--max-model-calls-per-turn needs a whole number of model calls (at least 1)");
  });

  it("says which limit was hit and how to raise it", () => {
    const error = new ModelCallLimitReached(1000);
    expect(error.errorType).toBe("model_call_limit");
    expect(error.message).toContain("limit of 1000 model calls");
    expect(error.message).toContain("--max-model-calls-per-turn");
    expect(error.message).toContain("TANDEM_MAX_MODEL_CALLS_PER_TURN");
  });
});
