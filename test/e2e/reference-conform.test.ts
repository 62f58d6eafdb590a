/**
 * Behaviour the conformance harness found open against the reference runtime (conformance/NOTES.md),
 * seen through the official SDKs: permission requests of one round go out one at a time in call
 * order for a 0.2.0 client (`concurrent-permissions.test.ts` has 1.0.x's, asked all at once); `session.usage_info.tokenLimit` is the model's window from the provider's model list; a
 * session resumed by a 1.0.x client announces its tools and skills (1.0.10 did not, so a 0.2.0
 * client gets neither); `tool.execution_complete.result` has its text for display; bash commands
 * signal background-task changes; a sub-agent's conversation opens as today's reference's does
 * (for 1.0.x clients; `generation-events.test.ts` has 0.2.0's).
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { approveAll, type PermissionHandler } from "@github/copilot-sdk";
import { parseScript } from "@tandem/testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { scriptsDir, startWorld, waitFor, type TestWorld } from "../helpers/harness.js";
import { recordEvents, subAgentOf, weatherTool, type AnyEvent } from "../helpers/session-events.js";
import { clientVariants, officialClient, officialV1Client, type ClientMaker } from "../helpers/official-client.js";


let world: TestWorld | undefined;
let workdir: string;
const stops: Array<() => Promise<unknown>> = [];

beforeEach(() => {
  workdir = realpathSync(mkdtempSync(join(tmpdir(), "tandem-conform-")));
});

afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
  await world?.dispose();
  world = undefined;
  rmSync(workdir, { recursive: true, force: true });
});

const clients: Array<{ sdk: string; make: ClientMaker }> = [
  { sdk: "official SDK 0.2.0", make: officialClient },
  { sdk: "official SDK 1.0.x", make: officialV1Client },
];

function loadScript(name: string): void {
  const path = join(scriptsDir, `${name}.yaml`);
  world?.model.addScript(parseScript(readFileSync(path, "utf8").replaceAll("__WORKDIR__", workdir), path));
}

/**
 * The "permission-order" script (view, bash and glob in one round) in a session of a new client:
 * the events the session saw, and the final reply.
 */
async function runThreeThings(make: ClientMaker, onPermissionRequest: PermissionHandler = approveAll): Promise<{ events: AnyEvent[]; reply: string | undefined }> {
  world = await startWorld([]);
  loadScript("permission-order");
  writeFileSync(join(workdir, "data.txt"), "one\n");
  const client = make(world.env);
  stops.push(() => client.stop());
  const session = await client.createSession({ workingDirectory: workdir, onPermissionRequest });
  const events = recordEvents(session);
  const reply = await session.sendAndWait({ prompt: "Do three things" });
  return { events, reply: reply?.data.content };
}

describe.each(clients.filter((client) => client.sdk === "official SDK 0.2.0"))("permission requests of one round ($sdk)", ({ make }) => {
  it("are asked one at a time, in the order of the calls", async () => {
    const asked: string[] = [];
    let outstanding = 0;
    let mostOutstanding = 0;
    const { events, reply } = await runThreeThings(make, async (request) => {
      asked.push(String((request as { toolCallId?: unknown }).toolCallId));
      outstanding++;
      mostOutstanding = Math.max(mostOutstanding, outstanding);
      // An answer that takes a moment, as a person's would: the next request must wait for it.
      await new Promise((resolve) => setTimeout(resolve, 100));
      outstanding--;
      return { kind: "approved" };
    });
    expect(reply).toBe("All three are done.");

    expect(asked).toEqual(["call_view_1", "call_bash_1", "call_glob_1"]);
    expect(mostOutstanding).toBe(1);
    const completed = events.filter((event) => event.type === "tool.execution_complete");
    expect(completed.map((event) => event.data.success)).toEqual([true, true, true]);
  });
});

