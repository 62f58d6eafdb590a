/**
 * Extensions: the runtime starts `.github/extensions/<name>/extension.mjs` of the
 * session's working directory (and `<home>/extensions/<name>/extension.mjs`) as child processes
 * with `SESSION_ID` set; each calls `joinSession()` over its stdio and registers tools the agent
 * then calls. The SDK resolves without being installed (`@tandem/sdk/extension`, and
 * `@github/copilot-sdk/extension` when the official one is not installed); the official SDKs'
 * own `joinSession` works too. A crashing or hanging extension is reported and the session goes
 * on; extensions follow the foreground session and are gone when the runtime exits.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { approveAll, type CopilotClient, type SessionEvent } from "@github/copilot-sdk";
import { afterEach, describe, expect, it } from "vitest";
import { eventsOf, startWorld, waitFor, type TestWorld } from "../helpers/harness.js";
import { approveAll as v1ApproveAll, type CopilotSession as V1Session } from "copilot-sdk-v1";
import { clientVariants, officialClient, officialV1Client } from "../helpers/official-client.js";

const modulesDir = fileURLToPath(new URL("../../node_modules/", import.meta.url));
/** The official SDKs' own extension entries, imported by absolute URL (they are not installed in the temporary repository). */
const officialExtension = pathToFileURL(join(modulesDir, "@github/copilot-sdk/dist/extension.js")).href;
const officialV1Extension = pathToFileURL(join(modulesDir, "copilot-sdk-v1/dist/extension.js")).href;

let world: TestWorld | undefined;
const clients: CopilotClient[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) await client.stop().catch(() => undefined);
  await world?.dispose();
  world = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A temporary git repository; `records` is where extensions write what they saw. */
function tempRepo(): { repo: string; records: string } {
  const root = mkdtempSync(join(tmpdir(), "tandem-ext-"));
  dirs.push(root);
  const repo = join(root, "repo");
  const records = join(root, "records");
  mkdirSync(repo);
  mkdirSync(records);
  execFileSync("git", ["init", "-q", "-b", "main", repo]);
  return { repo, records };
}

/** Writes `<dir>/<name>/extension.mjs`. */
function writeExtension(dir: string, name: string, source: string): void {
  mkdirSync(join(dir, name), { recursive: true });
  writeFileSync(join(dir, name, "extension.mjs"), source);
}

/**
 * An extension that records its pid per session (`<records>/<name>-<SESSION_ID>.pid`) and registers
 * `ext_echo`, answering with the text and the session it joined.
 */
function echoExtension(name: string, sdk: string): string {
  return `
import { renameSync, writeFileSync } from "node:fs";
import { joinSession } from ${JSON.stringify(sdk)};
const record = process.env.EXT_RECORDS + "/${name}-" + process.env.SESSION_ID + ".pid";
writeFileSync(record + ".tmp", String(process.pid));
renameSync(record + ".tmp", record);
await joinSession({
  tools: [{
    name: "ext_echo",
    description: "Echoes its text",
    parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    handler: async ({ text }) => "echo:" + text + " from " + process.env.SESSION_ID + " token=" + (process.env.GH_TOKEN ?? "none"),
  }],
});
`;
}

/** Whether the extension process `pid` still runs (a zombie or a reused pid does not count). */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("extension.mjs");
  } catch {
    return false;
  }
}

