/**
 * Slash commands: a user message that is a known command runs instead of going to the model,
 * between `command.queued` and `command.completed` (same `requestId`); the built-ins (`/model`,
 * `/plan`, `/agent`, `/clear`, `/compact`, `/fleet`) act on the session; an application's or an
 * extension's registered command runs in that client (`command.execute`, answered with
 * `session.commands.handlePendingCommand` or `session.respondToQueuedCommand`); 1.0.x's
 * `session.commands.list` / `invoke` list and run them.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { approveAll, type CopilotClient, type CopilotSession, type SessionEvent } from "@github/copilot-sdk";
import { approveAll as v1ApproveAll, type CopilotSession as V1Session } from "copilot-sdk-v1";
import { afterEach, describe, expect, it } from "vitest";
import { eventsOf, startWorld, waitFor, type TestWorld } from "../helpers/harness.js";
import { officialClient, officialV1Client, rawConnection, tandemClient } from "../helpers/official-client.js";

let world: TestWorld | undefined;
const clients: CopilotClient[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) await client.stop().catch(() => undefined);
  await world?.dispose();
  world = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function open(make = officialClient, extraEnv: Record<string, string> = {}, config: Record<string, unknown> = {}) {
  world ??= await startWorld(["slash-commands"], extraEnv);
  const client = make(world.env);
  clients.push(client);
  const session = await client.createSession({ onPermissionRequest: make === officialV1Client ? (v1ApproveAll as never) : approveAll, ...config });
  const events: SessionEvent[] = [];
  session.on((event) => events.push(event));
  return { client, session, events };
}

type Loose = { type: string; data: Record<string, unknown> };
const typed = (events: SessionEvent[], type: string) => (events as unknown as Loose[]).filter((event) => event.type === type);

/** Sends a command as a user message and waits for its `command.completed`. */
async function runCommand(session: CopilotSession, events: SessionEvent[], text: string): Promise<string> {
  const before = typed(events, "command.completed").length;
  await session.send({ prompt: text });
  await waitFor(() => typed(events, "command.completed").length > before, `${text} to complete`);
  const queued = typed(events, "command.queued").at(-1)!;
  expect(queued.data.command).toBe(text);
  expect(typed(events, "command.completed").at(-1)!.data.requestId).toBe(queued.data.requestId);
  return queued.data.requestId as string;
}

describe.each([
  { sdk: "official SDK 0.2.0", make: officialClient },
  { sdk: "@tandem/sdk", make: tandemClient },
])("built-in commands sent as messages ($sdk)", ({ make }) => {
  it("/model switches the model without a model call; /plan switches the mode", async () => {
    const { session, events } = await open(make);
    await runCommand(session, events, "/model gpt-test-2");
    expect((await session.rpc.model.getCurrent()).modelId).toBe("gpt-test-2");
    expect(eventsOf(events, "session.model_change").at(-1)?.data.newModel).toBe("gpt-test-2");
    await runCommand(session, events, "/plan");
    expect(eventsOf(events, "session.mode_changed").at(-1)?.data.newMode).toBe("plan");
    expect(world!.model.requests).toHaveLength(0);
    // Not a turn: no user message for the model.
    expect(eventsOf(events, "user.message")).toHaveLength(0);

    // /fleet starts a turn with the fleet instructions; /compact compacts what there is.
    await runCommand(session, events, "/fleet first question");
    await waitFor(() => eventsOf(events, "session.idle").length > 0 && !!eventsOf(events, "assistant.message").length, "the fleet turn");
    expect(JSON.stringify(world!.model.requests[0]!.body)).toContain("fleet_instructions");
    await runCommand(session, events, "/compact");
    expect(eventsOf(events, "session.warning")).toEqual([]);
  });

  it("/clear empties the conversation; /compact and unknown words", async () => {
    const { session, events } = await open(make);
    await session.sendAndWait({ prompt: "first question" });
    await runCommand(session, events, "/clear");
    expect(eventsOf(events, "session.snapshot_rewind")).toHaveLength(1);
    await session.sendAndWait({ prompt: "/unknowncommand is just text" });
    const last = world!.model.requests.at(-1)!.body as { messages: Array<{ role: string; content: unknown }> };
    const userTexts = last.messages.filter((message) => message.role === "user").map((message) => JSON.stringify(message.content));
    expect(userTexts.join("\n")).not.toContain("first question");
    expect(userTexts.join("\n")).toContain("/unknowncommand is just text");
    await runCommand(session, events, "/agent no-such-agent");
    expect(eventsOf(events, "session.warning").at(-1)?.data).toMatchObject({ warningType: "command" });
    expect(String(eventsOf(events, "session.warning").at(-1)?.data.message)).toContain("no-such-agent");
  });
});

