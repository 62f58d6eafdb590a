/**
 * Opening a folder does not run its code without consent. An extension the working folder brings
 * (`.github/extensions/<name>/extension.mjs`) starts only when the application approves an
 * `extension-management` permission request (`operation: "start"`), asked once when the session
 * opens, or when the user opted in: `--allow-all` / `--yolo`, or the folder (or one above it) in
 * `trustedFolders` of `<home>/config.json`. Denied, or with a handler that fails, the extension is
 * never imported: a hostile `extension.mjs` that writes a file at import time leaves no file, and
 * the session says which extension was held back and how to allow it. The user's own extensions
 * (`<home>/extensions`) start without a question. A skill from the folder is read as text, and its
 * `allowed-tools` approve nothing unless the user trusts the folder. MCP server configs in the
 * folder are never read: only the application's `mcpServers` start servers.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { approveAll, CopilotClient, type PermissionRequest, type SessionEvent } from "@github/copilot-sdk";
import { afterEach, describe, expect, it } from "vitest";
import { eventsOf, startWorld, tandemBin, waitFor, type TestWorld } from "../helpers/harness.js";
import type { WireMessage } from "../helpers/frames.js";
import { clientVariants, officialClient, rawConnection } from "../helpers/official-client.js";
import { startTcpRuntime } from "../helpers/tcp.js";

const stdioServer = fileURLToPath(new URL("../fixtures/mcp/stdio-server.mjs", import.meta.url));

let world: TestWorld | undefined;
const clients: CopilotClient[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) await client.stop().catch(() => undefined);
  await world?.dispose();
  world = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A cloned-looking repository inside a scratch folder; `marker` is the file a hostile program writes. */
function hostileRepo(): { root: string; repo: string; marker: string } {
  const root = mkdtempSync(join(tmpdir(), "tandem-consent-"));
  dirs.push(root);
  const repo = join(root, "repo");
  mkdirSync(repo);
  execFileSync("git", ["init", "-q", "-b", "main", repo]);
  return { root, repo, marker: join(root, "ran.txt") };
}

/** An extension that writes `marker` the moment it is imported, then joins with a tool. */
function markerExtension(marker: string): string {
  return `import { appendFileSync } from "node:fs";
appendFileSync(${JSON.stringify(marker)}, "imported " + process.env.SESSION_ID + "\\n");
const { joinSession } = await import("@tandem/sdk/extension");
await joinSession({
  tools: [{
    name: "ext_echo",
    description: "Echoes its text",
    parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    handler: async ({ text }) => "echo:" + text,
  }],
});
`;
}

function writeExtension(root: string, name: string, source: string): string {
  const entry = join(root, name, "extension.mjs");
  mkdirSync(dirname(entry), { recursive: true });
  writeFileSync(entry, source);
  return entry;
}

type Loose = { type: string; data: Record<string, unknown> };

/** The extension statuses of the last `session.extensions_loaded`. */
function lastLoaded(events: SessionEvent[]): unknown[] | undefined {
  const loaded = (events as unknown as Loose[]).filter((event) => event.type === "session.extensions_loaded");
  return loaded.at(-1)?.data.extensions as unknown[] | undefined;
}

/** A permission handler that records every request and answers with `answer(request)`. */
function recordingHandler(answer: (request: PermissionRequest) => unknown) {
  const requests: PermissionRequest[] = [];
  const handler = async (request: PermissionRequest) => {
    requests.push(request);
    return answer(request) as never;
  };
  return { requests, handler };
}

const extensionRequests = (requests: PermissionRequest[]) => requests.filter((request) => (request.kind as string) === "extension-management");

/** Each client's word for "no" (1.0.x: `reject`). */
const denials: Record<string, unknown> = {
  "official SDK 0.2.0": { kind: "denied-interactively-by-user" },
  "official SDK 1.0.x": { kind: "reject" },
  "@tandem/sdk": { kind: "denied-interactively-by-user" },
};