/** The pid an extension recorded for a session, once the file is complete. */
function pidOf(records: string, name: string, sessionId: string): number | undefined {
  const file = join(records, `${name}-${sessionId}.pid`);
  const pid = existsSync(file) ? Number(readFileSync(file, "utf8")) : Number.NaN;
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

async function start(scripts: string[], records: string, extraEnv: Record<string, string> = {}, make = officialClient) {
  world = await startWorld(scripts, { EXT_RECORDS: records, ...extraEnv });
  const client = make(world.env);
  clients.push(client);
  return client;
}

function toolResults(events: SessionEvent[]): string[] {
  return eventsOf(events, "tool.execution_complete").map((event) => String((event.data as { result?: { content?: string } }).result?.content ?? ""));
}

describe("an extension's tool, called by the agent", () => {
  const extensionSdks = [
    { sdk: "@tandem/sdk/extension (bundled, not installed)", specifier: "@tandem/sdk/extension" },
    { sdk: "@github/copilot-sdk/extension (not installed: the bundled one)", specifier: "@github/copilot-sdk/extension" },
    { sdk: "the official SDK 0.2.0's joinSession", specifier: officialExtension },
    { sdk: "the official SDK 1.0.x's joinSession", specifier: officialV1Extension },
  ];
  it.each(extensionSdks)("extension through $sdk, application on the official SDK 0.2.0", async ({ specifier }) => {
    const { repo, records } = tempRepo();
    writeExtension(join(repo, ".github", "extensions"), "echo", echoExtension("echo", specifier));
    const client = await start(["extension-tool"], records);
    const session = await client.createSession({ onPermissionRequest: approveAll, workingDirectory: repo });
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));
    const reply = await session.sendAndWait({ prompt: "use the extension tool" }, 30_000);
    expect(reply?.data.content).toBe("The extension answered.");
    const [result] = toolResults(events);
    expect(result).toContain(`echo:hi from ${session.sessionId}`);
    // Secrets of the runtime stay out of extensions.
    expect(result).toContain("token=none");
    expect(eventsOf(events, "session.warning")).toEqual([]);
  });

  it.each(clientVariants)("application on $sdk, extension through @tandem/sdk/extension", async ({ make, approveAll: approve }) => {
    const { repo, records } = tempRepo();
    writeExtension(join(repo, ".github", "extensions"), "echo", echoExtension("echo", "@tandem/sdk/extension"));
    const client = await start(["extension-tool"], records, {}, make);
    const session = await client.createSession({ onPermissionRequest: approve, workingDirectory: repo });
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));
    const reply = await session.sendAndWait({ prompt: "use the extension tool" }, 30_000);
    expect(reply?.data.content).toBe("The extension answered.");
    expect(toolResults(events)[0]).toContain("echo:hi");
  });

  it("finds user extensions in <home>/extensions and reports every extension's status", async () => {
    const { repo, records } = tempRepo();
    world = await startWorld(["extension-tool"], { EXT_RECORDS: records });
    writeExtension(join(world.home, "extensions"), "echo", echoExtension("echo", "@tandem/sdk/extension"));
    const client = officialClient(world.env);
    clients.push(client);
    const session = await client.createSession({ onPermissionRequest: approveAll, workingDirectory: repo });
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));
    const reply = await session.sendAndWait({ prompt: "use the extension tool" }, 30_000);
    expect(reply?.data.content).toBe("The extension answered.");
    const loaded = events.filter((event) => (event.type as string) === "session.extensions_loaded").map((event) => (event.data as { extensions: unknown[] }).extensions);
    expect(loaded.at(-1)).toEqual([{ id: "user:echo", name: "echo", source: "user", status: "running" }]);
  });
});

describe("an extension's hooks", () => {
  it("run after the application's, and the stricter decision wins", async () => {
    const { repo, records } = tempRepo();
    writeExtension(
      join(repo, ".github", "extensions"),
      "guard",
      `import { joinSession } from "@tandem/sdk/extension";
await joinSession({ hooks: { onPreToolUse: async ({ toolName }) => toolName === "bash" ? { permissionDecision: "deny", permissionDecisionReason: "the extension says no" } : undefined } });
`,
    );
    const client = await start(["extension-hook"], records);
    const applicationHookCalls: string[] = [];
    const session = await client.createSession({
      onPermissionRequest: approveAll,
      workingDirectory: repo,
      hooks: {
        onPreToolUse: async (input) => {
          applicationHookCalls.push(input.toolName);
          return { permissionDecision: "allow" };
        },
      },
    });
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));
    const reply = await session.sendAndWait({ prompt: "run the listing" }, 30_000);
    expect(reply?.data.content).toBe("The extension refused.");
    expect(applicationHookCalls).toEqual(["bash"]);
    expect(eventsOf(events, "hook.end").filter((event) => event.data.hookType === "preToolUse")).toHaveLength(2);
  });
});

