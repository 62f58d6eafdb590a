/**
 * Work an application starts in a session outside the agent loop, through the official SDK 1.0.x
 * against the real `tandem` and the scripted model server: `session.shell.exec` / `kill` (a real
 * process group, killed when the session closes), `session.shell.executeUserRequested` /
 * `cancelUserRequested` (recorded as a user-requested tool call), and `session.tasks.*` (a
 * background agent started, listed, waited for, removed; typed errors for an unknown agent type or
 * model; `false` / `null` for tasks the session does not track).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CopilotClient, RuntimeConnection, approveAll } from "copilot-sdk-v1";
import { afterEach, describe, expect, it } from "vitest";
import { startWorld, tandemBin, waitFor, type TestWorld } from "../helpers/harness.js";

let world: TestWorld | undefined;
const clients: CopilotClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) await client.forceStop();
  await world?.dispose();
  world = undefined;
});

function client(): CopilotClient {
  const created = new CopilotClient({ connection: RuntimeConnection.forStdio({ path: tandemBin }), env: world!.env, logLevel: "error" });
  clients.push(created);
  return created;
}

/** Whether a process is alive (signal 0 checks without signalling). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls an asynchronous condition until it holds (10 s at most). */
async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The persisted event types of a session. */
function persistedTypes(sessionId: string): string[] {
  const file = join(world!.home, "session-state", sessionId, "events.jsonl");
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { type: string }).type);
}

describe("session.shell.exec / kill", () => {
  it("runs a command in the given folder; kill signals a running one and is false once it ended", async () => {
    world = await startWorld([]);
    const session = await client().createSession({ onPermissionRequest: approveAll });
    const marker = join(world.home, "exec-marker.txt");
    const started = await session.rpc.shell.exec({ command: "printf '%s' \"$PWD\" > exec-marker.txt", cwd: world.home });
    expect(started.processId).toBeTruthy();
    await waitFor(() => existsSync(marker) && readFileSync(marker, "utf8").length > 0, "the command's file");
    expect(readFileSync(marker, "utf8")).toBe(world.home);

    const sleeper = await session.rpc.shell.exec({ command: "sleep 30" });
    expect(await session.rpc.shell.kill({ processId: sleeper.processId, signal: "SIGKILL" })).toEqual({ killed: true });
    // Signalling an ended process is refused; the runtime notices the end soon after the kill.
    await until(async () => !(await session.rpc.shell.kill({ processId: sleeper.processId })).killed, "the killed process to be known as ended");
    expect(await session.rpc.shell.kill({ processId: "no-such-process" })).toEqual({ killed: false });
  });

  it("kills the processes still running when the session closes", async () => {
    world = await startWorld([]);
    const session = await client().createSession({ onPermissionRequest: approveAll });
    const pidFile = join(world.home, "sleeper.pid");
    await session.rpc.shell.exec({ command: `echo $$ > '${pidFile}'; exec sleep 60` });
    await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim().length > 0, "the sleeper's pid");
    const pid = Number(readFileSync(pidFile, "utf8").trim());
    expect(alive(pid)).toBe(true);

    await session.disconnect();
    await waitFor(() => !alive(pid), "the sleeper to be killed");
  });
});

