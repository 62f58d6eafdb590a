import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import type { Message } from "vscode-jsonrpc";
import { nestsDeeperThan, shallowCopy } from "../../src/server/json-depth.js";
import { FramedMessageReader, maxMessageBytesFromEnv, type RejectedMessage } from "../../src/server/message-reader.js";

/** A reader on a real stream, with everything it reports collected. */
function open(limits: { maxMessageBytes?: number; maxParamsDepth?: number } = {}) {
  const stream = new PassThrough();
  const reader = new FramedMessageReader(stream, limits);
  const messages: Array<Record<string, unknown>> = [];
  const rejected: RejectedMessage[] = [];
  const broken: string[] = [];
  let closed = 0;
  reader.onRejected((each) => rejected.push(each));
  reader.onBrokenFraming((reason) => broken.push(reason));
  reader.onClose(() => closed++);
  reader.listen((message: Message) => messages.push(message as unknown as Record<string, unknown>));
  return { stream, reader, messages, rejected, broken, closes: () => closed };
}

const frame = (body: string, header = `Content-Length: ${Buffer.byteLength(body)}`) => `${header}\r\n\r\n${body}`;
const ping = (id: number) => JSON.stringify({ jsonrpc: "2.0", id, method: "ping", params: { message: `p${id}` } });

describe("FramedMessageReader framing", () => {
  it("reads frames split into single bytes, and several frames in one chunk", () => {
    const { stream, messages } = open();
    const bytes = Buffer.from(frame(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { message: "héllo ✓ 🎉" } })));
    for (const byte of bytes) stream.write(Buffer.from([byte]));
    stream.write(frame(ping(2)) + frame(ping(3)) + frame(ping(4)).slice(0, 10));
    stream.write(frame(ping(4)).slice(10));
    expect(messages.map((message) => message.id)).toEqual([1, 2, 3, 4]);
    expect((messages[0]?.params as { message: string }).message).toBe("héllo ✓ 🎉");
  });

  it("accepts a UTF-8 Content-Type and ignores other headers", () => {
    const { stream, messages, broken } = open();
    stream.write(frame(ping(1), `Content-Length: ${ping(1).length}\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\nX-Trace: a`));
    stream.write(frame(ping(2), `content-type: application/json; charset="UTF8"\r\ncontent-length: ${ping(2).length}`));
    expect(messages).toHaveLength(2);
    expect(broken).toEqual([]);
  });

  it("refuses a body in another charset with a parse error and keeps reading", () => {
    const { stream, messages, rejected } = open();
    stream.write(frame(ping(1), `Content-Length: ${ping(1).length}\r\nContent-Type: application/json; charset=latin1`));
    stream.write(frame(ping(2)));
    expect(rejected).toEqual([{ reason: expect.stringContaining("latin1"), reply: { id: null, code: -32700, message: expect.stringContaining("UTF-8") } }]);
    expect(messages.map((message) => message.id)).toEqual([2]);
  });

  it.each([
    ["no Content-Length", "Content-Type: application/json\r\n\r\n{}", "no Content-Length header"],
    ["a non-numeric length", "Content-Length: twelve\r\n\r\n{}", "must be a non-negative integer"],
    ["a negative length", "Content-Length: -5\r\n\r\n{}", "must be a non-negative integer"],
    ["a length of 0", "Content-Length: 0\r\n\r\n", "cannot be empty"],
    ["two lengths", "Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}", "more than one Content-Length"],
    ["a header line without a colon", "Content-Length: 2\r\nhello\r\n\r\n{}", "malformed header line"],
    ["a length too small for its body", `${frame(ping(1), "Content-Length: 10")}${frame(ping(2))}`, "malformed header line"],
    ["a length over the maximum", "Content-Length: 1048577\r\n\r\n{", "over the limit of 1048576 bytes"],
  ])("closes the connection on %s, dropping what it holds", (_, bytes, reason) => {
    const { stream, messages, broken, closes } = open({ maxMessageBytes: 1024 * 1024 });
    stream.write(bytes);
    stream.write(frame(ping(9)));
    expect(broken).toEqual([expect.stringContaining(reason)]);
    expect(stream.destroyed).toBe(true);
    expect(closes()).toBe(1);
    expect(messages).toEqual([]);
  });

  it("closes the connection when no header ends within 8 KiB", () => {
    const { stream, broken } = open();
    for (let index = 0; index < 9; index++) stream.write("x".repeat(1024));
    expect(broken).toEqual([expect.stringContaining("no end of header within 8192 bytes")]);
    expect(stream.destroyed).toBe(true);
  });

  it("refuses an oversized frame from its header, before any of the body arrives", () => {
    const { stream, broken } = open({ maxMessageBytes: 4096 });
    stream.write("Content-Length: 419430400\r\n\r\n");
    expect(broken).toEqual([expect.stringContaining("Content-Length 419430400 is over the limit of 4096 bytes")]);
    expect(stream.destroyed).toBe(true);
  });

  it("reads a frame of exactly the maximum size", () => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { message: "x".repeat(5000) } });
    const { stream, messages, broken } = open({ maxMessageBytes: Buffer.byteLength(body) });
    stream.write(frame(body));
    expect(broken).toEqual([]);
    expect(messages).toHaveLength(1);
  });

  it("answers a body that is not JSON with a parse error (id null) and keeps reading", () => {
    const { stream, messages, rejected, broken } = open();
    stream.write(frame("{ not json"));
    stream.write(frame(ping(2)));
    expect(rejected).toEqual([{ reason: expect.stringContaining("Parse error"), reply: { id: null, code: -32700, message: expect.stringContaining("Parse error") } }]);
    expect(broken).toEqual([]);
    expect(messages).toHaveLength(1);
  });

  it("closes once when the stream ends", () => {
    const { stream, closes } = open();
    stream.end(frame(ping(1)).slice(0, 20));
    stream.resume();
    return new Promise<void>((resolve) =>
      stream.on("close", () => {
        expect(closes()).toBe(1);
        resolve();
      }),
    );
  });
});