describe("an extension from the working folder", () => {
  it.each(clientVariants)("denied through $sdk: never imported, listed as disabled, and the session says how to allow it", async ({ sdk, make }) => {
    const { repo, marker } = hostileRepo();
    const entry = writeExtension(join(repo, ".github", "extensions"), "hostile", markerExtension(marker));
    world = await startWorld(["plain-reply"]);
    const client = make(world.env);
    clients.push(client);
    const { requests, handler } = recordingHandler((request) => ((request.kind as string) === "extension-management" ? denials[sdk] : { kind: "approved" }));
    const session = await client.createSession({ onPermissionRequest: handler, workingDirectory: repo });
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));

    const first = await session.sendAndWait({ prompt: "hello" }, 30_000);
    expect(first?.data.content).toBe("Hello from the scripted model.");
    const second = await session.sendAndWait({ prompt: "again" }, 30_000);
    expect(second?.data.content).toBe("Second answer, with the whole history in view.");

    // Asked once for the session, naming the extension, its file and the folder.
    expect(extensionRequests(requests)).toEqual([
      expect.objectContaining({ kind: "extension-management", operation: "start", extensionName: "hostile", extensionId: "project:hostile", path: entry, workingDirectory: repo }),
    ]);
    expect(existsSync(marker)).toBe(false);
    const warnings = eventsOf(events, "session.warning").map((warning) => warning.data.message);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`Extension project:hostile (${entry}) was not started`);
    expect(warnings[0]).toContain("trustedFolders");
    expect(warnings[0]).toContain("--allow-all");
    expect(lastLoaded(events)).toEqual([{ id: "project:hostile", name: "hostile", source: "project", status: "disabled" }]);
    // The model never saw the extension's tool.
    const request = world.model.requests.at(-1)?.body as { tools?: Array<{ function: { name: string } }> };
    expect((request.tools ?? []).map((tool) => tool.function.name)).not.toContain("ext_echo");
  });

  it.each([
    { answer: "denied", result: { kind: "denied-interactively-by-user" }, started: false },
    { answer: "approved", result: { kind: "approved" }, started: true },
  ])("over protocol v2 (a permission.request call), $answer", async ({ result, started }) => {
    const { repo, marker } = hostileRepo();
    writeExtension(join(repo, ".github", "extensions"), "hostile", markerExtension(marker));
    world = await startWorld(["plain-reply"]);
    const client = new CopilotClient({ cliPath: tandemBin, cliArgs: ["--sdk-protocol-version", "2"], env: world.env, logLevel: "error" });
    clients.push(client);
    const { requests, handler } = recordingHandler((request) => ((request.kind as string) === "extension-management" ? result : { kind: "approved" }));
    const session = await client.createSession({ onPermissionRequest: handler, workingDirectory: repo });
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));
    const reply = await session.sendAndWait({ prompt: "hello" }, 30_000);
    expect(reply?.data.content).toBe("Hello from the scripted model.");
    expect(extensionRequests(requests)).toEqual([expect.objectContaining({ operation: "start", extensionId: "project:hostile" })]);
    if (started) {
      await waitFor(() => existsSync(marker), "the approved extension to start", 20_000);
      return;
    }
    expect(existsSync(marker)).toBe(false);
    expect(eventsOf(events, "session.warning")[0]?.data.message).toContain("project:hostile");
  });

  it("a permission handler that fails does not start it", async () => {
    const { repo, marker } = hostileRepo();
    writeExtension(join(repo, ".github", "extensions"), "hostile", markerExtension(marker));
    world = await startWorld(["plain-reply"]);
    const client = officialClient(world.env);
    clients.push(client);
    const session = await client.createSession({
      onPermissionRequest: async () => {
        throw new Error("the handler broke");
      },
      workingDirectory: repo,
    });
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));
    const reply = await session.sendAndWait({ prompt: "hello" }, 30_000);
    expect(reply?.data.content).toBe("Hello from the scripted model.");
    expect(existsSync(marker)).toBe(false);
    expect(eventsOf(events, "session.warning")[0]?.data.message).toMatch(/project:hostile .* was not started: .*nobody approved it/s);
  });

  it("the asking client gone before it answers: not started, and a client still there sees why", async () => {
    const { repo, marker } = hostileRepo();
    writeExtension(join(repo, ".github", "extensions"), "hostile", markerExtension(marker));
    world = await startWorld(["plain-reply"]);
    const runtime = await startTcpRuntime(world.env);
    try {
      const asker = await runtime.connect();
      const watcher = await runtime.connect();
      const created = await asker.request("session.create", { workingDirectory: repo, requestPermission: true });
      const sessionId = (created.result as { sessionId: string }).sessionId;
      const isEvent = (type: string) => (message: WireMessage) => message.method === "session.event" && (message.params as { event?: { type?: string } }).event?.type === type;
      const requested = await asker.waitFor(isEvent("permission.requested"));
      expect((requested.params as { event: { data: { permissionRequest: unknown } } }).event.data.permissionRequest).toMatchObject({ kind: "extension-management", extensionId: "project:hostile" });
      // A second client that does not answer permissions joins; the asker leaves without an answer.
      await watcher.request("session.resume", { sessionId, requestPermission: false });
      asker.close();
      const warning = await watcher.waitFor(isEvent("session.warning"));
      expect((warning.params as { event: { data: { message: string } } }).event.data.message).toMatch(/project:hostile .* was not started: .*nobody approved it/s);
      const listed = await watcher.request("session.extensions.list", { sessionId });
      expect((listed.result as { extensions: unknown[] }).extensions).toEqual([{ id: "project:hostile", name: "hostile", source: "project", status: "disabled" }]);
      expect(existsSync(marker)).toBe(false);
      await watcher.request("session.destroy", { sessionId });
    } finally {
      await runtime.stop();
    }
  });

  it("an application that does not answer permissions (requestPermission: false) does not start it", async () => {
    const { repo, marker } = hostileRepo();
    writeExtension(join(repo, ".github", "extensions"), "hostile", markerExtension(marker));
    world = await startWorld(["plain-reply"]);
    const client = officialClient(world.env);
    clients.push(client);
    // The official SDK always sends requestPermission: true; a raw session.create can say false.
    await client.start();
    const raw = rawConnection(client);
    const { sessionId } = (await raw.sendRequest("session.create", { workingDirectory: repo, requestPermission: false })) as { sessionId: string };
    const listed = (await raw.sendRequest("session.extensions.list", { sessionId })) as unknown as { extensions: unknown[] };
    expect(listed.extensions).toEqual([{ id: "project:hostile", name: "hostile", source: "project", status: "disabled" }]);
    expect(existsSync(marker)).toBe(false);
    // The SDK does not know this session: it is released here, before the runtime stops.
    await raw.sendRequest("session.destroy", { sessionId });
  });

  it.each(clientVariants)("approved through $sdk: it starts and the agent uses its tool", async ({ make, approveAll: approve }) => {
    const { repo, marker } = hostileRepo();
    writeExtension(join(repo, ".github", "extensions"), "echo", markerExtension(marker));
    world = await startWorld(["extension-tool"]);
    const client = make(world.env);
    clients.push(client);
    // Whether the extension had been imported when the application was asked.
    const importedWhenAsked: boolean[] = [];
    const { requests, handler } = recordingHandler((request) => {
      if ((request.kind as string) === "extension-management") importedWhenAsked.push(existsSync(marker));
      return approve(request as never, { sessionId: "" });
    });
    const session = await client.createSession({ onPermissionRequest: handler, workingDirectory: repo });
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));
    const reply = await session.sendAndWait({ prompt: "use the extension tool" }, 30_000);
    expect(reply?.data.content).toBe("The extension answered.");
    expect(extensionRequests(requests)).toHaveLength(1);
    expect(importedWhenAsked).toEqual([false]);
    expect(readFileSync(marker, "utf8")).toBe(`imported ${session.sessionId}\n`);
    expect(eventsOf(events, "session.warning")).toEqual([]);
  });
});

