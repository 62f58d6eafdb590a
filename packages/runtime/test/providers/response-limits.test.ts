import { describe, expect, it } from "vitest";
import { defaultResponseLimits, ResponseMeter, ResponseTooLarge, responseLimitsFromEnv, type ResponseLimits } from "../../src/providers/response-limits.js";

const limits: ResponseLimits = { ...defaultResponseLimits, maxResponseBytes: 1000, maxSseEventBytes: 20 };

/** Pushes `text` split into chunks of `size` bytes; returns the error the meter threw, if any. */
function meterError(text: string, size: number, eventStream = true): unknown {
  const meter = new ResponseMeter(limits, { eventStream });
  const bytes = Buffer.from(text);
  try {
    for (let start = 0; start < bytes.length; start += size) meter.push(bytes.subarray(start, start + size));
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("ResponseMeter", () => {
  it.each([1, 3, 1000])("counts each server-sent event from the blank line that ended the previous one (chunks of %i bytes)", (size) => {
    const small = "data: 0123456789\n\n".repeat(10);
    expect(meterError(small, size)).toBeUndefined();
    expect(meterError(small.replaceAll("\n", "\r\n"), size)).toBeUndefined();
    expect(meterError(small.replaceAll("\n", "\r"), size)).toBeUndefined();
    // Two lines of one event add up; a \r\n is one line end, not a blank line.
    const error = meterError("data: 0123456789\r\ndata: 0123456789\r\n\r\n", size);
    expect(error).toBeInstanceOf(ResponseTooLarge);
    expect((error as ResponseTooLarge).message).toContain("one server-sent event exceeded the limit of 20 bytes (TANDEM_MAX_SSE_EVENT_BYTES)");
    // A line that never ends fails before its end arrives.
    expect(meterError(`data: ${"x".repeat(100)}`, size)).toBeInstanceOf(ResponseTooLarge);
  });

  it("counts the whole body, event stream or not", () => {
    const error = meterError("x".repeat(1001), 100, false);
    expect(error).toMatchObject({ limit: "maxResponseBytes", limitSize: 1000, errorType: "provider", retryable: false });
    expect(meterError("x".repeat(1000), 100, false)).toBeUndefined();
  });

  it("reads its limits from the environment", () => {
    expect(responseLimitsFromEnv({ TANDEM_MAX_SSE_EVENT_BYTES: "4096", TANDEM_MAX_RESPONSE_BYTES: "nope" })).toEqual({ ...defaultResponseLimits, maxSseEventBytes: 4096 });
  });
});
