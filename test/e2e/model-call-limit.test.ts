/**
 * The cap on model calls per user message: a model that keeps asking for tools is stopped at the
 * limit (`--max-model-calls-per-turn`, `TANDEM_MAX_MODEL_CALLS_PER_TURN`, default 200) with a typed
 * `session.error`, the session goes idle, and the next message is answered. Real runtime processes,
 * the official SDK and our raw client, the scripted model server over HTTP.
 */
import { spawnSync } from "node:child_process";
import { CopilotClient, approveAll, type SessionEvent } from "@github/copilot-sdk";
import { afterEach, describe, expect, it } from "vitest";
import { eventsOf, startWorld, tandemBin, waitFor, type TestWorld } from "../helpers/harness.js";
import { RawClient, type WireMessage } from "../helpers/raw-client.js";

let world: TestWorld | undefined;
const cleanups: Array<() => Promise<unknown>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
  await world?.dispose();
  world = undefined;
});

const chatRequests = () => world!.model.requests.filter((request) => request.path.endsWith("/chat/completions"));

describe("model calls per user message", () => {
  it("TANDEM_MAX_MODEL_CALLS_PER_TURN: the turn stops at the limit with session.error model_call_limit, goes idle, and the next message is answered", async () => {
    world = await startWorld(["model-call-limit"], { TANDEM_MAX_MODEL_CALLS_PER_TURN: "3" });
    const client = new CopilotClient({ cliPath: tandemBin, env: world.env, logLevel: "error" });
    cleanups.push(() => client.forceStop());
    const session = await client.createSession({ onPermissionRequest: approveAll });
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));
    await session.send({ prompt: "keep calling tools" });
    await waitFor(() => events.some((event) => event.type === "session.idle"), "session.idle after the limit", 30_000);

    expect(chatRequests()).toHaveLength(3);
    const errors = eventsOf(events, "session.error");
    expect(errors).toHaveLength(1);
    expect(errors[0]!.data.errorType).toBe("model_call_limit");
    expect(errors[0]!.data.message).toBe(
      "This turn reached the limit of 3 model calls per message and was stopped before calling the model again. " +
        "Send another message to continue, or raise the limit with the runtime flag --max-model-calls-per-turn or TANDEM_MAX_MODEL_CALLS_PER_TURN.",
    );
    const types = events.map((event) => event.type);
    expect(types.indexOf("session.error")).toBeLessThan(types.indexOf("session.idle"));
    expect(types.filter((type) => type === "assistant.turn_start")).toHaveLength(3);
    expect(types.filter((type) => type === "assistant.turn_end")).toHaveLength(3);
    expect(types.filter((type) => type === "tool.execution_complete")).toHaveLength(3);

    const reply = await session.sendAndWait({ prompt: "what happened?" });
    expect(reply?.data.content).toBe("Done after the limit.");
    expect(chatRequests()).toHaveLength(4);
    const lastMessages = (chatRequests().at(-1)?.body as { messages: Array<{ role: string }> }).messages;
    expect(lastMessages.map((message) => message.role)).toEqual(["system", "user", "assistant", "tool", "assistant", "tool", "assistant", "tool", "user"]);
  }, 60_000);

  it("--max-model-calls-per-turn overrides the variable", async () => {
    world = await startWorld(["model-call-limit"], { TANDEM_MAX_MODEL_CALLS_PER_TURN: "50" });
    const raw = new RawClient(world.env, ["--max-model-calls-per-turn", "2"]);
    cleanups.push(() => raw.close(true));
    const { sessionId } = (await raw.request("session.create", {})).result as { sessionId: string };
    await raw.request("session.send", { sessionId, prompt: "keep calling tools" });
    const eventOf = (message: WireMessage) => (message.params as { event: { type: string; data: Record<string, unknown> } }).event;
    const isEvent = (type: string) => (message: WireMessage) => message.method === "session.event" && eventOf(message).type === type;
    const error = eventOf(await raw.waitFor(isEvent("session.error")));
    await raw.waitFor(isEvent("session.idle"));
    expect(error.data).toMatchObject({ errorType: "model_call_limit" });
    expect(error.data.message).toContain("limit of 2 model calls");
    expect(chatRequests()).toHaveLength(2);
  }, 60_000);

  it("a limit that is not a whole number of calls stops the runtime at start with status 2", () => {
    const fromEnv = spawnSync(process.execPath, [tandemBin, "--stdio"], { encoding: "utf8", timeout: 30_000, input: "", env: { PATH: process.env.PATH ?? "", TANDEM_MAX_MODEL_CALLS_PER_TURN: "lots" } });
    expect(fromEnv.status).toBe(2);
    expect(fromEnv.stderr).toContain('TANDEM_MAX_MODEL_CALLS_PER_TURN must be a whole number of model calls (at least 1), got "lots"');
    const fromFlag = spawnSync(process.execPath, [tandemBin, "--stdio", "--max-model-calls-per-turn", "0"], { encoding: "utf8", timeout: 30_000, input: "" });
    expect(fromFlag.status).toBe(2);
    expect(fromFlag.stderr).toContain("--max-model-calls-per-turn needs a whole number of model calls (at least 1)");
  });
});