describe("opting in without a question", () => {
  it.each(["--allow-all", "--yolo"])("%s starts the folder's extension without asking", async (flag) => {
    const { repo, marker } = hostileRepo();
    writeExtension(join(repo, ".github", "extensions"), "echo", markerExtension(marker));
    world = await startWorld(["extension-tool"]);
    const client = new CopilotClient({ cliPath: tandemBin, cliArgs: [flag], env: world.env, logLevel: "error", useStdio: true });
    clients.push(client);
    const { requests, handler } = recordingHandler((request) => ((request.kind as string) === "extension-management" ? { kind: "denied-interactively-by-user" } : { kind: "approved" }));
    const session = await client.createSession({ onPermissionRequest: handler, workingDirectory: repo });
    const reply = await session.sendAndWait({ prompt: "use the extension tool" }, 30_000);
    expect(reply?.data.content).toBe("The extension answered.");
    expect(extensionRequests(requests)).toEqual([]);
    expect(existsSync(marker)).toBe(true);
  });

  it("a folder inside one listed in trustedFolders of <home>/config.json starts its extension without asking; others are still asked", async () => {
    const { root, repo, marker } = hostileRepo();
    writeExtension(join(repo, ".github", "extensions"), "echo", markerExtension(marker));
    const untrusted = mkdtempSync(join(tmpdir(), "tandem-untrusted-"));
    dirs.push(untrusted);
    const untrustedMarker = join(untrusted, "ran.txt");
    writeExtension(join(untrusted, ".github", "extensions"), "other", markerExtension(untrustedMarker));
    world = await startWorld(["extension-tool", "plain-reply"]);
    writeFileSync(join(world.home, "config.json"), JSON.stringify({ trustedFolders: [root] }));
    const client = officialClient(world.env);
    clients.push(client);
    const { requests, handler } = recordingHandler((request) => ((request.kind as string) === "extension-management" ? { kind: "denied-interactively-by-user" } : { kind: "approved" }));

    const trusted = await client.createSession({ onPermissionRequest: handler, workingDirectory: repo });
    const reply = await trusted.sendAndWait({ prompt: "use the extension tool" }, 30_000);
    expect(reply?.data.content).toBe("The extension answered.");
    expect(extensionRequests(requests)).toEqual([]);
    expect(existsSync(marker)).toBe(true);

    const other = await client.createSession({ onPermissionRequest: handler, workingDirectory: untrusted });
    await other.sendAndWait({ prompt: "hello" }, 30_000);
    expect(extensionRequests(requests)).toEqual([expect.objectContaining({ extensionId: "project:other", workingDirectory: untrusted })]);
    expect(existsSync(untrustedMarker)).toBe(false);
  });

  it("the user's own extensions (<home>/extensions) start without a question, next to a held-back project one", async () => {
    const { repo, marker } = hostileRepo();
    const userMarker = join(dirname(repo), "user-ran.txt");
    writeExtension(join(repo, ".github", "extensions"), "hostile", markerExtension(marker));
    world = await startWorld(["extension-tool"]);
    writeExtension(join(world.home, "extensions"), "echo", markerExtension(userMarker));
    const client = officialClient(world.env);
    clients.push(client);
    const { requests, handler } = recordingHandler((request) => ((request.kind as string) === "extension-management" ? { kind: "denied-interactively-by-user" } : { kind: "approved" }));
    const session = await client.createSession({ onPermissionRequest: handler, workingDirectory: repo });
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));
    const reply = await session.sendAndWait({ prompt: "use the extension tool" }, 30_000);
    expect(reply?.data.content).toBe("The extension answered.");
    expect(extensionRequests(requests).map((request) => (request as { extensionId?: string }).extensionId)).toEqual(["project:hostile"]);
    expect(existsSync(userMarker)).toBe(true);
    expect(existsSync(marker)).toBe(false);
    await waitFor(() => (lastLoaded(events) ?? []).some((entry) => (entry as { status?: string }).status === "running"), "the user extension to be reported running");
    expect(lastLoaded(events)).toEqual([
      { id: "user:echo", name: "echo", source: "user", status: "running" },
      { id: "project:hostile", name: "hostile", source: "project", status: "disabled" },
    ]);
  });
});

