/**
 * Each client generation gets its own generation's events and model requests, through the real
 * `tandem` process, the scripted model server (Copilot API mode) and the official SDK of each
 * generation: 0.2.0 (via `cliPath`) is served as its reference runtime 1.0.10 served it, 1.0.x (via
 * `RuntimeConnection.forStdio`) as today's runtime does. Covered: `assistant.idle` (1.0.x only), how
 * a rejected tool call and a user abort end the run, what follows `session.resume`, a write
 * permission request's `canOfferSessionApproval` and its diff, the sub-agent's events, display name and tools,
 * `thinking_budget` and the sub-agent's streamed request and prompt, plan mode's `[[PLAN]]` mark and
 * notice, `task_complete` in plan mode and
 * `sql.database`'s default.
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CopilotClient, approveAll } from "@github/copilot-sdk";
import { parseScript } from "@tandem/testkit";
import { CopilotClient as V1Client, RuntimeConnection, approveAll as v1ApproveAll } from "copilot-sdk-v1";
import { afterEach, describe, expect, it } from "vitest";
import { scriptsDir, startWorld, tandemBin, waitFor, type TestWorld } from "../helpers/harness.js";
import type { AnyEvent } from "../helpers/session-events.js";

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
  send(options: { prompt: string }): Promise<string>;
  sendAndWait(options: { prompt: string }, timeout?: number): Promise<unknown>;
  abort(): Promise<void>;
  disconnect?(): Promise<void>;
  destroy?(): Promise<void>;
  rpc: { mode: { set(params: { mode: "plan" }): Promise<unknown> } };
}

interface OpenOptions {
  /** The session's permission decision (default: approve everything). */
  reject?: boolean;
  resume?: string;
  model?: string;
  workingDirectory?: string;
  tools?: Array<{ name: string; description: string; parameters: Record<string, unknown>; handler: () => string }>;
}

/** A session and every event its `onEvent` handler received (from before the create/resume answer on). */
interface Opened {
  session: AnySession;
  events: AnyEvent[];
}

type Opener = (env: Record<string, string>, options?: OpenOptions) => Promise<Opened>;

/** The official SDK 0.2.0 through `cliPath`. */
const openLegacy: Opener = async (env, options = {}) => {
  const client = new CopilotClient({ cliPath: tandemBin, env, logLevel: "error" });
  stops.push(() => client.stop());
  const events: AnyEvent[] = [];
  const config = {
    onPermissionRequest: options.reject ? () => ({ kind: "denied-interactively-by-user" as const }) : approveAll,
    onEvent: (event: unknown) => events.push(event as AnyEvent),
    ...(options.model ? { model: options.model } : {}),
    ...(options.workingDirectory ? { workingDirectory: options.workingDirectory } : {}),
    ...(options.tools ? { tools: options.tools } : {}),
  };
  const session = options.resume ? await client.resumeSession(options.resume, config) : await client.createSession(config);
  return { session: session as unknown as AnySession, events };
};

/** The official SDK 1.0.x through `RuntimeConnection.forStdio`. */
const openCurrent: Opener = async (env, options = {}) => {
  const client = new V1Client({ connection: RuntimeConnection.forStdio({ path: tandemBin }), env, logLevel: "error" });
  stops.push(() => client.stop());
  const events: AnyEvent[] = [];
  const config = {
    onPermissionRequest: options.reject ? () => ({ kind: "reject" as const }) : v1ApproveAll,
    onEvent: (event: unknown) => events.push(event as AnyEvent),
    ...(options.model ? { model: options.model } : {}),
    ...(options.workingDirectory ? { workingDirectory: options.workingDirectory } : {}),
    ...(options.tools ? { tools: options.tools } : {}),
  };
  const session = options.resume ? await client.resumeSession(options.resume, config) : await client.createSession(config);
  return { session: session as unknown as AnySession, events };
};

const generations = [
  { sdk: "official SDK 0.2.0", open: openLegacy, legacy: true },
  { sdk: "official SDK 1.0.x", open: openCurrent, legacy: false },
];

/** The world of the generation being checked. */
function theWorld(): TestWorld {
  if (!world) throw new Error("no world");
  return world;
}

/** The event types from the last `from` event on (`from` included). */
function typesFromLast(events: readonly AnyEvent[], from: string): string[] {
  const types = events.map((event) => event.type);
  return types.slice(types.lastIndexOf(from));
}

const readSecret = { name: "read_secret", description: "Reads a secret", parameters: { type: "object", properties: { key: { type: "string" } } }, handler: () => "x" };

