/**
 * What the model sees, as the reference runtime (1.0.102, observed under the official SDK 1.0.14)
 * shows it: a throwing custom tool reported with a fixed text, attachments in the prompt, the
 * built-in tool set of SDK sessions (no report_intent; sql; task_complete / exit_plan_mode by
 * mode) and the per-session sql store. Driven by the official SDKs 0.2.0 and 1.0.x and by ours.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CopilotClient as Official02Client, approveAll as approve02 } from "@github/copilot-sdk";
import { CopilotClient as TandemClient, approveAll as approveTandem } from "@tandem/sdk";
import { ModelServer } from "@tandem/testkit";
import { CopilotClient as OfficialV1Client, RuntimeConnection, approveAll as approveV1 } from "copilot-sdk-v1";
import { afterEach, describe, expect, it } from "vitest";
import { scriptsDir, tandemBin } from "../helpers/harness.js";

interface AnyEvent {
  type: string;
  data: Record<string, unknown>;
}
interface AnySession {
  sessionId: string;
  on(handler: (event: AnyEvent) => void): void;
  sendAndWait(options: { prompt: string; attachments?: unknown[] }, timeout?: number): Promise<{ data: { content: string } } | undefined>;
  rpc: { mode: { set(params: { mode: string }): Promise<unknown> } };
}
interface AnyClient {
  createSession(config: Record<string, unknown>): Promise<AnySession>;
  resumeSession(sessionId: string, config: Record<string, unknown>): Promise<AnySession>;
  stop(): Promise<unknown>;
}

const variants: Array<{ sdk: string; make(env: Record<string, string>): AnyClient; approveAll: unknown }> = [
  { sdk: "official SDK 0.2.0", make: (env) => new Official02Client({ cliPath: tandemBin, env, logLevel: "error" }) as unknown as AnyClient, approveAll: approve02 },
  {
    sdk: "official SDK 1.0.x",
    make: (env) => new OfficialV1Client({ connection: RuntimeConnection.forStdio({ path: tandemBin, env }), logLevel: "error" }) as unknown as AnyClient,
    approveAll: approveV1,
  },
  { sdk: "@tandem/sdk", make: (env) => new TandemClient({ env, logLevel: "error" }) as unknown as AnyClient, approveAll: approveTandem },
];

/** A 1×1 PNG. */
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

interface World {
  model: ModelServer;
  home: string;
  project: string;
  env: Record<string, string>;
}
let world: World | undefined;
const clients: AnyClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) await client.stop();
  await world?.model.stop();
  if (world) rmSync(world.home, { recursive: true, force: true });
  world = undefined;
});

/** A fake model listing a model that takes images and one that does not, and a project folder. */
async function startWorld(script: string): Promise<World> {
  const model = new ModelServer({ models: [{ id: "gpt-4.1", vision: true }, { id: "text-only", vision: false }] });
  model.loadScriptFile(join(scriptsDir, `${script}.yaml`));
  const { url } = await model.start();
  const home = mkdtempSync(join(tmpdir(), "tandem-prompt-"));
  const project = join(home, "project");
  mkdirSync(project);
  const env = { PATH: process.env.PATH ?? "", HOME: home, COPILOT_HOME: home, COPILOT_API_URL: url, GH_TOKEN: "test-token", TANDEM_RETRY_BASE_MS: "10" };
  world = { model, home, project, env };
  return world;
}

function client(make: (env: Record<string, string>) => AnyClient): AnyClient {
  if (!world) throw new Error("start the world first");
  const made = make(world.env);
  clients.push(made);
  return made;
}

type WireMessage = { role: string; content: unknown; tool_call_id?: string };
function messagesOf(index: number): WireMessage[] {
  const body = world?.model.requests.filter((request) => request.path.endsWith("/chat/completions"))[index]?.body as { messages: WireMessage[] } | undefined;
  if (!body) throw new Error(`no model request #${index}`);
  return body.messages;
}
function toolNamesOf(index: number): string[] {
  const body = world?.model.requests.filter((request) => request.path.endsWith("/chat/completions"))[index]?.body as { tools?: Array<{ function: { name: string } }> };
  return (body.tools ?? []).map((tool) => tool.function.name);
}
/** The datetime the runtime put in front of a prompt, made fixed for comparison. */
function withoutDatetime(text: string): string {
  return text.replace(/<current_datetime>[^<]*<\/current_datetime>/g, "<current_datetime>T</current_datetime>");
}

