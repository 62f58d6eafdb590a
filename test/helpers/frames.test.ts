/** The test helpers' frame decoder: frames split anywhere, several frames in one chunk, big frames. */
import { describe, expect, it } from "vitest";
import { FrameDecoder, frame, type WireMessage } from "./frames.js";

function decodeInChunks(bytes: Buffer, chunkSize: number): WireMessage[] {
  const decoder = new FrameDecoder();
  const messages: WireMessage[] = [];
  for (let index = 0; index < bytes.length; index += chunkSize) messages.push(...decoder.push(bytes.subarray(index, index + chunkSize)));
  return messages;
}

describe("FrameDecoder", () => {
  const messages: WireMessage[] = [
    { jsonrpc: "2.0", id: 1, result: { text: "café ✓ 𝄞" } },
    { jsonrpc: "2.0", method: "session.event", params: { n: 2 } },
    { jsonrpc: "2.0", id: "three", error: { code: -32600, message: "bad" } },
  ];
  const bytes = Buffer.from(messages.map((message) => frame(JSON.stringify(message))).join(""));

  it.each([1, 2, 3, 7, 64, bytes.length])("decodes frames split into chunks of %i bytes, multi-byte characters included", (chunkSize) => {
    expect(decodeInChunks(bytes, chunkSize)).toEqual(messages);
  });

  it("decodes a 50 MB frame arriving in 64 KiB chunks, and the frame after it", () => {
    const big = { jsonrpc: "2.0", id: 4, result: "x".repeat(50_000_000) };
    const wire = Buffer.from(frame(JSON.stringify(big)) + frame(JSON.stringify(messages[0])));
    const decoded = decodeInChunks(wire, 64 * 1024);
    expect(decoded).toHaveLength(2);
    expect((decoded[0]?.result as string).length).toBe(50_000_000);
    expect(decoded[1]).toEqual(messages[0]);
  });

  it("refuses a header without a Content-Length", () => {
    expect(() => new FrameDecoder().push(Buffer.from("Content-Type: x\r\n\r\n{}"))).toThrow(/without a Content-Length/);
  });
});