describe("FramedMessageReader JSON-RPC checks", () => {
  it.each([
    ["an empty batch", "[]", null, "an empty batch"],
    ["a batch", `[${ping(1)}]`, null, "batches are not supported"],
    ["a number", "42", null, "must be a JSON object"],
    ["a string", '"ping"', null, "must be a JSON object"],
    ["null", "null", null, "must be a JSON object"],
    ["a non-string method", '{"jsonrpc":"2.0","id":7,"method":5}', 7, '"method" must be a string'],
    ["a non-string method without id", '{"jsonrpc":"2.0","method":["x"]}', null, '"method" must be a string'],
    ["an object id", '{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', null, '"id" must be a string or a number'],
    ["a boolean id", '{"jsonrpc":"2.0","id":true,"method":"ping"}', null, '"id" must be a string or a number'],
    ["a null id", '{"jsonrpc":"2.0","id":null,"method":"ping"}', null, "null ids are not supported"],
    ["a wrong jsonrpc version", '{"jsonrpc":"1.0","id":"a","method":"ping"}', "a", '"jsonrpc" must be "2.0"'],
    ["scalar params", '{"jsonrpc":"2.0","id":3,"method":"ping","params":"x"}', 3, '"params" must be an object or an array'],
    ["neither a request nor a response", '{"jsonrpc":"2.0","id":4}', 4, 'needs a "method"'],
  ])("answers %s with -32600", (_, body, id, text) => {
    const { stream, messages, rejected } = open();
    stream.write(frame(body));
    expect(messages).toEqual([]);
    expect(rejected).toEqual([{ reason: expect.any(String), reply: { id, code: -32600, message: expect.stringContaining(text) } }]);
  });

  it("drops malformed notifications and responses without answering them", () => {
    const { stream, messages, rejected } = open();
    stream.write(frame('{"jsonrpc":"2.0","method":"note","params":5}'));
    stream.write(frame('{"jsonrpc":"2.0","id":{"x":1},"result":1}'));
    stream.write(frame('{"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":"m"}}'));
    stream.write(frame('{"jsonrpc":"2.0","id":1,"error":"bad"}'));
    expect(messages).toEqual([]);
    expect(rejected.map((each) => each.reply)).toEqual([undefined, undefined, undefined, undefined]);
    expect(rejected).toHaveLength(4);
  });

  it("hands on valid requests, notifications and responses", () => {
    const { stream, messages, rejected } = open();
    stream.write(frame(ping(1)));
    stream.write(frame('{"jsonrpc":"2.0","id":"s","method":"status.get"}'));
    stream.write(frame('{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}'));
    stream.write(frame('{"jsonrpc":"2.0","id":1,"result":null}'));
    stream.write(frame('{"jsonrpc":"2.0","id":2,"error":{"code":-1,"message":"no"}}'));
    expect(rejected).toEqual([]);
    expect(messages).toHaveLength(5);
  });
});