/** The tool names and the `sql` tool's parameters of one model request. */
function offeredTools(body: unknown): { names: string[]; sqlDatabase: Record<string, unknown> | undefined } {
  const tools = (body as { tools?: Array<{ function: { name: string; parameters: { properties?: Record<string, Record<string, unknown>> } } }> }).tools ?? [];
  const sql = tools.find((tool) => tool.function.name === "sql");
  return { names: tools.map((tool) => tool.function.name), sqlDatabase: sql?.function.parameters.properties?.database };
}

/**
 * Runs `check` with each generation in turn, in a fresh world loaded with `scripts`: each test
 * states both generations' behaviour, so it fails when either is served the other's.
 */
async function forEachGeneration(scripts: string[], check: (open: Opener, legacy: boolean) => Promise<void>): Promise<void> {
  for (const { open, legacy } of generations) {
    world = await startWorld(scripts);
    await check(open, legacy);
    for (const stop of stops.splice(0).reverse()) await stop().catch(() => undefined);
    await world.dispose();
    world = undefined;
  }
}

describe("the events of a turn, per generation", () => {
  it("a turn ends with session.idle alone for 0.2.0, with assistant.idle then session.idle for 1.0.x", async () => {
    await forEachGeneration(["plain-reply"], async (open, legacy) => {
      const { session, events } = await open(theWorld().env);
      await session.sendAndWait({ prompt: "Say hello" }, 30_000);
      expect(typesFromLast(events, "assistant.turn_end")).toEqual(legacy ? ["assistant.turn_end", "session.idle"] : ["assistant.turn_end", "assistant.idle", "session.idle"]);
    });
  });

  it("a rejected tool call just ends the turn for 0.2.0, and ends the run as a cancellation for 1.0.x", async () => {
    await forEachGeneration(["tool-denied"], async (open, legacy) => {
      const { session, events } = await open(theWorld().env, { reject: true, tools: [readSecret] });
      await session.sendAndWait({ prompt: "Read the secret" }, 30_000);
      expect(typesFromLast(events, "tool.execution_complete")).toEqual(
        legacy
          ? ["tool.execution_complete", "assistant.turn_end", "pending_messages.modified", "session.idle"]
          : ["tool.execution_complete", "assistant.turn_end", "abort", "session.info", "pending_messages.modified", "assistant.idle", "session.idle"],
      );
      expect(theWorld().model.requests).toHaveLength(1);
    });
  });

  it("a user abort leaves the interrupted turn open for 0.2.0 (abort, notice, idle); 1.0.x announces the abort, then closes the turn, re-announcing the queue before and after", async () => {
    await forEachGeneration(["hang-then-reply"], async (open, legacy) => {
      const { session, events } = await open(theWorld().env);
      await session.send({ prompt: "this will hang" });
      await waitFor(() => world?.model.requests.length === 1, "the model request");
      await session.abort();
      await waitFor(() => events.some((event) => event.type === "session.idle"), "idle after the abort", 30_000);
      const afterStart = typesFromLast(events, "assistant.turn_start").filter((type) => type !== "session.usage_info");
      expect(afterStart).toEqual(
        legacy
          ? ["assistant.turn_start", "abort", "session.info", "session.idle"]
          : ["assistant.turn_start", "abort", "session.info", "pending_messages.modified", "assistant.turn_end", "pending_messages.modified", "assistant.idle", "session.idle"],
      );
    });
  });

  it("session.resume names the model; the title follows, after the tool set and skills for 1.0.x only", async () => {
    await forEachGeneration(["plain-reply"], async (open, legacy) => {
      const first = await open(theWorld().env);
      await first.session.sendAndWait({ prompt: "Say hello" }, 30_000);
      const { events } = await open(theWorld().env, { resume: first.session.sessionId });
      await waitFor(() => events.some((event) => event.type === "session.title_changed"), "the title after the resume");
      expect(events.find((event) => event.type === "session.resume")?.data.selectedModel).toBe("gpt-4.1");
      const opening = typesFromLast(events, "session.resume").filter((type) => type !== "session.usage_info" && type !== "session.mcp_servers_loaded");
      expect(opening).toEqual(legacy ? ["session.resume", "session.title_changed"] : ["session.resume", "session.tools_updated", "session.skills_loaded", "session.title_changed"]);
    });
  });
});