describe.each(clients)("session.usage_info's window ($sdk)", ({ make }) => {
  it("is the model's prompt limit from the provider's model list, read once", async () => {
    world = await startWorld(["plain-reply"]);
    const client = make(world.env);
    stops.push(() => client.stop());
    const events: AnyEvent[] = [];
    for (const model of ["claude-sonnet-4", "gpt-4.1"]) {
      const session = await client.createSession({ onPermissionRequest: approveAll, model });
      session.on((event) => events.push(event as unknown as AnyEvent));
      await session.sendAndWait({ prompt: "Say hello" });
    }
    // The testkit lists claude-sonnet-4 with 216000 - 16000 prompt tokens, gpt-4.1 with 128000 - 16384.
    const limits = events.filter((event) => event.type === "session.usage_info").map((event) => event.data.tokenLimit);
    expect(limits).toEqual([200_000, 111_616]);
    expect(world.model.modelListRequests).toHaveLength(1);
  });
});

describe.each(clientVariants)("a session resumed by a new client ($sdk)", ({ sdk, make, approveAll }) => {
  /** One prompt in a first client's session, then the session resumed by a second client: the events each saw (the second's up to its title). */
  async function sendThenResume(prompt: string): Promise<{ before: AnyEvent[]; after: AnyEvent[] }> {
    world = await startWorld(["plain-reply"]);
    const first = make(world.env);
    stops.push(() => first.stop());
    const created = await first.createSession({ onPermissionRequest: approveAll });
    const before = recordEvents(created);
    await created.sendAndWait({ prompt });
    await first.stop();

    const second = make(world.env);
    stops.push(() => second.stop());
    const resumed = await second.resumeSession(created.sessionId, { onPermissionRequest: approveAll });
    const after = recordEvents(resumed);
    await waitFor(() => after.some((event) => event.type === "session.title_changed"), "the resumed session's title");
    return { before, after };
  }

  const legacy = sdk === "official SDK 0.2.0";

  it(legacy ? "follows session.resume with its title alone" : "announces its tool set and its skills after session.resume, before its title", async () => {
    const { after: events } = await sendThenResume("Say hello");
    const types = events.map((event) => event.type);
    const opening = types.slice(types.indexOf("session.resume"), types.indexOf("session.title_changed") + 1);
    if (legacy) {
      expect(opening).toEqual(["session.resume", "session.title_changed"]);
      return;
    }
    expect(opening).toEqual([
      "session.resume",
      "session.tools_updated",
      "session.skills_loaded",
      "session.title_changed",
    ]);
    expect(events.find((event) => event.type === "session.tools_updated")?.data).toEqual({ model: "gpt-4.1" });
    const skills = events.find((event) => event.type === "session.skills_loaded");
    expect(skills?.data).toEqual({ skills: [] });
    expect(skills?.ephemeral).toBe(true);
  });

  it("gets back the title it had, also for a long first prompt", async () => {
    const { before, after } = await sendThenResume(`${"Please look at the release checklist and tell me what is missing ".repeat(2)}\nsecond line`);
    const title = (before.find((event) => event.type === "session.title_changed")?.data as { title?: string } | undefined)?.title;
    expect(title).toMatch(/^Please look at the release checklist .{10,}\.\.\.$/);
    expect(after.find((event) => event.type === "session.title_changed")?.data).toEqual({ title });
  });
});

describe.each(clients)("tool.execution_complete's result ($sdk)", ({ make }) => {
  it("has the text for display beside the model's text (a viewed file as the references' whole-file diff), and bash's exit as a shell_exit block", async () => {
    const { events } = await runThreeThings(make);
    const results = new Map(
      events.filter((event) => event.type === "tool.execution_complete").map((event) => [event.data.toolCallId, event.data.result as Record<string, unknown>]),
    );
    for (const [id, result] of results) if (id !== "call_view_1") expect(result.detailedContent).toBe(result.content);
    const viewed = `${workdir}/data.txt`.slice(1);
    expect(results.get("call_view_1")?.detailedContent).toBe(
      `\ndiff --git a/${viewed} b/${viewed}\nindex 0000000..0000000 100644\n--- a/${viewed}\n+++ b/${viewed}\n@@ -1,2 +1,2 @@\n one\n \n`,
    );
    expect(results.get("call_bash_1")?.contents).toEqual([{ type: "shell_exit", shellId: "", exitCode: 0, cwd: workdir, outputPreview: "two\n" }]);
    expect(results.get("call_view_1")?.contents).toBeUndefined();
  });

  it("of an application's tool has its text for display too", async () => {
    world = await startWorld(["custom-tool"]);
    const client = make(world.env);
    stops.push(() => client.stop());
    const session = await client.createSession({
      onPermissionRequest: approveAll,
      tools: [weatherTool],
    });
    const events = recordEvents(session);
    await session.sendAndWait({ prompt: "Weather in Paris?" });
    const complete = events.find((event) => event.type === "tool.execution_complete");
    expect(complete?.data.result).toEqual({ content: "72 and sunny", detailedContent: "72 and sunny" });
  });
});

