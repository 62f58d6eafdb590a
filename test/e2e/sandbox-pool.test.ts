/**
 * Sandboxed shells started ahead of time (the pool), through the built runtime and the real
 * bubblewrap: a one-off command runs in a shell that was ready before the call, under the
 * session's policy; each shell serves one command, so nothing of one command reaches the next;
 * ready shells are stopped when the sandbox is disabled, the policy changes, the session moves to
 * another folder or ends, and when the runtime is killed; aborting a command on a ready shell
 * kills it; a sandbox that fails to start after its probe is neither a hang nor a fallback.
 *
 * Which shell ran a command is told by its start time: the command prints its shell's start
 * (clock ticks since boot, the same inside the sandbox's PID namespace) and the test compares it
 * with the ready shell it saw in /proc before the call.
 */
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { startWorld, waitFor, type TestWorld } from "../helpers/harness.js";
import { beingKilled, descendants, hasExited, processName, processStat, startTicks } from "../helpers/proc.js";
import { RawClient } from "../helpers/raw-client.js";
import { eventOf, isEvent, ScriptedBash, type BashRun } from "../helpers/scripted-bash.js";

let world: TestWorld | undefined;
let client: RawClient | undefined;
let workdir: string;
let outside: string;
let server: Server | undefined;
let bash: ScriptedBash | undefined;

beforeEach(() => {
  workdir = realpathSync(mkdtempSync(join(tmpdir(), "tandem-pool-work-")));
  outside = realpathSync(mkdtempSync(join(tmpdir(), "tandem-pool-outside-")));
});