describe("a skill in the working folder", () => {
  /** `.github/skills/weather-expert/SKILL.md` in the repository, naming get_weather in allowed-tools. */
  function folderSkill(repo: string): void {
    mkdirSync(join(repo, ".github", "skills", "weather-expert"), { recursive: true });
    writeFileSync(
      join(repo, ".github", "skills", "weather-expert", "SKILL.md"),
      "---\nname: weather-expert\ndescription: Answers weather questions\nallowed-tools: [get_weather]\n---\nAlways call get_weather, then give packing advice.\n",
    );
  }

  it.each([
    { folder: "untrusted", trusted: false },
    { folder: "trusted", trusted: true },
  ])("its allowed-tools approve nothing unless the user trusts the folder ($folder)", async ({ trusted }) => {
    const { root, repo } = hostileRepo();
    folderSkill(repo);
    world = await startWorld(["skills"]);
    if (trusted) writeFileSync(join(world.home, "config.json"), JSON.stringify({ trustedFolders: [root] }));
    const client = officialClient(world.env);
    clients.push(client);
    const { requests, handler } = recordingHandler(() => ({ kind: "approved" }));
    const session = await client.createSession({
      onPermissionRequest: handler,
      workingDirectory: repo,
      skillDirectories: [".github/skills"],
      tools: [{ name: "get_weather", description: "Weather", handler: () => "cold and windy" }],
    });
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));
    const reply = await session.sendAndWait({ prompt: "What should I pack for Oslo?" }, 30_000);
    expect(reply?.data.content).toBe("Following the skill: Oslo is cold, bring a coat.");
    const warnings = eventsOf(events, "session.warning").map((warning) => warning.data.message);
    if (trusted) {
      expect(requests).toEqual([]);
      expect(warnings).toEqual([]);
      return;
    }
    expect(requests.map((request) => request.kind)).toEqual(["custom-tool"]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`Skill weather-expert (${join(repo, ".github", "skills", "weather-expert", "SKILL.md")}) comes from the working folder`);
    expect(warnings[0]).toContain("trustedFolders");
  });
});

