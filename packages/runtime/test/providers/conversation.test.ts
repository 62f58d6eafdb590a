/**
 * Every wire format through the `ModelClient` interface against the fake model server over real
 * HTTP: a tool call, its result fed back, a text answer; streaming and not; usage and ids.
 */
import { describe, expect, it } from "vitest";
import { clientFor, requestBody, runToolConversation, useModelServer, wireFormats } from "./helpers.js";

const startServer = useModelServer();

describe.each(wireFormats)("$name", (format) => {
  it.each([false, true])("runs a tool-using conversation (stream: %s)", async (stream) => {
    const { server, proxy } = await startServer(["provider-tool-turns"]);
    const client = clientFor(format.provider(proxy.url));
    const { first, second, parts } = await runToolConversation(client, format.model, { stream });

    expect(first.toolCalls).toEqual([{ id: "call_weather_1", name: "get_weather", rawArguments: expect.any(String) }]);
    expect(JSON.parse(first.toolCalls[0]!.rawArguments)).toEqual({ city: "Paris" });
    expect(first.text).toBe("Let me check.");
    expect(first.finishReason).toBe("tool-calls");
    expect(first.usage).toMatchObject({ inputTokens: 120, outputTokens: 30, cacheReadTokens: 20 });
    expect(first.providerCallId).toEqual(expect.any(String));
    expect(first.responseId).toEqual(expect.any(String));

    expect(second.text).toBe("It is 72 degrees in Paris.");
    expect(second.toolCalls).toEqual([]);
    expect(second.finishReason).toBe("stop");
    expect(second.usage).toMatchObject({ inputTokens: 180, outputTokens: 12 });

    expect(server.requests.map((request) => request.expectationError)).toEqual([undefined, undefined]);
    expect(requestBody(server, 0).model).toBe(format.model);
    expect(requestBody(server, 0).stream ?? false).toBe(stream);

    const textDeltas = parts.flatMap((part) => (part.type === "text-delta" ? [part.delta] : []));
    const byteCounts = parts.flatMap((part) => (part.type === "bytes" ? [part.totalBytes] : []));
    if (!stream) {
      expect(textDeltas).toEqual([]);
      expect(byteCounts).toEqual([]);
      return;
    }
    expect(textDeltas.join("")).toBe("Let me check.It is 72 degrees in Paris.");
    expect(byteCounts.length).toBeGreaterThan(1);
    expect(byteCounts.every((count) => count > 0)).toBe(true);
  });

  it("sends the tool result back under the tool call id", async () => {
    const { server, proxy } = await startServer(["provider-tool-turns"]);
    await runToolConversation(clientFor(format.provider(proxy.url)), format.model, { stream: true });
    const secondBody = JSON.stringify(requestBody(server, 1));
    expect(secondBody).toContain("call_weather_1");
    expect(secondBody).toContain("72");
    expect(secondBody).toContain("get_weather");
  });
});