describe.each(clients)("a bash command ($sdk)", ({ make }) => {
  it("signals session.background_tasks_changed when it starts and when it ends", async () => {
    const { events } = await runThreeThings(make);
    const ofBash = events.filter((event) => event.type === "session.background_tasks_changed" || event.data.toolCallId === "call_bash_1");
    const types = ofBash.map((event) => event.type).filter((type) => !type.startsWith("permission."));
    expect(types).toEqual([
      "tool.execution_start",
      "session.background_tasks_changed",
      "tool.execution_partial_result",
      "session.background_tasks_changed",
      "tool.execution_complete",
    ]);
    expect(ofBash.find((event) => event.type === "session.background_tasks_changed")).toMatchObject({ data: {}, ephemeral: true });
  });
});

describe("a sub-agent's own conversation (official SDK 1.0.x)", () => {
  it("opens with its agent, model, configuration, prompt and tool set, each tagged with the task call", async () => {
    world = await startWorld(["explore-agent", "explore-agent-sub"]);
    const client = officialV1Client(world.env);
    stops.push(() => client.stop());
    const session = await client.createSession({ onPermissionRequest: approveAll });
    const events = recordEvents(session);
    await session.sendAndWait({ prompt: "Please explore the repo" });
    const types = events.map((event) => event.type);
    const opening = types.slice(types.indexOf("subagent.started"), types.indexOf("subagent.started") + 8);
    // Today's reference order: the run starts, the task list changes, then the agent, its
    // configuration, its model, its tool set, its prompt and its system prompt.
    expect(opening).toEqual([
      "subagent.started",
      "session.background_tasks_changed",
      "subagent.selected",
      "subagent.configured",
      "session.model_change",
      "session.tools_updated",
      "user.message",
      "system.message",
    ]);
    const inRun = (type: string) => events.find((event) => event.type === type && subAgentOf(event) === "call_explore_1")?.data;
    expect(inRun("subagent.selected")).toMatchObject({ agentName: "explore", tools: ["grep", "glob", "view", "bash", "read_bash", "stop_bash", "list_bash"] });
    expect(inRun("session.model_change")).toMatchObject({ newModel: "gpt-4.1" });
    expect(inRun("subagent.configured")).toMatchObject({ model: "gpt-4.1", multiTurn: false });
    expect(inRun("user.message")).toMatchObject({ content: "EXPLORE-SUB: where is the config?", source: `agent-${session.sessionId}` });
    expect(inRun("session.tools_updated")).toMatchObject({ model: "gpt-4.1" });
    expect(types.slice(types.indexOf("assistant.turn_end", types.indexOf("subagent.started")) + 1, types.indexOf("tool.execution_complete"))).toEqual([
      "subagent.completed",
      "session.background_tasks_changed",
    ]);
  });
});

describe.each(clients)("a sub-agent's own conversation ($sdk)", ({ make }) => {
  it("stays out of the session's own history on resume", async () => {
    world = await startWorld(["sub-agent-resume", "explore-agent-sub"]);
    const first = make(world.env);
    stops.push(() => first.stop());
    const created = await first.createSession({ onPermissionRequest: approveAll });
    await created.sendAndWait({ prompt: "Please explore and resume" });
    await first.stop();
    const second = make(world.env);
    stops.push(() => second.stop());
    const resumed = await second.resumeSession(created.sessionId, { onPermissionRequest: approveAll });
    const reply = await resumed.sendAndWait({ prompt: "Say hello" });
    expect(reply?.data.content).toBe("Hello again.");
    type Body = { messages: Array<{ role: string; content: unknown }> };
    const last = world.model.requests.at(-1)?.body as Body;
    const userTexts = last.messages.filter((message) => message.role === "user").map((message) => JSON.stringify(message.content));
    expect(userTexts.some((text) => text.includes("EXPLORE-SUB"))).toBe(false);
    expect(userTexts).toHaveLength(2);
  });
});