describe("FramedMessageReader nesting bound", () => {
  const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth);

  it("answers a request whose params nest deeper than the limit with -32602 naming it", () => {
    const { stream, messages, rejected } = open({ maxParamsDepth: 10 });
    stream.write(frame(`{"jsonrpc":"2.0","id":5,"method":"session.send","params":{"a":${nested(9)}}}`));
    expect(messages).toHaveLength(1);
    stream.write(frame(`{"jsonrpc":"2.0","id":6,"method":"session.send","params":{"a":${nested(10)}}}`));
    expect(messages).toHaveLength(1);
    expect(rejected).toEqual([{ reason: expect.any(String), reply: { id: 6, code: -32602, message: expect.stringContaining("deeper than 10 levels") } }]);
  });

  it("handles 10k and 1M levels cheaply", () => {
    const { stream, rejected } = open();
    stream.write(frame(`{"jsonrpc":"2.0","id":"deep","method":"x","params":{"a":${nested(10_000)}}}`));
    stream.write(frame(`{"jsonrpc":"2.0","id":"deeper","method":"x","params":${nested(1_000_000)}}`));
    expect(rejected.map((each) => each.reply?.id)).toEqual(["deep", "deeper"]);
    expect(rejected.map((each) => each.reply?.code)).toEqual([-32602, -32602]);
  });

  it("does not count brackets inside strings, escaped quotes included", () => {
    const { stream, messages, rejected } = open({ maxParamsDepth: 3 });
    // Short strings (scanned byte by byte) and long ones (searched natively), with escapes.
    const strings = [`a " [[[[ {{{{ \\" ${"[".repeat(100)} é`, `${"x".repeat(200)}\\"[[[[\\\\`, "\\", '"'];
    stream.write(frame(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "x", params: { a: { b: strings } } })));
    expect(rejected).toEqual([]);
    expect(messages).toHaveLength(1);
  });

  it("turns a too-deep response into an error response and drops a too-deep notification", () => {
    const { stream, messages, rejected } = open({ maxParamsDepth: 5 });
    stream.write(frame(`{"jsonrpc":"2.0","id":12,"result":{"a":${nested(50)}}}`));
    stream.write(frame(`{"jsonrpc":"2.0","method":"note","params":${nested(50)}}`));
    expect(messages).toEqual([{ jsonrpc: "2.0", id: 12, error: { code: -32602, message: expect.stringContaining("deeper than 5 levels") } }]);
    expect(rejected).toEqual([{ reason: expect.stringContaining("notification note") }]);
  });

  it("still applies the JSON-RPC checks to a too-deep message", () => {
    const { stream, rejected } = open({ maxParamsDepth: 5 });
    stream.write(frame(`{"jsonrpc":"2.0","id":{"x":${nested(50)}},"method":"x"}`));
    stream.write(frame(`[${nested(50)}]`));
    stream.write(frame(`{"jsonrpc":"2.0","id":1,"method":"x","params":${nested(50)}`));
    expect(rejected.map((each) => each.reply?.code)).toEqual([-32600, -32600, -32700]);
  });
});

describe("nestsDeeperThan and shallowCopy", () => {
  /** A random JSON value whose strings are full of brackets, quotes and backslashes. */
  function randomValue(random: () => number, budget: number): unknown {
    const pick = random();
    if (budget <= 0 || pick < 0.3) {
      const alphabet = ['"', "\\", "[", "]", "{", "}", "a", "é", " ", "\n"];
      const length = Math.floor(random() * (random() < 0.2 ? 120 : 10));
      return Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");
    }
    if (pick < 0.4) return random() < 0.5 ? Math.floor(random() * 1000) : null;
    const size = Math.floor(random() * 4);
    if (pick < 0.7) return Array.from({ length: size }, () => randomValue(random, budget - 1));
    return Object.fromEntries(Array.from({ length: size }, (_, index) => [`k${index}"[`, randomValue(random, budget - 1)]));
  }
  function depthOf(value: unknown): number {
    if (typeof value !== "object" || value === null) return 0;
    const children = Object.values(value as object);
    return 1 + Math.max(0, ...children.map(depthOf));
  }

  it("agrees with the depth of the parsed value on random JSON", () => {
    let seed = 42;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    for (let round = 0; round < 2000; round++) {
      const value = randomValue(random, 12);
      const bytes = Buffer.from(JSON.stringify(value));
      const depth = depthOf(value);
      expect(nestsDeeperThan(bytes, depth)).toBe(false);
      if (depth > 0) expect(nestsDeeperThan(bytes, depth - 1)).toBe(true);
      if (typeof value === "object" && value !== null) expect(depthOf(JSON.parse(shallowCopy(bytes)))).toBeLessThanOrEqual(2);
    }
  });

  it("keeps the top-level scalars in the shallow copy", () => {
    const text = JSON.stringify({ jsonrpc: "2.0", id: "é[", method: "m{", params: { a: [[["]"]]] }, tail: 1 });
    expect(JSON.parse(shallowCopy(Buffer.from(text)))).toEqual({ jsonrpc: "2.0", id: "é[", method: "m{", params: {}, tail: 1 });
  });
});

describe("maxMessageBytesFromEnv", () => {
  it("defaults to 100 MiB and reads TANDEM_MAX_MESSAGE_BYTES", () => {
    expect(maxMessageBytesFromEnv({})).toBe(100 * 1024 * 1024);
    expect(maxMessageBytesFromEnv({ TANDEM_MAX_MESSAGE_BYTES: " 2048 " })).toBe(2048);
  });

  it.each(["0", "-1", "1e6", "ten", "1.5", "99999999999999999999"])("refuses %s", (value) => {
    expect(() => maxMessageBytesFromEnv({ TANDEM_MAX_MESSAGE_BYTES: value })).toThrow(/TANDEM_MAX_MESSAGE_BYTES must be a positive whole number/);
  });
});