describe("session.shell.executeUserRequested / cancelUserRequested", () => {
  it("runs the command and answers its output and exit code, recorded as a user-requested tool call", async () => {
    world = await startWorld([]);
    const session = await client().createSession({ onPermissionRequest: approveAll });
    const result = await session.rpc.shell.executeUserRequested({ requestId: "req-1", command: "echo user-typed-marker; exit 3" });
    expect(result).toMatchObject({ success: false, exitCode: 3, error: "The command exited with code 3." });
    expect(result.output).toContain("user-typed-marker");
    const ok = await session.rpc.shell.executeUserRequested({ requestId: "req-2", command: "echo fine" });
    expect(ok).toMatchObject({ success: true, exitCode: 0, output: "fine\n" });
    expect(ok.toolCallId).toBeTruthy();
    const events = await session.getEvents();
    const completed = events.filter((event) => event.type === "tool.execution_complete").map((event) => event.data);
    expect(completed).toEqual([
      expect.objectContaining({ success: false, isUserRequested: true }),
      expect.objectContaining({ toolCallId: ok.toolCallId, success: true, isUserRequested: true, result: expect.objectContaining({ content: "fine\n" }) }),
    ]);
    expect(events.filter((event) => event.type === "tool.user_requested")).toHaveLength(2);
  });

  it("cancels a running command by its request id; an unknown id is not cancelled", async () => {
    world = await startWorld([]);
    const session = await client().createSession({ onPermissionRequest: approveAll });
    expect(await session.rpc.shell.cancelUserRequested({ requestId: "missing" })).toEqual({ cancelled: false });
    const marker = join(world.home, "running.txt");
    const running = session.rpc.shell.executeUserRequested({ requestId: "req-long", command: `echo running > '${marker}'; sleep 60` });
    await waitFor(() => existsSync(marker), "the command to start");
    expect(await session.rpc.shell.cancelUserRequested({ requestId: "req-long" })).toEqual({ cancelled: true });
    const result = await running;
    expect(result).toMatchObject({ success: false, exitCode: null, error: "The command was stopped (SIGKILL)." });
    expect(await session.rpc.shell.cancelUserRequested({ requestId: "req-long" })).toEqual({ cancelled: false });
  });
});

describe("session.tasks", () => {
  it("starts a background agent, lists it, waits for it, reports its progress and removes it once finished", async () => {
    world = await startWorld(["lifecycle-task-agent"]);
    const session = await client().createSession({ onPermissionRequest: approveAll });
    expect(await session.rpc.tasks.list()).toEqual({ tasks: [] });

    const { agentId } = await session.rpc.tasks.startAgent({ agentType: "general-purpose", name: "helper", prompt: "background task prompt", description: "A helper" });
    expect(agentId).toBe("helper");
    await session.rpc.tasks.waitForPending();
    const [task] = (await session.rpc.tasks.list()).tasks;
    expect(task).toMatchObject({ type: "agent", id: "helper", agentType: "general-purpose", status: "completed", prompt: "background task prompt", description: "A helper", result: "TASK_AGENT_RESULT" });
    expect((await session.rpc.tasks.getProgress({ id: "helper" })).progress).toMatchObject({ id: "helper", status: "completed", latestResponse: "TASK_AGENT_RESULT" });
    expect(await session.rpc.tasks.cancel({ id: "helper" })).toEqual({ cancelled: false });
    expect((await session.rpc.tasks.sendMessage({ id: "helper", message: "more?" })).sent).toBe(false);
    expect(await session.rpc.tasks.remove({ id: "helper" })).toEqual({ removed: true });
    expect(await session.rpc.tasks.list()).toEqual({ tasks: [] });
  });

  it("answers false, null or nothing for tasks it does not track", async () => {
    world = await startWorld([]);
    const session = await client().createSession({ onPermissionRequest: approveAll });
    expect((await session.rpc.tasks.getProgress({ id: "missing" })).progress).toBeNull();
    expect((await session.rpc.tasks.getCurrentPromotable()).task).toBeUndefined();
    expect(await session.rpc.tasks.promoteToBackground({ id: "missing" })).toEqual({ promoted: false });
    expect((await session.rpc.tasks.promoteCurrentToBackground()).task).toBeUndefined();
    expect(await session.rpc.tasks.cancel({ id: "missing" })).toEqual({ cancelled: false });
    expect(await session.rpc.tasks.remove({ id: "missing" })).toEqual({ removed: false });
    const sent = await session.rpc.tasks.sendMessage({ id: "missing", message: "hello" });
    expect(sent).toEqual({ sent: false, error: "No task with id missing." });
    expect(await session.rpc.tasks.refresh()).toEqual({});
  });

  it("refuses an unknown agent type or model with InvalidParams, and starts nothing", async () => {
    world = await startWorld([]);
    const session = await client().createSession({ onPermissionRequest: approveAll });
    await expect(session.rpc.tasks.startAgent({ agentType: "missing-type", name: "x", prompt: "hi" })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('Unknown agent type "missing-type"'),
    });
    await expect(session.rpc.tasks.startAgent({ agentType: "general-purpose", name: "x", prompt: "hi", model: "not-a-model" })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('Unknown model "not-a-model"'),
    });
    expect(await session.rpc.tasks.list()).toEqual({ tasks: [] });
    expect(persistedTypes(session.sessionId)).not.toContain("subagent.started");
  });
});
