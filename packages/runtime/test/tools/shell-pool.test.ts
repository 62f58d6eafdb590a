/**
 * The pool of ready sandboxed shells with real bubblewrap processes: concurrent one-off calls,
 * several ready shells, the idle timeout, and a plan that changed under it.
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { SessionSandbox } from "../../src/sandbox/session-sandbox.js";
import { ShellManager } from "../../src/tools/builtin/shell/shell-manager.js";
import { ShellPool } from "../../src/tools/builtin/shell/shell-pool.js";
import { SHELL_ARGS, ShellProcess } from "../../src/tools/builtin/shell/shell-process.js";

let workdir: string;
const environment = (warmShells: number) => ({ bwrapPath: process.env.TANDEM_BWRAP || "bwrap", platform: process.platform, warmShells });

beforeEach(() => {
  workdir = realpathSync(mkdtempSync(join(tmpdir(), "tandem-pool-unit-")));
});

afterEach(() => {
  rmSync(workdir, { recursive: true, force: true });
});

/** Whether a process runs (a zombie waiting to be reaped counts as gone). */
function alive(pid: number): boolean {
  try {
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

async function until(predicate: () => boolean, what: string): Promise<void> {
  const started = Date.now();
  while (!predicate()) {
    if (Date.now() - started > 30_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const oneOff = (command: string) => ({ command, description: "pool", mode: "sync" as const, timeoutMs: 30_000, cwd: workdir, signal: new AbortController().signal });

it("concurrent one-off calls each get a shell of their own, ready or fresh, and all run sandboxed", { timeout: 60_000 }, async () => {
  const shells = new ShellManager({ launcher: new SessionSandbox({ enabled: true }, workdir, environment(2)) });
  try {
    await shells.run(oneOff("true"));
    await shells.warmShellsSettled();
    // Each writes the same /tmp file and reads it back after the others wrote theirs: every shell has its own /tmp.
    const results = await Promise.all([1, 2, 3, 4].map((index) => shells.run(oneOff(`echo call-${index} > /tmp/mine; sleep 0.2; cat /tmp/mine`))));
    for (const [index, result] of results.entries()) {
      expect(result.kind).toBe("completed");
      if (result.kind !== "completed") continue;
      expect(result.record.sandboxed).toBe(true);
      expect(result.record.output.textFrom(0).trim()).toBe(`call-${index + 1}`);
    }
  } finally {
    await shells.dispose();
  }
});

it("keeps as many shells ready as configured, stops them after the idle time, and starts them again at the next call", { timeout: 60_000 }, async () => {
  const sandbox = new SessionSandbox({ enabled: true }, workdir, environment(2));
  const started: ShellProcess[] = [];
  const pool = new ShellPool({
    size: 2,
    idleMs: 200,
    start: (plan, cwd) => {
      const shell = new ShellProcess({ shellPath: "bash", cwd, env: process.env, launch: plan });
      started.push(shell);
      return shell;
    },
  });
  try {
    const plan = await sandbox.plan("bash", SHELL_ARGS, { cwd: workdir });
    expect(pool.take(plan, workdir)).toBeUndefined();
    pool.refill();
    expect(pool.count).toBe(2);
    await pool.whenSettled();
    const taken = pool.take(plan, workdir);
    expect(taken).toBe(started[0]);
    taken?.kill();
    pool.refill();
    expect(started).toHaveLength(3);
    await pool.whenSettled();
    const ready = started.slice(1);
    await until(() => pool.count === 0, "the idle shells to be stopped");
    await until(() => ready.every((shell) => !alive(shell.pid!)), "the idle shells' processes to exit");
    expect(pool.take(plan, workdir)).toBeUndefined();
    pool.refill();
    expect(pool.count).toBe(2);
  } finally {
    pool.dispose();
    await sandbox.dispose();
  }
});

it("a plan that differs from the ready shells' (another policy or folder) stops them and is served fresh", { timeout: 60_000 }, async () => {
  const sandbox = new SessionSandbox({ enabled: true }, workdir, environment(1));
  const started: ShellProcess[] = [];
  const pool = new ShellPool({
    size: 1,
    start: (plan, cwd) => {
      const shell = new ShellProcess({ shellPath: "bash", cwd, env: process.env, launch: plan });
      started.push(shell);
      return shell;
    },
  });
  try {
    const plan = await sandbox.plan("bash", SHELL_ARGS, { cwd: workdir });
    pool.take(plan, workdir);
    pool.refill();
    await pool.whenSettled();
    const widened = new SessionSandbox({ enabled: true, userPolicy: { filesystem: { readwritePaths: [tmpdir()] } } }, workdir, environment(1));
    const other = await widened.plan("bash", SHELL_ARGS, { cwd: workdir });
    expect(pool.take(other, workdir)).toBeUndefined();
    expect(pool.count).toBe(0);
    await until(() => !alive(started[0]!.pid!), "the shell of the old plan to exit");
    expect(pool.take(plan, join(workdir, ".."))).toBeUndefined();
    await widened.dispose();
  } finally {
    pool.dispose();
    await sandbox.dispose();
  }
});