describe("failing extensions", () => {
  it("a crashing extension is reported and the session goes on", async () => {
    const { repo, records } = tempRepo();
    writeExtension(join(repo, ".github", "extensions"), "crash", `throw new Error("boom at start-up");\n`);
    const client = await start(["plain-reply"], records);
    const session = await client.createSession({ onPermissionRequest: approveAll, workingDirectory: repo });
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));
    const reply = await session.sendAndWait({ prompt: "hello" }, 30_000);
    expect(reply?.data.content).toBe("Hello from the scripted model.");
    const warnings = eventsOf(events, "session.warning");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.data.warningType).toBe("extension");
    expect(warnings[0]!.data.message).toMatch(/project:crash exited with code 1: .*boom at start-up/s);
  });

  it("an extension that crashes after joining takes only its tools with it", async () => {
    const { repo, records } = tempRepo();
    writeExtension(
      join(repo, ".github", "extensions"),
      "echo",
      echoExtension("echo", "@tandem/sdk/extension") + `setTimeout(() => { throw new Error("late crash"); }, 300);\n`,
    );
    const client = await start(["plain-reply"], records);
    const session = await client.createSession({ onPermissionRequest: approveAll, workingDirectory: repo });
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));
    await waitFor(() => eventsOf(events, "session.warning").length > 0, "the crash to be reported");
    expect(eventsOf(events, "session.warning")[0]!.data.message).toMatch(/project:echo exited with code 1: .*late crash/s);
    const reply = await session.sendAndWait({ prompt: "hello" }, 30_000);
    expect(reply?.data.content).toBe("Hello from the scripted model.");
    const request = world!.model.requests.at(-1)?.body as { tools?: Array<{ function: { name: string } }> };
    expect((request.tools ?? []).map((tool) => tool.function.name)).not.toContain("ext_echo");
  });

  it("an extension that never joins (and ignores SIGTERM) is reported, killed, and does not hold the session up for long", async () => {
    const { repo, records } = tempRepo();
    writeExtension(
      join(repo, ".github", "extensions"),
      "hang",
      `import { renameSync, writeFileSync } from "node:fs";
const record = process.env.EXT_RECORDS + "/hang-" + process.env.SESSION_ID + ".pid";
writeFileSync(record + ".tmp", String(process.pid));
renameSync(record + ".tmp", record);
process.on("SIGTERM", () => writeFileSync(process.env.EXT_RECORDS + "/hang-" + process.env.SESSION_ID + ".sigterm", String(Date.now())));
setInterval(() => {}, 1000);
`,
    );
    // Long enough for Node to start it and install its SIGTERM handler on a loaded machine.
    const client = await start(["plain-reply"], records, { TANDEM_EXTENSION_JOIN_TIMEOUT_MS: "2000" });
    const session = await client.createSession({ onPermissionRequest: approveAll, workingDirectory: repo });
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));
    const reply = await session.sendAndWait({ prompt: "hello" }, 30_000);
    expect(reply?.data.content).toBe("Hello from the scripted model.");
    const warnings = eventsOf(events, "session.warning");
    expect(warnings.map((warning) => warning.data.message)).toEqual(["Extension project:hang did not call joinSession() within 2000 ms; stopping it"]);
    const pid = pidOf(records, "hang", session.sessionId)!;
    expect(pid).toBeGreaterThan(0);
    // SIGTERM first: it survives it (it ignores it)…
    const sigterm = join(records, `hang-${session.sessionId}.sigterm`);
    await waitFor(() => existsSync(sigterm), "the SIGTERM to arrive");
    expect(isAlive(pid)).toBe(true);
    // …then SIGKILL, after the grace period.
    await waitFor(() => !isAlive(pid), "the hanging extension to be killed", 10_000);
  });
});