describe("permission requests, per generation", () => {
  it("a write permission request says canOfferSessionApproval for 1.0.x (its schema requires it) and not for 0.2.0 (its schema has no such field); its diff is each generation's reference form", async () => {
    await forEachGeneration([], async (open, legacy) => {
      const workdir = realpathSync(mkdtempSync(join(tmpdir(), "tandem-generation-")));
      try {
        const path = join(scriptsDir, "permission-kinds.yaml");
        const text = readFileSync(path, "utf8").replaceAll("__WORKDIR__", workdir).replaceAll("__URL__", `${theWorld().modelUrl}/models`);
        theWorld().model.addScript(parseScript(text, path));
        writeFileSync(join(workdir, "existing.txt"), "old\n");
        const { session, events } = await open(theWorld().env, { workingDirectory: workdir });
        await session.sendAndWait({ prompt: "Please write and fetch" }, 30_000);
        const requests = events.filter((event) => event.type === "permission.requested").map((event) => event.data.permissionRequest as Record<string, unknown>);
        // 0.2.0 is asked in call order; 1.0.x is asked all at once, in the order the calls reach their requests.
        const kinds = requests.map((request) => String(request.kind));
        expect(legacy ? kinds : kinds.sort()).toEqual(legacy ? ["write", "write", "url"] : ["url", "write", "write"]);
        for (const request of requests.filter((candidate) => candidate.kind === "write")) {
          expect(request.canOfferSessionApproval).toBe(legacy ? undefined : true);
        }
        // The diffs in the reference runtimes' form; a created file's final newline ends one more
        // (empty) added line for 0.2.0 (1.0.10's `+1,2`), not for 1.0.x (`+1,1`).
        const display = workdir.slice(1);
        const writeOf = (name: string) => requests.find((request) => request.kind === "write" && String(request.fileName).endsWith(name));
        expect(writeOf("created.txt")?.diff).toBe(
          `\ndiff --git a/${display}/created.txt b/${display}/created.txt\ncreate file mode 100644\nindex 0000000..0000000\n--- a/dev/null\n+++ b/${display}/created.txt\n` +
            (legacy ? "@@ -1,0 +1,2 @@\n+new\n+\n" : "@@ -1,0 +1,1 @@\n+new\n"),
        );
        expect(writeOf("existing.txt")?.diff).toBe(
          `\ndiff --git a/${display}/existing.txt b/${display}/existing.txt\nindex 0000000..0000000 100644\n--- a/${display}/existing.txt\n+++ b/${display}/existing.txt\n@@ -1,2 +1,2 @@\n-old\n+new\n \n`,
        );
      } finally {
        rmSync(workdir, { recursive: true, force: true });
      }
    });
  });
});

