// The sandbox's cost per one-off bash call, through the runtime's own shell code (packages/runtime/dist;
// run `npm run build` first): `ShellManager.run` of `true` in a one-off shell, as the bash tool runs it
// (lifeline watchdog, marker, kill), timed from the call to its result.
//
//   plain      the sandbox off: a fresh shell per call
//   fresh      sandboxed, no pool (TANDEM_SANDBOX_POOL=0): a fresh bubblewrap sandbox per call
//   pooled     sandboxed with the pool (default 1 ready shell): the steady state, each call made once
//              the replacement started by the previous call is ready (as between a model's turns)
//   first      the first sandboxed call of a new session: bubblewrap's probe, then a fresh sandbox
//
// Prints the median and p90 of each, the cost the sandbox adds to a one-off call in the steady state
// (pooled − plain; goal: at most 5 ms) and without the pool (fresh − plain), and the memory (RSS) of one
// ready shell's processes.
//
//   node bench/sandbox-cost.mjs            # 60 calls each, 10 first calls
//   BENCH_SHELLS=200 node bench/sandbox-cost.mjs
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const dist = new URL("../packages/runtime/dist/", import.meta.url);
const { probeBwrap } = await import(new URL("sandbox/bwrap.js", dist));
const { SessionSandbox } = await import(new URL("sandbox/session-sandbox.js", dist));
const { ShellManager } = await import(new URL("tools/builtin/shell/shell-manager.js", dist));
const shells = Number(process.env.BENCH_SHELLS ?? 60);
const firstCalls = Number(process.env.BENCH_FIRST_CALLS ?? 10);
const bwrapPath = process.env.TANDEM_BWRAP || "bwrap";

const problem = await probeBwrap(bwrapPath);
if (problem) {
  console.error(`the sandbox cannot start here: ${problem}`);
  process.exit(1);
}
const workdir = mkdtempSync(join(tmpdir(), "tandem-bench-sandbox-"));
const environment = (warmShells) => ({ bwrapPath, platform: process.platform, warmShells });

/** A session's shells: without a sandbox, or with one keeping `warmShells` ready. */
function manager(warmShells) {
  if (warmShells === undefined) return new ShellManager();
  return new ShellManager({ launcher: new SessionSandbox({ enabled: true }, workdir, environment(warmShells)) });
}

/** Milliseconds of one one-off call of `true`. */
async function call(shellManager) {
  const started = performance.now();
  const result = await shellManager.run({ command: "true", description: "bench", mode: "sync", timeoutMs: 30_000, cwd: workdir, signal: new AbortController().signal });
  const elapsed = performance.now() - started;
  if (result.kind !== "completed" || result.record.exitCode !== 0) throw new Error(`the call did not complete: ${result.kind}`);
  return elapsed;
}

function report(label, times) {
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)];
  const p90 = times[Math.floor(times.length * 0.9)];
  console.log(`${label.padEnd(8)} median ${median.toFixed(2).padStart(6)} ms   p90 ${p90.toFixed(2).padStart(6)} ms   (${times.length} calls)`);
  return median;
}

async function measure(label, warmShells) {
  const shellManager = manager(warmShells);
  try {
    for (let warm = 0; warm < 5; warm++) await call(shellManager);
    const times = [];
    for (let index = 0; index < shells; index++) {
      await shellManager.warmShellsSettled();
      times.push(await call(shellManager));
    }
    return report(label, times);
  } finally {
    await shellManager.dispose();
  }
}

/** The first sandboxed call of a new session (bubblewrap probed, nothing ready yet). */
async function measureFirst() {
  const times = [];
  for (let index = 0; index < firstCalls; index++) {
    const shellManager = manager(1);
    try {
      times.push(await call(shellManager));
    } finally {
      await shellManager.dispose();
    }
  }
  return report("first", times);
}

/** VmRSS (KiB) of `pid` and all its descendants, from /proc. */
function treeRss(pid) {
  const children = new Map();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // Gone meanwhile.
    }
  }
  const rssOf = (id) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${id}/status`, "utf8"))?.[1] ?? 0);
  const walk = (id) => [id, ...(children.get(id) ?? []).flatMap(walk)];
  return walk(pid).map((id) => ({ id, rss: rssOf(id), name: readFileSync(`/proc/${id}/comm`, "utf8").trim() }));
}

/** The memory of one ready shell: its processes (watchdog, bubblewrap, its init, bash) and their RSS. */
async function measureMemory() {
  const shellManager = manager(1);
  try {
    await call(shellManager);
    await shellManager.warmShellsSettled();
    const own = new Set([process.pid]);
    const tree = treeRss(process.pid).filter((entry) => !own.has(entry.id));
    const total = tree.reduce((sum, entry) => sum + entry.rss, 0);
    console.log(`one ready shell: ${tree.map((entry) => `${entry.name} ${(entry.rss / 1024).toFixed(1)}`).join(", ")} MiB RSS; ${(total / 1024).toFixed(1)} MiB together (shared pages counted in each)`);
  } finally {
    await shellManager.dispose();
  }
}

try {
  const plain = await measure("plain", undefined);
  const fresh = await measure("fresh", 0);
  const pooled = await measure("pooled", 1);
  const first = await measureFirst();
  await measureMemory();
  console.log(`sandbox cost per one-off bash call, steady state (pooled − plain): ${(pooled - plain).toFixed(2)} ms (goal: at most 5 ms)`);
  console.log(`without the pool (fresh − plain): ${(fresh - plain).toFixed(2)} ms; first call of a session (first − plain): ${(first - plain).toFixed(2)} ms`);
} finally {
  rmSync(workdir, { recursive: true, force: true });
}