describe.each([
  { sdk: "official SDK 1.0.x", make: officialV1Client },
  { sdk: "@tandem/sdk", make: tandemClient },
])("an application's commands (1.0.x `commands`) and session.commands.* ($sdk)", ({ make }) => {
  it("lists built-ins and the application's commands; invoke and messages run them in the application", async () => {
    const calls: Array<Record<string, unknown>> = [];
    const { session, events } = await open(make, {}, {
      commands: [
        { name: "deploy", description: "Deploys", handler: (context: Record<string, unknown>) => void calls.push({ ...context }) },
        {
          name: "broken",
          handler: () => {
            throw new Error("the deploy target is down");
          },
        },
      ],
    });
    const v1 = session as unknown as V1Session;
    const { commands } = await v1.rpc.commands.list();
    expect(commands.map((command) => `${command.kind}:${command.name}`)).toEqual(
      expect.arrayContaining(["builtin:compact", "builtin:plan", "builtin:fleet", "builtin:model", "builtin:agent", "builtin:clear", "client:deploy", "client:broken"]),
    );
    expect(commands.find((command) => command.name === "deploy")).toMatchObject({ description: "Deploys", kind: "client" });
    expect(await v1.rpc.commands.invoke({ name: "/deploy", input: "production" })).toEqual({ kind: "completed" });
    expect(calls).toEqual([{ sessionId: session.sessionId, command: "/deploy production", commandName: "deploy", args: "production" }]);
    expect(await v1.rpc.commands.invoke({ name: "model", input: "" })).toEqual({ kind: "text", text: expect.stringContaining("Current model") });
    await expect(v1.rpc.commands.invoke({ name: "broken", input: "" })).rejects.toThrow(/the deploy target is down/);
    // As a message: queued, run in the application, completed.
    await runCommand(session, events, "/deploy staging");
    expect(calls.at(-1)).toEqual({ sessionId: session.sessionId, command: "/deploy staging", commandName: "deploy", args: "staging" });
    // A handler that throws: the command completes with a warning carrying its message.
    await runCommand(session, events, "/broken now");
    expect(eventsOf(events, "session.warning").map((event) => event.data)).toEqual([
      expect.objectContaining({ warningType: "command", message: expect.stringContaining("the deploy target is down") }),
    ]);
    expect(world!.model.requests).toHaveLength(0);
  });
});

describe("the older respondToQueuedCommand (official SDK 1.0.x)", () => {
  it("a queued command is answered with session.respondToQueuedCommand (the older name)", async () => {
    let heard: ((requestId: string) => void) | undefined;
    const { client, session, events } = await open(officialV1Client, {}, {
      commands: [{ name: "slow", handler: () => new Promise(() => undefined) }],
    });
    void heard;
    await session.send({ prompt: "/slow" });
    await waitFor(() => typed(events, "command.queued").length === 1, "the command to be queued");
    const requestId = typed(events, "command.queued")[0]!.data.requestId as string;
    const answer = await rawConnection(client).sendRequest("session.respondToQueuedCommand", { sessionId: session.sessionId, requestId, result: { handled: true } });
    expect(answer).toEqual({ success: true });
    await waitFor(() => typed(events, "command.completed").length === 1, "the command to complete");
    expect(typed(events, "command.completed")[0]!.data.requestId).toBe(requestId);
  });
});

describe.each([
  { sdk: "official SDK 1.0.x", extensionSdk: pathToFileURL(join(fileURLToPath(new URL("../../node_modules/", import.meta.url)), "copilot-sdk-v1/dist/extension.js")).href },
  // Resolved by the runtime for its extensions, without installing it.
  { sdk: "@tandem/sdk", extensionSdk: "@tandem/sdk/extension" },
])("a command an extension registers ($sdk)", ({ extensionSdk }) => {
  it("runs in the extension (its joinSession), not in the application", async () => {
    const root = mkdtempSync(join(tmpdir(), "tandem-cmd-"));
    dirs.push(root);
    const repo = join(root, "repo");
    mkdirSync(join(repo, ".github", "extensions", "greeter"), { recursive: true });
    execFileSync("git", ["init", "-q", repo]);
    const record = join(root, "greeted.txt");
    const sdk = extensionSdk;
    writeFileSync(
      join(repo, ".github", "extensions", "greeter", "extension.mjs"),
      `import { writeFileSync } from "node:fs";
import { joinSession } from ${JSON.stringify(sdk)};
await joinSession({ commands: [{ name: "greet", description: "Greets", handler: ({ args }) => writeFileSync(${JSON.stringify(record)}, "hello " + args) }] });
`,
    );
    const { session, events } = await open(officialClient, {}, { workingDirectory: repo });
    // The first send waits for the extension to join.
    await session.sendAndWait({ prompt: "first question" });
    await runCommand(session, events, "/greet world");
    expect(existsSync(record) && readFileSync(record, "utf8")).toBe("hello world");
    expect(eventsOf(events, "session.warning")).toEqual([]);
  });
});
