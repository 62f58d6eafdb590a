/**
 * Two client generations against one runtime, each served by its compatibility profile, through
 * the real `tandem` process and the scripted model server: the official SDK 0.2.0 (via `cliPath`),
 * the official SDK 1.0.x (via `RuntimeConnection.forStdio`) and `@tandem/sdk` (a 1.0.x-generation
 * client). Covered: the opening of a session (`session.start` only, for both generations),
 * `report_intent` and `assistant.intent` (on by default for 0.2.0, off
 * for 1.0.x, switched by `--report-intent on|off` and the session's `reportIntent`), the abort
 * reason in each generation's spelling, and a session resumed by the other generation.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CopilotClient, approveAll } from "@github/copilot-sdk";
import { CopilotClient as TandemClient, approveAll as tandemApproveAll } from "@tandem/sdk";
import { CopilotClient as V1Client, RuntimeConnection, approveAll as v1ApproveAll } from "copilot-sdk-v1";
import { afterEach, describe, expect, it } from "vitest";
import { startWorld, tandemBin, waitFor, type TestWorld } from "../helpers/harness.js";
import { recordEvents, type AnyEvent } from "../helpers/session-events.js";

let world: TestWorld | undefined;
const stops: Array<() => Promise<unknown>> = [];

afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop().catch(() => undefined);
  await world?.dispose();
  world = undefined;
});

/** What the tests need of a session, whichever SDK made it. */
interface AnySession {
  sessionId: string;
  on(handler: (event: unknown) => void): unknown;
  send(options: { prompt: string }): Promise<string>;
  sendAndWait(options: { prompt: string }, timeout?: number): Promise<unknown>;
  abort(): Promise<void>;
  events(): Promise<AnyEvent[]>;
}

interface OpenOptions {
  /** Runtime flags (`--report-intent on|off`). */
  runtimeArgs?: string[];
  /** The session's `reportIntent` option (only @tandem/sdk can send it). */
  reportIntent?: boolean;
  onEvent?: (event: AnyEvent) => void;
  resume?: string;
}

type Opener = (env: Record<string, string>, options?: OpenOptions) => Promise<AnySession>;

/** The official SDK 0.2.0 through `cliPath` (`getMessages`). */
const openLegacy: Opener = async (env, options = {}) => {
  const client = new CopilotClient({ cliPath: tandemBin, cliArgs: options.runtimeArgs ?? [], env, logLevel: "error" });
  stops.push(() => client.stop());
  const config = { onPermissionRequest: approveAll, ...(options.onEvent ? { onEvent: options.onEvent as never } : {}) };
  const session = options.resume ? await client.resumeSession(options.resume, config) : await client.createSession(config);
  return Object.assign(session, { events: async () => (await session.getMessages()) as unknown as AnyEvent[] }) as unknown as AnySession;
};

/** The official SDK 1.0.x through `RuntimeConnection.forStdio` (`getEvents`). */
const openCurrent: Opener = async (env, options = {}) => {
  const client = new V1Client({ connection: RuntimeConnection.forStdio({ path: tandemBin, args: options.runtimeArgs ?? [] }), env, logLevel: "error" });
  stops.push(() => client.stop());
  const config = { onPermissionRequest: v1ApproveAll, ...(options.onEvent ? { onEvent: options.onEvent as never } : {}) };
  const session = options.resume ? await client.resumeSession(options.resume, config) : await client.createSession(config);
  return Object.assign(session, { events: async () => (await session.getEvents()) as unknown as AnyEvent[] }) as unknown as AnySession;
};

/** Ours, which starts the runtime it depends on (`runtimeArgs` go to it as `cliArgs`). */
const openTandem: Opener = async (env, options = {}) => {
  const client = new TandemClient({ cliArgs: options.runtimeArgs ?? [], env, logLevel: "error" });
  stops.push(() => client.stop());
  const config = {
    onPermissionRequest: tandemApproveAll,
    ...(options.reportIntent !== undefined ? { reportIntent: options.reportIntent } : {}),
    ...(options.onEvent ? { onEvent: options.onEvent as never } : {}),
  };
  const session = options.resume ? await client.resumeSession(options.resume, config) : await client.createSession(config);
  return Object.assign(session, { events: async () => (await session.getMessages()) as unknown as AnyEvent[] }) as unknown as AnySession;
};

const generations = [
  { sdk: "official SDK 0.2.0", open: openLegacy, abortReason: "user initiated" },
  { sdk: "official SDK 1.0.x", open: openCurrent, abortReason: "user_initiated" },
  { sdk: "@tandem/sdk", open: openTandem, abortReason: "user_initiated" },
];