describe("MCP server configs in the working folder", () => {
  it("are never read: their stdio command does not run, while the application's own mcpServers entry does", async () => {
    const { root, repo } = hostileRepo();
    const folderMarker = join(root, "folder-mcp-ran.jsonl");
    const appMarker = join(root, "app-mcp-ran.jsonl");
    // The fixture MCP server logs its start to MCP_FIXTURE_LOG.
    const server = (marker: string) => ({ command: process.execPath, args: [stdioServer], env: { MCP_FIXTURE_LOG: marker }, tools: ["*"] });
    const folderServer = server(folderMarker);
    // Every place a tool of the field looks for a project's MCP servers.
    for (const [file, key] of [
      [".mcp.json", "mcpServers"],
      [".vscode/mcp.json", "servers"],
      [".github/mcp.json", "mcpServers"],
      [".copilot/mcp-config.json", "mcpServers"],
      [".cursor/mcp.json", "mcpServers"],
    ] as const) {
      mkdirSync(dirname(join(repo, file)), { recursive: true });
      writeFileSync(join(repo, file), JSON.stringify({ [key]: { planted: { type: "stdio", ...folderServer } } }));
    }
    world = await startWorld(["plain-reply"]);
    const client = officialClient(world.env);
    clients.push(client);
    const session = await client.createSession({
      onPermissionRequest: approveAll,
      workingDirectory: repo,
      mcpServers: { own: server(appMarker) },
    });
    const reply = await session.sendAndWait({ prompt: "hello" }, 30_000);
    expect(reply?.data.content).toBe("Hello from the scripted model.");
    // The application's server ran (so a run would be seen); the folder's never did.
    await waitFor(() => existsSync(appMarker), "the application's MCP server to start", 20_000);
    expect(existsSync(folderMarker)).toBe(false);
  });
});
