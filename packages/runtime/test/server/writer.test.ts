import { createServer, connect, type Server, type Socket } from "node:net";
import { afterEach, expect, it } from "vitest";
import { FramedMessageWriter, PreSerializedJson } from "../../src/server/writer.js";

let server: Server | undefined;
const sockets: Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

/** A connected pair of real TCP sockets: `writing` is ours, `peer` is a client that reads nothing until resumed. */
async function socketPair(): Promise<{ writing: Socket; peer: Socket }> {
  const accepted = new Promise<Socket>((resolve) => {
    server = createServer((socket) => resolve(socket));
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  const address = server?.address();
  const peer = connect(typeof address === "object" && address ? address.port : 0, "127.0.0.1");
  peer.pause();
  const writing = await accepted;
  sockets.push(writing, peer);
  return { writing, peer };
}

const frame = (size: number) => JSON.stringify({ jsonrpc: "2.0", method: "session.event", params: { text: "x".repeat(size) } });

it("keeps at most one batch in the stream while the client does not read, drops progress frames past the soft limit and gives up past the hard one", async () => {
  const { writing } = await socketPair();
  const overflows: number[] = [];
  const drops: number[] = [];
  const writer = new FramedMessageWriter(writing, { dropProgressBytes: 256 * 1024, disconnectBytes: 8 * 1024 * 1024, stallMs: 10_000 }, {
    onDroppingProgress: (bytes) => drops.push(bytes),
    onOverflow: (bytes) => overflows.push(bytes),
  });
  let accepted = 0;
  for (let index = 0; index < 4000 && overflows.length === 0; index++) {
    if (writer.writeJson(frame(16 * 1024), index % 2 === 0 ? "progress" : "message")) accepted++;
    if (index % 50 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  expect(drops.length).toBeGreaterThan(0);
  expect(writer.droppedProgressFrames).toBeGreaterThan(0);
  expect(overflows).toHaveLength(1);
  expect(overflows[0]).toBeGreaterThan(8 * 1024 * 1024);
  expect(accepted).toBeLessThan(4000);
  // The stream itself never held more than about one batch: the rest waited in the writer's queue.
  expect(writing.writableLength).toBeLessThan(2 * 1024 * 1024);
  expect(writer.writeJson(frame(10))).toBe(false);
  expect(writer.unwrittenBytes).toBeLessThan(2 * 1024 * 1024);
});

it("delivers every frame, in order, to a client that reads late", async () => {
  const { writing, peer } = await socketPair();
  const writer = new FramedMessageWriter(writing);
  const count = 300;
  for (let index = 0; index < count; index++) writer.writeJson(JSON.stringify({ jsonrpc: "2.0", method: "n", params: { index, pad: "y".repeat(32 * 1024) } }));
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(writing.writableLength).toBeLessThan(2 * 1024 * 1024);
  const chunks: Buffer[] = [];
  peer.on("data", (chunk: Buffer) => chunks.push(chunk));
  peer.resume();
  const expected = count * (32 * 1024);
  while (Buffer.concat(chunks).length < expected) await new Promise((resolve) => setTimeout(resolve, 20));
  await new Promise((resolve) => setTimeout(resolve, 50));
  const text = Buffer.concat(chunks).toString("utf8");
  const indexes = [...text.matchAll(/"index":(\d+)/g)].map((match) => Number(match[1]));
  expect(indexes).toEqual([...Array(count).keys()]);
});

it("reports a broken connection as an error and close, never as a throw", async () => {
  const { writing, peer } = await socketPair();
  const writer = new FramedMessageWriter(writing);
  const errors: Error[] = [];
  let closed = false;
  writer.onError(([error]) => errors.push(error));
  writer.onClose(() => (closed = true));
  peer.resetAndDestroy();
  for (let index = 0; index < 200 && !closed; index++) {
    writer.writeJson(frame(64 * 1024));
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  expect(closed).toBe(true);
  expect(writer.writeJson(frame(10))).toBe(false);
});

it("frames a result given as bytes (never decoded) between text frames, with its byte length", async () => {
  const { writing, peer } = await socketPair();
  const writer = new FramedMessageWriter(writing);
  const body = Buffer.from(`{"events":[{"text":"ünïcödé ✓"}]}`);
  writer.writeJson('{"jsonrpc":"2.0","method":"a"}');
  void writer.write({ jsonrpc: "2.0", id: 7, result: new PreSerializedJson(body) } as never);
  writer.writeJson('{"jsonrpc":"2.0","method":"b"}');
  const received: Buffer[] = [];
  peer.on("data", (chunk: Buffer) => received.push(chunk));
  peer.resume();
  const expected = ['{"jsonrpc":"2.0","method":"a"}', `{"jsonrpc":"2.0","id":7,"result":${body.toString("utf8")}}`, '{"jsonrpc":"2.0","method":"b"}'];
  const wire = expected.map((json) => `Content-Length: ${Buffer.byteLength(json)}\r\n\r\n${json}`).join("");
  await waitUntil(() => Buffer.concat(received).length >= Buffer.byteLength(wire));
  expect(Buffer.concat(received).toString("utf8")).toBe(wire);
});

async function waitUntil(predicate: () => boolean): Promise<void> {
  for (let tries = 0; tries < 200 && !predicate(); tries++) await new Promise((resolve) => setTimeout(resolve, 10));
}

it("leaves a frame queued while the client was caught up outside the budget: a client that reads gets it and what follows, one that does not is given up", async () => {
  const reading = await socketPair();
  const limits = { dropProgressBytes: 64 * 1024, disconnectBytes: 1024 * 1024, stallMs: 300 };
  const readerOverflows: number[] = [];
  const writer = new FramedMessageWriter(reading.writing, limits, { onOverflow: (bytes) => readerOverflows.push(bytes) });
  expect(writer.writeJson(frame(3 * 1024 * 1024))).toBe(true);
  // Nothing is read yet: 3 MiB wait, three times the budget, and the frames after it still go in.
  expect(writer.writeJson(frame(100))).toBe(true);
  expect(writer.writeJson(frame(512 * 1024))).toBe(true);
  let received = 0;
  reading.peer.on("data", (chunk: Buffer) => (received += chunk.length));
  reading.peer.resume();
  while (received < 3.5 * 1024 * 1024) await new Promise((resolve) => reading.peer.once("data", resolve));
  expect(readerOverflows).toEqual([]);
  expect(writer.writeJson(frame(10))).toBe(true);

  // A client that reads nothing: given up once its stall time passes...
  const stalled = await socketPair();
  const given = new Promise<number>((resolve) => {
    const stalledWriter = new FramedMessageWriter(stalled.writing, limits, { onOverflow: resolve });
    // Larger than what the kernel's socket buffers take in.
    stalledWriter.writeJson(frame(32 * 1024 * 1024));
    stalledWriter.writeJson(frame(100));
  });
  expect(await given).toBeGreaterThan(1024 * 1024);
  // ...or at once when the budget is passed besides the large frame.
  const flooded = await socketPair();
  const overflows: number[] = [];
  const floodedWriter = new FramedMessageWriter(flooded.writing, { ...limits, stallMs: 60_000 }, { onOverflow: (bytes) => overflows.push(bytes) });
  floodedWriter.writeJson(frame(3 * 1024 * 1024));
  for (let index = 0; index < 400 && overflows.length === 0; index++) floodedWriter.writeJson(frame(256 * 1024));
  expect(overflows).toHaveLength(1);
  expect(floodedWriter.writeJson(frame(10))).toBe(false);
});