describe("lifecycle", () => {
  it("1.0.x's session.extensions.list and reload", async () => {
    const { repo, records } = tempRepo();
    writeExtension(join(repo, ".github", "extensions"), "echo", echoExtension("echo", "@tandem/sdk/extension"));
    const client = await start(["plain-reply"], records, {}, officialV1Client);
    const session = (await client.createSession({ onPermissionRequest: v1ApproveAll as never, workingDirectory: repo })) as unknown as V1Session;
    const { extensions } = await session.rpc.extensions.list();
    expect(extensions).toEqual([{ id: "project:echo", name: "echo", source: "project", status: "running", pid: expect.any(Number) }]);
    await session.rpc.extensions.reload();
    const reloaded = (await session.rpc.extensions.list()).extensions;
    expect(reloaded).toEqual([{ id: "project:echo", name: "echo", source: "project", status: "running", pid: expect.any(Number) }]);
    expect(reloaded[0]!.pid).not.toBe(extensions[0]!.pid);
    expect(isAlive(extensions[0]!.pid!)).toBe(false);

    // The application leaves the session (1.0.x disconnect = session.detach): its extensions stop.
    await session.disconnect();
    await waitFor(() => !isAlive(reloaded[0]!.pid!), "the extension to stop once the application left");
  });

  it("a session the extensions moved away from does not wait for them to stop; switches in a row start only the last session's", async () => {
    const { repo, records } = tempRepo();
    // Joins at once, then ignores SIGTERM: stopping it takes the 5 s grace period until SIGKILL.
    writeExtension(
      join(repo, ".github", "extensions"),
      "stubborn",
      `import { renameSync, writeFileSync } from "node:fs";
import { joinSession } from "@tandem/sdk/extension";
process.on("SIGTERM", () => {});
const record = process.env.EXT_RECORDS + "/stubborn-" + process.env.SESSION_ID + ".pid";
writeFileSync(record + ".tmp", String(process.pid));
renameSync(record + ".tmp", record);
await joinSession({ tools: [] });
setInterval(() => {}, 1000);
`,
    );
    const client = await start(["plain-reply"], records);
    const first = await client.createSession({ onPermissionRequest: approveAll, workingDirectory: repo });
    await waitFor(() => pidOf(records, "stubborn", first.sessionId) !== undefined, "the first session's extension to start", 20_000);
    const firstPid = pidOf(records, "stubborn", first.sessionId)!;

    // Three more sessions in a row: the extensions move on (the first one's is being stopped).
    const others = [];
    for (let index = 0; index < 3; index++) others.push(await client.createSession({ onPermissionRequest: approveAll, workingDirectory: repo }));
    const reply = await first.sendAndWait({ prompt: "hello" }, 30_000);
    expect(reply?.data.content).toBe("Hello from the scripted model.");
    // The first session's turn did not wait for its old extension to be killed.
    expect(isAlive(firstPid)).toBe(true);

    const last = others.at(-1)!;
    await waitFor(() => pidOf(records, "stubborn", last.sessionId) !== undefined, "the last session's extension to start", 20_000);
    await waitFor(() => !isAlive(firstPid), "the first session's extension to be killed", 15_000);
    // The sessions created while the first one's extension was being stopped never got theirs.
    for (const skipped of others.slice(0, -1)) expect(existsSync(join(records, `stubborn-${skipped.sessionId}.pid`))).toBe(false);
  });

  it("extensions follow the foreground session and are gone when the runtime exits", async () => {
    const { repo, records } = tempRepo();
    writeExtension(join(repo, ".github", "extensions"), "echo", echoExtension("echo", "@tandem/sdk/extension"));
    const client = await start(["plain-reply"], records);
    const first = await client.createSession({ onPermissionRequest: approveAll, workingDirectory: repo });
    await waitFor(() => pidOf(records, "echo", first.sessionId) !== undefined, "the extension to start for the first session", 20_000);
    const firstPid = pidOf(records, "echo", first.sessionId)!;

    // A second session opened without a foreground set: the extensions move to it.
    const second = await client.createSession({ onPermissionRequest: approveAll, workingDirectory: repo });
    await waitFor(() => pidOf(records, "echo", second.sessionId) !== undefined, "the extension to start for the second session", 20_000);
    await waitFor(() => !isAlive(firstPid), "the first session's extension to stop");
    const secondPid = pidOf(records, "echo", second.sessionId)!;
    expect(isAlive(secondPid)).toBe(true);

    // Setting the foreground moves them back.
    rmSync(join(records, `echo-${first.sessionId}.pid`));
    await client.setForegroundSessionId(first.sessionId);
    await waitFor(() => pidOf(records, "echo", first.sessionId) !== undefined, "the extension to restart for the foreground session", 20_000);
    await waitFor(() => !isAlive(secondPid), "the second session's extension to stop");
    const foregroundPid = pidOf(records, "echo", first.sessionId)!;
    expect(isAlive(foregroundPid)).toBe(true);

    await client.stop();
    await waitFor(() => !isAlive(foregroundPid), "the extension to be gone after the runtime exited");
  });
});