describe("sub-agents and model requests, per generation", () => {
  it("a sub-agent shows as 1.0.10 showed it to 0.2.0 (the agent's name, no opening, a streamed request) and with its opening to 1.0.x", async () => {
    await forEachGeneration(["explore-agent", "explore-agent-sub"], async (open, legacy) => {
      const { session, events } = await open(theWorld().env, { model: "claude-sonnet-4" });
      await session.sendAndWait({ prompt: "Please explore the repo" }, 30_000);

      const started = events.find((event) => event.type === "subagent.started");
      expect(started?.data.agentDisplayName).toBe(legacy ? "Explore Agent" : "finder");
      expect(started?.data.agentDescription).toBe(legacy ? "Quickly searches and reads the codebase to answer a question; makes no changes." : "Find the config");
      expect(events.find((event) => event.type === "subagent.completed")?.data.agentDisplayName).toBe(legacy ? "Explore Agent" : "finder");
      const types = events.map((event) => event.type);
      const run = types.slice(types.indexOf("subagent.started"), types.indexOf("subagent.completed") + 1);
      // 1.0.102's order: the run is announced, then counted as a task; the tool set before the prompt.
      const opening = ["subagent.selected", "subagent.configured", "session.model_change", "session.tools_updated", "user.message", "system.message", "assistant.turn_start"];
      if (legacy) {
        expect(run.filter((type) => opening.includes(type) && type !== "system.message")).toEqual([]);
        expect(run.filter((type) => type === "assistant.turn_end")).toEqual([]);
        expect(run).toContain("assistant.message");
        expect(types.filter((type) => type === "session.background_tasks_changed")).toEqual([]);
      } else {
        expect(run.slice(0, 2 + opening.length)).toEqual(["subagent.started", "session.background_tasks_changed", ...opening]);
        expect(run).toContain("assistant.turn_end");
        expect(types.filter((type) => type === "session.background_tasks_changed")).toHaveLength(2);
      }

      const [main, sub] = theWorld().model.requests.map((request) => request.body as Record<string, unknown>);
      expect(main?.thinking_budget).toBe(legacy ? 1024 : undefined);
      expect(main?.stream).toBeUndefined();
      expect(sub?.thinking_budget).toBe(legacy ? 1024 : undefined);
      expect(sub?.stream).toBe(legacy ? true : undefined);
      // A streamed request of a session that does not stream gives its clients no deltas.
      expect(types.filter((type) => type === "assistant.message_delta" || type === "assistant.streaming_delta")).toEqual([]);
      // 1.0.10 gave its explore agent no list_bash; 1.0.x's has it.
      expect(offeredTools(sub).names).toEqual(["grep", "glob", "view", "bash", "read_bash", "stop_bash", ...(legacy ? [] : ["list_bash"])]);
      // The sub-agent's prompt: raw for 0.2.0 (1.0.10), wrapped as a user's message for 1.0.x.
      const subPrompt = (sub?.messages as Array<{ role: string; content: unknown }>).find((message) => message.role === "user")?.content as string;
      const prompt = events.find((event) => event.type === "user.message" && (event.data as { source?: string }).source?.startsWith("agent-"));
      if (legacy) {
        expect(subPrompt).not.toMatch(/^<current_datetime>/);
      } else {
        expect(subPrompt).toMatch(/^<current_datetime>[^<]+<\/current_datetime>\n\n\S/);
        expect((prompt?.data as { transformedContent?: string }).transformedContent).toBe(subPrompt);
      }
    });
  });

  it("plan mode marks each prompt [[PLAN]]; 1.0.x also gets a mode_changed_notice on entering it, with session.mode_notice_delivered", async () => {
    await forEachGeneration(["plain-reply"], async (open, legacy) => {
      const { session, events } = await open(theWorld().env);
      await session.rpc.mode.set({ mode: "plan" });
      await session.sendAndWait({ prompt: "Plan it" }, 30_000);
      await session.sendAndWait({ prompt: "And again" }, 30_000);
      const lastUserText = (index: number) => {
        const messages = (theWorld().model.requests[index]?.body as { messages: Array<{ role: string; content: unknown }> }).messages;
        return messages.filter((message) => message.role === "user").at(-1)?.content as string;
      };
      const first = lastUserText(0).replace(/^<current_datetime>[^<]+<\/current_datetime>\n\n/, "");
      if (legacy) expect(first).toBe("[[PLAN]] Plan it");
      else expect(first).toMatch(/^<mode_changed_notice>\n\n<plan_mode>\n[\s\S]+\n<\/plan_mode>\n\n<\/mode_changed_notice>\n\n\[\[PLAN\]\] Plan it$/);
      // Told once: the next message in plan mode carries the mark alone.
      expect(lastUserText(1).replace(/^<current_datetime>[^<]+<\/current_datetime>\n\n/, "")).toBe("[[PLAN]] And again");
      const types = events.map((event) => event.type);
      const notices = events.filter((event) => event.type === "session.mode_notice_delivered");
      expect(notices.map((event) => event.data)).toEqual(legacy ? [] : [{ mode: "plan" }]);
      if (!legacy) expect(types[types.indexOf("session.mode_notice_delivered") - 1]).toBe("user.message");
      // The stored message keeps what the model read, so a resumed session sends the same text.
      const stored = events.filter((event) => event.type === "user.message").map((event) => (event.data as { transformedContent?: string }).transformedContent);
      expect(stored[0]).toBe(lastUserText(0));
    });
  });

  it("a message sent with agentMode plan in an interactive session is recorded with its mode, and the model reads the prompt unchanged", async () => {
    await forEachGeneration(["plain-reply"], async (open, legacy) => {
      const { session, events } = await open(theWorld().env);
      await session.sendAndWait({ prompt: "Say mode ok.", agentMode: "plan" } as { prompt: string }, 30_000);
      const messages = (theWorld().model.requests[0]?.body as { messages: Array<{ role: string; content: unknown }> }).messages;
      const prompt = (messages.filter((message) => message.role === "user").at(-1)?.content as string).replace(/^<current_datetime>[^<]+<\/current_datetime>\n\n/, "");
      expect(prompt).toBe("Say mode ok.");
      expect(events.some((event) => event.type === "session.mode_notice_delivered")).toBe(false);
      if (!legacy) expect(events.find((event) => event.type === "user.message")?.data).toMatchObject({ agentMode: "plan" });
    });
  });

  it("plan mode offers task_complete to 1.0.x only; sql's database defaults to the session's; gpt-4.1 gets no thinking_budget", async () => {
    await forEachGeneration(["plain-reply"], async (open, legacy) => {
      const { session } = await open(theWorld().env);
      await session.rpc.mode.set({ mode: "plan" });
      await session.sendAndWait({ prompt: "Say hello" }, 30_000);
      const body = theWorld().model.requests[0]?.body;
      const offered = offeredTools(body);
      expect(offered.names).toContain("exit_plan_mode");
      expect(offered.names.includes("task_complete")).toBe(!legacy);
      expect(offered.sqlDatabase?.default).toBe("session");
      expect(body).not.toHaveProperty("thinking_budget");
    });
  });
});