describe.each(generations)("opening and abort ($sdk)", ({ open, abortReason }) => {
  it("createSession's onEvent gets session.start first; getMessages right after create has session.start alone", async () => {
    world = await startWorld([]);
    const seen: AnyEvent[] = [];
    const session = await open(world.env, { onEvent: (event) => seen.push(event) });
    await waitFor(() => seen.some((event) => event.type === "session.start"), "session.start at the onEvent handler");
    expect(seen[0]?.type).toBe("session.start");
    expect((seen[0]?.data as { sessionId?: string }).sessionId).toBe(session.sessionId);

    const stored = (await session.events()).map((event) => event.type);
    // No generation's reference announces the context again after the start that carries it.
    expect(stored).toEqual(["session.start"]);
    expect(seen.filter((event) => event.type === "session.context_changed")).toHaveLength(0);
  });

  it(`an aborted turn's abort event says "${abortReason}"`, async () => {
    world = await startWorld(["hang-then-reply"]);
    const session = await open(world.env);
    const events = recordEvents(session);
    await session.send({ prompt: "this will hang" });
    await waitFor(() => world?.model.requests.length === 1, "the model request");
    await session.abort();
    await waitFor(() => events.some((event) => event.type === "session.idle"), "idle after the abort");
    expect(events.find((event) => event.type === "abort")?.data).toEqual({ reason: abortReason });
    const stored = (await session.events()).find((event) => event.type === "abort");
    expect(stored?.data).toEqual({ reason: abortReason });
  });
});

/** The client generation `workspace.yaml` records for a session. */
function recordedGeneration(sessionId: string): string | undefined {
  if (!world) throw new Error("no world");
  const text = readFileSync(join(world.home, "session-state", sessionId, "workspace.yaml"), "utf8");
  return /^client_generation: "(.*)"$/m.exec(text)?.[1];
}

describe("a session resumed by the other generation", () => {
  it("takes the resuming client's profile: a 0.2.0 session resumed by 1.0.x spells the abort reason 1.0.x's way", async () => {
    world = await startWorld(["hang-then-reply"]);
    const created = await openLegacy(world.env);
    expect(recordedGeneration(created.sessionId)).toBe("0.2");
    await stops.pop()?.();

    const resumed = await openCurrent(world.env, { resume: created.sessionId });
    const events = recordEvents(resumed);
    await resumed.send({ prompt: "this will hang" });
    await waitFor(() => world?.model.requests.length === 1, "the model request");
    await resumed.abort();
    await waitFor(() => events.some((event) => event.type === "session.idle"), "idle after the abort");
    expect(events.find((event) => event.type === "abort")?.data).toEqual({ reason: "user_initiated" });
    await stops.pop()?.();
    expect(recordedGeneration(created.sessionId)).toBe("1.0");
  });
});

/** The tool names of the model request `index`, and the text the model got back for `report_intent`. */
function modelSaw(index: number): { tools: string[]; intentResult: string | undefined } {
  const body = world?.model.requests[index]?.body as {
    tools?: Array<{ function: { name: string } }>;
    messages: Array<{ role: string; tool_call_id?: string; content?: unknown }>;
  };
  const result = body.messages.find((message) => message.role === "tool" && message.tool_call_id === "call_intent_1");
  return { tools: (body.tools ?? []).map((tool) => tool.function.name), intentResult: typeof result?.content === "string" ? result.content : undefined };
}

describe("report_intent and assistant.intent", () => {
  const cases = [
    { name: "0.2.0 by default", open: openLegacy, options: {}, offered: true },
    { name: "0.2.0 with --report-intent off", open: openLegacy, options: { runtimeArgs: ["--report-intent", "off"] }, offered: false },
    { name: "1.0.x by default", open: openCurrent, options: {}, offered: false },
    { name: "1.0.x with --report-intent on", open: openCurrent, options: { runtimeArgs: ["--report-intent", "on"] }, offered: true },
    { name: "@tandem/sdk with reportIntent: true", open: openTandem, options: { reportIntent: true }, offered: true },
    { name: "@tandem/sdk with reportIntent: false under --report-intent on", open: openTandem, options: { runtimeArgs: ["--report-intent", "on"], reportIntent: false }, offered: false },
  ];

  it.each(cases)("$name: offered = $offered", async ({ open, options, offered }) => {
    world = await startWorld(["report-intent"]);
    const session = await open(world.env, options);
    const events = recordEvents(session);
    await session.sendAndWait({ prompt: "What is the weather?" }, 30_000);

    const first = modelSaw(0);
    const second = modelSaw(1);
    const intents = events.filter((event) => event.type === "assistant.intent");
    if (!offered) {
      expect(first.tools).not.toContain("report_intent");
      expect(second.intentResult).toMatch(/^Tool 'report_intent' does not exist\./);
      expect(intents).toEqual([]);
      return;
    }
    // Where the 0.2.0 generation's runtime offered it: right after web_fetch.
    expect(first.tools[first.tools.indexOf("web_fetch") + 1]).toBe("report_intent");
    expect(second.intentResult).toBe("Intent logged");
    expect(intents.map((event) => ({ data: event.data, ephemeral: event.ephemeral }))).toEqual([{ data: { intent: "Checking the weather" }, ephemeral: true }]);
    // It asks no permission, and runs as a tool call like any other.
    expect(events.some((event) => event.type === "permission.requested")).toBe(false);
    const completed = events.find((event) => event.type === "tool.execution_complete" && event.data.toolCallId === "call_intent_1");
    expect(completed?.data).toMatchObject({ success: true, result: { content: "Intent logged" } });
    // Ephemeral: not in the stored events.
    expect((await session.events()).some((event) => event.type === "assistant.intent" && event.ephemeral !== true)).toBe(false);
  });
});