afterEach(async () => {
  await client?.close(true);
  client = undefined;
  await world?.dispose();
  world = undefined;
  if (server) await new Promise((resolve) => server?.close(resolve));
  server = undefined;
  rmSync(workdir, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

async function open(env: Record<string, string> = {}, user?: { uid: number; gid: number }): Promise<RawClient> {
  world = await startWorld([]);
  if (user) for (const folder of [world.home, workdir, outside]) chownSync(folder, user.uid, user.gid);
  client = new RawClient({ ...world.env, ...env }, [], user);
  bash = new ScriptedBash(world, client, "pool");
  return client;
}

async function createSession(sandbox: unknown): Promise<string> {
  const response = await client!.request("session.create", { workingDirectory: workdir, requestPermission: true, sandbox });
  expect(response.error).toBeUndefined();
  return (response.result as { sessionId: string }).sessionId;
}

/** One bash call of the model, approved, until the model's reply after it. */
const runBash = (sessionId: string, bashArgs: Record<string, unknown>): Promise<BashRun> => bash!.run(sessionId, bashArgs);

/** Prints the start time of the command's shell (see the file's comment). */
const printShellStart = `echo "shell-start=$(cut -d' ' -f22 /proc/$$/stat)"`;
const shellStartIn = (text: string) => Number(/shell-start=(\d+)/.exec(text)?.[1]);

/** The sandboxed shells (bash under bubblewrap) among the runtime's processes. */
function sandboxedShells(): number[] {
  const tree = descendants(client!.child.pid!);
  const outerBwraps = tree.filter((pid) => processName(pid) === "bwrap" && processName(processStat(pid)?.parent ?? 0) !== "bwrap");
  const underBwrap = new Set(outerBwraps.flatMap((pid) => descendants(pid)));
  return tree.filter((pid) => processName(pid) === "bash" && underBwrap.has(pid));
}

/** The bubblewrap, watchdog and bash processes the runtime started. */
function sandboxProcesses(): number[] {
  return descendants(client!.child.pid!).filter((pid) => ["bwrap", "bash", "sh"].includes(processName(pid) ?? ""));
}

/** Whether bash waits for its next command line (it has read everything written to it so far; Node's stdio pipes are socket pairs). */
function waitsForInput(pid: number): boolean {
  try {
    return /(pipe_read|unix_stream_read_generic)$/.test(readFileSync(`/proc/${pid}/wchan`, "utf8").trim());
  } catch {
    return false;
  }
}

/** Whether the process and its ancestors up to the runtime are alive and not being killed. */
function notDying(pid: number): boolean {
  for (let current = pid; current !== client!.child.pid; current = processStat(current)?.parent ?? 0) {
    if (current <= 1 || beingKilled(current)) return false;
  }
  return true;
}

/**
 * Waits for the one shell the session keeps ready and answers it. The shell of the command before
 * may still be in /proc for a moment after its kill (idle too): shells on their way out do not count.
 */
async function readyShell(): Promise<{ pid: number; start: number }> {
  let ready: number[] = [];
  await waitFor(() => {
    ready = sandboxedShells().filter(notDying);
    return ready.length === 1 && waitsForInput(ready[0]!);
  }, "a sandboxed shell kept ready", 30_000);
  const pid = ready[0]!;
  return { pid, start: startTicks(pid)! };
}

const sandboxOn = (extra: Record<string, unknown> = {}) => ({ enabled: true, ...extra });

it("a one-off command runs in a shell started before the call, under the session's policy, and the next one in another shell that sees nothing of it", { timeout: 180_000 }, async () => {
  server = createServer((_request, response) => response.end("hello from the host\n"));
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.address() as AddressInfo).port;
  // CI runs as root; the ready shells must work for an unprivileged runtime as well.
  const nobody = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined;
  await open({}, nobody);
  const sessionId = await createSession(sandboxOn());
  const first = await runBash(sessionId, { command: "echo cold" });
  expect(first.complete.sandboxed).toBe(true);

  const ready = await readyShell();
  const marker = `pool-${process.pid}-${Date.now()}`;
  const second = await runBash(sessionId, {
    command: [
      printShellStart,
      `echo x > ${outside}/escaped.txt 2>/dev/null || echo outside-refused`,
      `echo ok > ${workdir}/inside.txt && echo inside-written`,
      `curl -sS --max-time 5 http://127.0.0.1:${port}/ 2>/dev/null || echo network-unreachable`,
      `export POOL_SECRET=${marker}`,
      `echo ${marker} > /tmp/${marker}`,
      `echo left > /tmp/left-by-first`,
      `echo "wrote=$(cat /tmp/${marker})"`,
    ].join("; "),
  });
  expect(second.complete.sandboxed).toBe(true);
  expect(shellStartIn(second.text)).toBe(ready.start);
  for (const line of ["outside-refused", "inside-written", "network-unreachable", `wrote=${marker}`]) expect(second.text).toContain(line);
  expect(second.text).not.toContain("hello from the host");
  expect(existsSync(join(outside, "escaped.txt"))).toBe(false);
  expect(readFileSync(join(workdir, "inside.txt"), "utf8")).toBe("ok\n");
  expect(existsSync(join("/tmp", marker))).toBe(false);
  // Used once: the shell that ran the command is gone.
  await waitFor(() => hasExited(ready.pid), "the used shell to exit");

  const next = await readyShell();
  expect(next.pid).not.toBe(ready.pid);
  const third = await runBash(sessionId, { command: [printShellStart, `echo "secret=\${POOL_SECRET:-unset}"`, `test -e /tmp/${marker} || echo marker-absent`, `cat /tmp/left-by-first 2>/dev/null || echo no-file`].join("; ") });
  expect(third.complete.sandboxed).toBe(true);
  expect(shellStartIn(third.text)).toBe(next.start);
  expect(shellStartIn(third.text)).not.toBe(shellStartIn(second.text));
  expect(third.text).toContain("secret=unset");
  expect(third.text).toContain("marker-absent");
  expect(third.text).toContain("no-file");
});

it("ready shells are stopped and never used once the sandbox is disabled for the session, its policy changes at resume, or the session moves to another folder", { timeout: 180_000 }, async () => {
  await open();
  const moving = await createSession(sandboxOn());
  await runBash(moving, { command: "echo cold" });
  const beforeMove = await readyShell();
  const elsewhere = realpathSync(mkdtempSync(join(outside, "moved-")));
  expect((await client!.request("session.metadata.setWorkingDirectory", { sessionId: moving, workingDirectory: elsewhere })).error).toBeUndefined();
  await waitFor(() => hasExited(beforeMove.pid), "the shell ready in the old folder to be stopped");
  const moved = await runBash(moving, { command: [printShellStart, "pwd", `echo ok > ${elsewhere}/here.txt && echo written-in-new-folder`, `echo no > ${workdir}/old.txt 2>/dev/null || echo old-folder-refused`].join("; ") });
  expect(moved.complete.sandboxed).toBe(true);
  expect(shellStartIn(moved.text)).not.toBe(beforeMove.start);
  expect(moved.text).toContain(`${elsewhere}\n`);
  expect(moved.text).toContain("written-in-new-folder");
  expect(moved.text).toContain("old-folder-refused");
  await client!.request("session.destroy", { sessionId: moving });

  const resumed = await createSession(sandboxOn());
  await runBash(resumed, { command: "echo cold" });
  const underOldPolicy = await readyShell();
  const resume = await client!.request("session.resume", { sessionId: resumed, requestPermission: true, sandbox: sandboxOn({ allowBypass: true, userPolicy: { filesystem: { readwritePaths: [outside] } } }) });
  expect(resume.error).toBeUndefined();
  await waitFor(() => hasExited(underOldPolicy.pid), "the shell ready under the old policy to be stopped");
  const widened = await runBash(resumed, { command: [printShellStart, `echo ok > ${outside}/granted.txt && echo granted-written`].join("; ") });
  expect(widened.complete.sandboxed).toBe(true);
  expect(shellStartIn(widened.text)).not.toBe(underOldPolicy.start);
  expect(readFileSync(join(outside, "granted.txt"), "utf8")).toBe("ok\n");

  const sandboxed = await readyShell();
  expect((await client!.request("session.sandbox.disableForSession", { sessionId: resumed })).result).toEqual({ success: true });
  await waitFor(() => hasExited(sandboxed.pid), "the sandboxed shell kept ready to be stopped");
  const free = await runBash(resumed, { command: [printShellStart, `echo free > ${outside}/../pool-free-${process.pid}.txt && echo host-written`].join("; ") });
  rmSync(join(outside, "..", `pool-free-${process.pid}.txt`), { force: true });
  expect(free.complete.sandboxed).toBe(false);
  expect(free.text).toContain("host-written");
  await waitFor(() => sandboxedShells().length === 0, "no sandboxed shell left");
});

it("a session's ready shells end with the session, with the runtime killed by SIGKILL, and with the runtime exiting", { timeout: 180_000 }, async () => {
  await open();
  const ending = await createSession(sandboxOn());
  await runBash(ending, { command: "echo cold" });
  await readyShell();
  const ofSession = sandboxProcesses();
  expect(ofSession.length).toBeGreaterThanOrEqual(3);
  expect((await client!.request("session.destroy", { sessionId: ending })).error).toBeUndefined();
  await waitFor(() => ofSession.every(hasExited), "the ended session's shells to exit");

  const killed = await createSession(sandboxOn());
  await runBash(killed, { command: "echo cold" });
  await readyShell();
  const ofRuntime = sandboxProcesses();
  expect(ofRuntime.length).toBeGreaterThanOrEqual(3);
  client!.child.kill("SIGKILL");
  await waitFor(() => ofRuntime.every(hasExited), "the killed runtime's shells to exit", 30_000);
  await world!.dispose();

  await open();
  const exiting = await createSession(sandboxOn());
  await runBash(exiting, { command: "echo cold" });
  await readyShell();
  const ofExitingRuntime = sandboxProcesses();
  await client!.close();
  await waitFor(() => ofExitingRuntime.every(hasExited), "the exited runtime's shells to exit", 30_000);
});

it("aborting a command that runs on a ready shell kills the shell and what the command started", { timeout: 180_000 }, async () => {
  await open();
  const sessionId = await createSession(sandboxOn());
  await runBash(sessionId, { command: "echo cold" });
  const ready = await readyShell();
  const { callId } = await bash!.start(sessionId, { command: `${printShellStart}; sleep 300 & sleep 301` });
  const partial = await client!.waitFor((message) => isEvent("tool.execution_partial_result", callId)(message) && JSON.stringify(eventOf(message).data).includes("shell-start="), 30_000);
  expect(shellStartIn(JSON.stringify(eventOf(partial).data))).toBe(ready.start);
  const sleeping = descendants(ready.pid);
  expect(sleeping.filter((pid) => processName(pid) === "sleep").length).toBe(2);
  await client!.request("session.abort", { sessionId });
  const complete = eventOf(await client!.waitFor(isEvent("tool.execution_complete", callId), 30_000)).data as BashRun["complete"];
  expect(complete.success).toBe(false);
  await waitFor(() => hasExited(ready.pid) && sleeping.every(hasExited), "the aborted command's shell and its sleeps to exit");
});

it("when bubblewrap stops working after its probe, a call neither waits for a ready shell nor runs outside the sandbox", { timeout: 180_000 }, async () => {
  const bwrap = join(outside, "bwrap-that-breaks");
  const count = join(outside, "bwrap-starts");
  // The probe and the first call's shell get the real bubblewrap; every start after that fails as a broken host would.
  writeFileSync(
    bwrap,
    `#!/bin/sh\necho x >> ${count}\nif [ "$(wc -l < ${count})" -le 2 ]; then exec bwrap "$@"; fi\necho 'bwrap: Creating new namespace failed' >&2\nexit 1\n`,
  );
  chmodSync(bwrap, 0o755);
  await open({ TANDEM_BWRAP: bwrap });
  const sessionId = await createSession(sandboxOn());
  const first = await runBash(sessionId, { command: "echo cold" });
  expect(first.text).toContain("cold");
  const broken = await runBash(sessionId, { command: `touch ${outside}/ran-unsandboxed.txt; echo ran` });
  expect(broken.complete.sandboxed).toBe(true);
  expect(broken.text).toContain("Creating new namespace failed");
  expect(broken.text).not.toContain("ran\n");
  expect(existsSync(join(outside, "ran-unsandboxed.txt"))).toBe(false);
  await waitFor(() => sandboxedShells().length === 0, "no sandboxed shell left");
});

it("TANDEM_SANDBOX_POOL=0 keeps no shell ready; a value that is not a count from 0 to 8 is refused at start", { timeout: 120_000 }, async () => {
  await open({ TANDEM_SANDBOX_POOL: "0" });
  const sessionId = await createSession(sandboxOn());
  const run = await runBash(sessionId, { command: "echo fresh" });
  expect(run.complete.sandboxed).toBe(true);
  const second = await runBash(sessionId, { command: "echo again" });
  expect(second.text).toContain("again");
  // The used shells go (a moment after their kill); no shell is started to stay.
  await waitFor(() => sandboxProcesses().length === 0, "no sandboxed process left");
  await client!.close(true);
  await world!.dispose();

  const refused = await open({ TANDEM_SANDBOX_POOL: "lots" });
  await refused.waitClosed(30_000);
  expect(refused.child.exitCode ?? (await new Promise((resolve) => refused.child.once("exit", resolve)))).toBe(2);
  expect(refused.stderr).toContain("TANDEM_SANDBOX_POOL must be a whole number from 0 to 8");
});