describe.each(variants)("$sdk: what the model sees", ({ sdk, make, approveAll }) => {
  it("a custom tool that throws: the model is told only that it failed; the event keeps the real error", async () => {
    await startWorld("tool-throws");
    const session = await client(make).createSession({
      onPermissionRequest: approveAll,
      tools: [
        {
          name: "flaky",
          description: "Always fails",
          parameters: { type: "object", properties: {} },
          handler: () => {
            throw new Error("database is on fire at /home/alice/.secrets/token=abc123");
          },
        },
      ],
    });
    const events: AnyEvent[] = [];
    session.on((event) => events.push(event));
    await session.sendAndWait({ prompt: "Use the flaky tool" });

    const toolMessage = messagesOf(1).find((message) => message.role === "tool");
    expect(toolMessage?.content).toBe("Failed to execute `flaky` tool with arguments: {} due to error: Error: Tool execution failed");
    const complete = events.find((event) => event.type === "tool.execution_complete");
    expect(complete?.data).toMatchObject({ success: false, error: { code: "failure" } });
    expect(String((complete?.data.error as { message: string }).message)).toContain("database is on fire");
  });

  it("attachments: files and directories as tagged paths, a selection before the prompt, GitHub blocks, images as image parts; a resumed session sends the same", async () => {
    const { project } = await startWorld("attachments");
    writeFileSync(join(project, "notes.txt"), "one\ntwo\nthree\n");
    mkdirSync(join(project, "src"));
    writeFileSync(join(project, "src", "a.ts"), "a");
    writeFileSync(join(project, "src", "b.ts"), "b");
    const permissions: unknown[] = [];
    const first = client(make);
    const session = await first.createSession({
      model: "gpt-4.1",
      workingDirectory: project,
      onPermissionRequest: (request: unknown) => (permissions.push(request), { kind: "approved" }),
    });
    const events: AnyEvent[] = [];
    session.on((event) => events.push(event));
    await session.sendAndWait({
      prompt: "Look at these",
      attachments: [
        { type: "file", path: join(project, "notes.txt"), displayName: "notes" },
        { type: "directory", path: join(project, "src"), displayName: "src" },
        { type: "file", path: join(project, "gone.txt"), displayName: "gone" },
        { type: "selection", filePath: join(project, "notes.txt"), displayName: "notes.txt", text: "two", selection: { start: { line: 1, character: 0 }, end: { line: 1, character: 3 } } },
        { type: "blob", data: PNG, mimeType: "image/png", displayName: "screen.png" },
        { type: "github_reference", number: 7, title: "Crash on start", referenceType: "issue", state: "open", url: "https://github.com/o/r/issues/7" },
      ],
    });

    const expectedText =
      "<ide_selection>\nThe user has the following text selected in their IDE. This may or may not be related to their request.\nFile: notes.txt (line 2)\n```\ntwo\n```\n</ide_selection>\n\n" +
      "<current_datetime>T</current_datetime>\n\nLook at these\n\n\n\n<tagged_files>\n" +
      `* ${join(project, "notes.txt")} (4 lines)\n* ${join(project, "src")} (2 items)\n` +
      `* ${join(project, "gone.txt")} (error: ENOENT: no such file or directory, stat '${join(project, "gone.txt")}')\n</tagged_files>\n\n` +
      "<github_references>\n#7 - Crash on start [issue] [open] (https://github.com/o/r/issues/7)\n</github_references>";
    const userMessage = messagesOf(0).find((message) => message.role === "user");
    const parts = userMessage?.content as Array<{ type: string; text?: string; image_url?: { url: string } }>;
    expect(parts.map((part) => part.type)).toEqual(["text", "text", "image_url"]);
    expect(withoutDatetime(parts[0]?.text ?? "")).toBe(expectedText);
    expect(parts[1]?.text).toBe("screen.png");
    expect(parts[2]?.image_url?.url).toBe(`data:image/png;base64,${PNG}`);
    // Only sizes are read: the content is for the model to `view` (which asks), as the reference does.
    expect(permissions).toEqual([]);

    const recorded = events.find((event) => event.type === "user.message")?.data ?? {};
    expect(recorded.content).toBe("Look at these");
    expect(withoutDatetime(String(recorded.transformedContent))).toBe(expectedText.slice(0, expectedText.indexOf("\n\n\n\n<tagged_files>")));
    expect((recorded.attachments as Array<{ taggedFilesEntry?: string }>)[0]?.taggedFilesEntry).toBe(`* ${join(project, "notes.txt")} (4 lines)`);

    // A new process rebuilds the same first message from the stored event.
    await first.stop();
    const resumed = await client(make).resumeSession(session.sessionId, { onPermissionRequest: approveAll });
    await resumed.sendAndWait({ prompt: "Still there?" });
    expect(messagesOf(1).find((message) => message.role === "user")).toEqual(userMessage);
  });

  it("an image for a model without vision: not sent, and the text says so", async () => {
    await startWorld("attachments");
    const session = await client(make).createSession({ model: "text-only", onPermissionRequest: approveAll });
    await session.sendAndWait({ prompt: "What is this?", attachments: [{ type: "blob", data: PNG, mimeType: "image/png", displayName: "screen.png" }] });
    const content = messagesOf(0).find((message) => message.role === "user")?.content;
    expect(typeof content).toBe("string");
    expect(content).toContain("What is this?");
    expect(content).toContain("[screen.png: an image was attached, but the model does not accept images, so it was not sent.]");
  });

  it("built-in tools: report_intent for 0.2.0 only, a sql tool; exit_plan_mode only in plan mode, with task_complete for 1.0.x", async () => {
    await startWorld("plain-reply");
    const session = await client(make).createSession({ onPermissionRequest: approveAll });
    await session.sendAndWait({ prompt: "Hello" });
    const interactive = toolNamesOf(0);
    const intent = sdk === "official SDK 0.2.0" ? ["report_intent"] : [];
    expect(interactive).not.toContain("task_complete");
    expect(interactive).not.toContain("exit_plan_mode");
    expect(interactive.slice(interactive.indexOf("web_fetch"), interactive.indexOf("web_fetch") + 4 + intent.length)).toEqual(["web_fetch", ...intent, "sql", "read_agent", "list_agents"]);

    await session.rpc.mode.set({ mode: "plan" });
    await session.sendAndWait({ prompt: "Plan it" });
    const plan = toolNamesOf(1);
    // 1.0.10 (0.2.0's runtime) had no task_complete; today's runtime offers it in plan mode.
    const taskComplete = sdk === "official SDK 0.2.0" ? [] : ["task_complete"];
    expect(plan.slice(plan.indexOf("sql"), plan.indexOf("sql") + 4 + taskComplete.length)).toEqual(["sql", ...taskComplete, "exit_plan_mode", "read_agent", "list_agents"]);
  });

  it("sql: a per-session SQLite store with the reference's result texts; todo writes emit session.todos_changed; it survives resume", async () => {
    const { home } = await startWorld("sql-todos");
    const first = client(make);
    const session = await first.createSession({ onPermissionRequest: approveAll });
    const events: AnyEvent[] = [];
    session.on((event) => events.push(event));
    const reply = await session.sendAndWait({ prompt: "Track my todos" });
    expect(reply?.data.content).toBe("Two todos are recorded.");

    const toolTexts = messagesOf(3).filter((message) => message.role === "tool").map((message) => message.content);
    expect(toolTexts).toEqual([
      "Schema operation completed successfully.",
      "2 row(s) inserted. Last inserted row ID: 2.",
      'SQL Error: Error: near "SELEC": syntax error',
    ]);
    expect(events.filter((event) => event.type === "session.todos_changed")).toHaveLength(2);
    expect(existsSync(join(home, "session-state", session.sessionId, "session.db"))).toBe(true);

    await first.stop();
    const resumed = await client(make).resumeSession(session.sessionId, { onPermissionRequest: approveAll });
    expect((await resumed.sendAndWait({ prompt: "What todos remain?" }))?.data.content).toBe("The todos survived.");
    const selected = messagesOf(5).at(-1);
    expect(selected).toMatchObject({ role: "tool", content: "2 row(s) returned:\n\n| id | title | status |\n| --- | --- | --- |\n| a | Write tests | pending |\n| b | Ship | pending |" });
  });
});
