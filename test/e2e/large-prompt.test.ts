/**
 * Very long prompts: `session.send` takes at most 4 Mi characters; a longer prompt is refused with
 * -32602 naming the limit, before anything is recorded, and the session stays usable. A prompt at
 * the limit is answered, and another client's pings stay fast meanwhile. A real runtime over TCP
 * (two connections), the scripted model server over HTTP.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startWorld, type TestWorld } from "../helpers/harness.js";
import { startTcpRuntime, type RawTcpClient, type TcpRuntime } from "../helpers/tcp.js";
import type { WireMessage } from "../helpers/frames.js";

const maxPromptChars = 4 * 1024 * 1024;

let world: TestWorld | undefined;
let runtime: TcpRuntime | undefined;
const clients: RawTcpClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await runtime?.stop();
  runtime = undefined;
  await world?.dispose();
  world = undefined;
});

const eventOf = (message: WireMessage) => (message.params as { event: { type: string; data: Record<string, unknown> } }).event;
const isEvent = (type: string) => (message: WireMessage) => message.method === "session.event" && eventOf(message).type === type;

/** Pings on `client` one after another until `stop()`; returns every round trip in ms. */
function keepPinging(client: RawTcpClient): { stop(): Promise<number[]> } {
  const latencies: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      await client.request("ping", { message: "still there?" });
      latencies.push(performance.now() - started);
    }
  })();
  // A failed test closes the connection under the loop: its error belongs to the test, not here.
  loop.catch(() => undefined);
  return {
    async stop() {
      running = false;
      await loop;
      return latencies;
    },
  };
}

async function connectedPair(): Promise<[RawTcpClient, RawTcpClient]> {
  world = await startWorld(["plain-reply"]);
  runtime = await startTcpRuntime(world.env, { args: ["--log-level", "warning"] });
  const pair = [await runtime.connect(), await runtime.connect()] as [RawTcpClient, RawTcpClient];
  clients.push(...pair);
  return pair;
}

describe("prompt size", () => {
  it("a 50 MB prompt is refused with -32602 before anything is recorded; a prompt at the 4 Mi limit is answered; another client's pings stay fast", async () => {
    const [sender, pinger] = await connectedPair();
    const { sessionId } = (await sender.request("session.create", {})).result as { sessionId: string };
    await pinger.request("session.create", {});
    const pings = keepPinging(pinger);

    const refused = await sender.request("session.send", { sessionId, prompt: "x".repeat(50 * 1024 * 1024) });
    expect(refused.error?.code).toBe(-32602);
    expect(refused.error?.message).toBe(
      `The prompt is ${50 * 1024 * 1024} characters long; session.send takes at most ${maxPromptChars} (4 Mi) characters, more than any model's context window holds. Send a shorter prompt, or put large content in a file and attach it or let the agent read it.`,
    );
    expect(refused.error?.data).toEqual({ promptLength: 50 * 1024 * 1024, maxPromptLength: maxPromptChars });
    expect(sender.received.filter(isEvent("user.message"))).toEqual([]);
    expect(world!.model.requests.filter((request) => request.path.endsWith("/chat/completions"))).toEqual([]);

    const atLimit = "word ".repeat(maxPromptChars / 8).padEnd(maxPromptChars, ".");
    const accepted = await sender.request("session.send", { sessionId, prompt: atLimit });
    expect(accepted.error).toBeUndefined();
    await sender.waitFor(isEvent("session.idle"), 60_000);
    const latencies = await pings.stop();

    const reply = sender.received.filter(isEvent("assistant.message")).map(eventOf)[0];
    expect(reply?.data.content).toBe("Hello from the scripted model.");
    expect(eventOf(sender.received.find(isEvent("user.message"))!).data.content).toBe(atLimit);
    // Unloaded, the longest wait is ~0.1 s (the 50 MB frame's parse is the longest stretch); a
    // prompt this size used to hold every session for seconds. The bound leaves room for a busy machine.
    expect(latencies.length).toBeGreaterThan(0);
    expect(Math.max(...latencies)).toBeLessThan(2000);
  }, 120_000);
});
