#!/usr/bin/env node
/**
 * Profiles the Tandem runtime (not the reference) under one benchmark workload, driven by the
 * official SDK like `npm run bench`:
 *
 *   node bench/profile.mjs <workload> [--heap]
 *
 * Workloads: `start` (cold start, first create, first turn), `turns` (40 sessions with one one-line
 * turn each, scenario 3's work), `loop` (ten 20-turn tool loops),
 * `stream` (three 1 MiB streams), `concurrent` (100 sessions × 5-turn loop), `resume` (100k-event
 * resume + getMessages). The runtime runs with `--cpu-prof` (through a wrapper script); `--heap` also
 * writes a heap snapshot at the end (`--heapsnapshot-signal=SIGUSR2`). Output goes to
 * `bench/results/profiles/<workload>/` (ignored by git) and a summary is printed: self and
 * inclusive time per function, mapped to TypeScript sources through the bundle's source maps.
 * @module
 */
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sleep, withTimeout } from "./lib/clock.mjs";
import { summarizeCpuProfile } from "./lib/cpuprofile.mjs";
import { writeLargeSession } from "./lib/events-file.mjs";
import { mapLimit, modelId, RuntimeHandle, timedTurn } from "./lib/harness.mjs";
import { summarizeHeapSnapshot } from "./lib/heapsnapshot.mjs";
import { BenchModelServer } from "./lib/model-server.mjs";
import { resultsDir } from "./lib/paths.mjs";
import { allScripts, prompt } from "./lib/scripts.mjs";
import { snapshotTandem } from "./lib/tandem.mjs";

const workloads = {
  /** @param {RuntimeHandle} runtime */
  async start(runtime) {
    const session = await runtime.createSession();
    await timedTurn(session, prompt("loop2", "start"));
  },
  /** @param {RuntimeHandle} runtime */
  async loop(runtime) {
    await timedTurn(await runtime.createSession(), prompt("loop2", "warm"));
    for (let index = 0; index < Number(process.env.PROFILE_LOOPS ?? 10); index++) await timedTurn(await runtime.createSession(), prompt("loop20", `p${index}`));
  },
  /** @param {RuntimeHandle} runtime */
  async turns(runtime) {
    await timedTurn(await runtime.createSession(), prompt("plain", "warm"));
    for (let index = 0; index < Number(process.env.PROFILE_TURNS ?? 40); index++) await timedTurn(await runtime.createSession(), prompt("plain", `p${index}`));
  },
  /** @param {RuntimeHandle} runtime */
  async stream(runtime) {
    await timedTurn(await runtime.createSession({ streaming: true }), prompt("plain", "warm"));
    for (let index = 0; index < 3; index++) await timedTurn(await runtime.createSession({ streaming: true }), prompt("stream1m", `p${index}`), 150_000);
  },
  /** @param {RuntimeHandle} runtime */
  async concurrent(runtime) {
    await timedTurn(await runtime.createSession(), prompt("loop2", "warm"));
    const sessions = await mapLimit(Array.from({ length: 100 }, (_, index) => index), 10, () => runtime.createSession());
    // A second of idleness between the creates and the sends, so the profile shows where one ends.
    await sleep(1000);
    await Promise.all(sessions.map((session, index) => timedTurn(session, prompt("loop5", `p${index}`), 250_000)));
  },
  /** @param {RuntimeHandle} runtime @param {{ sessionId: string }} fixture */
  async resume(runtime, fixture) {
    const session = await runtime.client.resumeSession(fixture.sessionId, runtime.sessionConfig());
    await session.getMessages();
  },
};

const name = process.argv[2];
const heap = process.argv.includes("--heap");
if (!name || !(name in workloads)) {
  process.stderr.write(`usage: node bench/profile.mjs <${Object.keys(workloads).join("|")}> [--heap]\n`);
  process.exit(2);
}

const outDir = join(resultsDir, "profiles", name);
rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });
const nodeOptions = [`--cpu-prof`, `--cpu-prof-dir=${outDir}`, ...(heap ? [`--heapsnapshot-signal=SIGUSR2`, `--diagnostic-dir=${outDir}`] : [])];
// --cpu-prof is not allowed in NODE_OPTIONS: a wrapper script runs Node with the flags (the SDK
// executes paths that do not end in .js directly).
const tandemCli = snapshotTandem().cliPath;
const wrapper = join(outDir, "tandem-profiled.sh");
writeFileSync(wrapper, `#!/bin/sh\nexec '${process.execPath}' ${nodeOptions.map((option) => `'${option}'`).join(" ")} '${tandemCli}' "$@"\n`);
chmodSync(wrapper, 0o755);
const target = { id: "tandem", label: "Tandem", cliPath: wrapper };

let home;
let fixture;
if (name === "resume") {
  home = mkdtempSync(join(tmpdir(), "bench-profile-"));
  fixture = writeLargeSession(home, { events: 100_000, cwd: tmpdir(), model: modelId });
}
const model = await BenchModelServer.start(allScripts());
const runtime = await RuntimeHandle.launch(target, model.url, { home });
try {
  await withTimeout(workloads[name](runtime, fixture), 300_000, name);
  if (heap && runtime.pid) {
    process.kill(runtime.pid, "SIGUSR2");
    await waitForFile(outDir, ".heapsnapshot");
  }
} finally {
  await runtime.stop();
  await model.stop();
}

await waitForFile(outDir, ".cpuprofile");
for (const file of readdirSync(outDir)) {
  const path = join(outDir, file);
  if (file.endsWith(".cpuprofile")) printCpu(path);
  if (file.endsWith(".heapsnapshot")) printHeap(path);
}

/** @param {string} path */
function printCpu(path) {
  const summary = summarizeCpuProfile(path);
  const line = (value) => value.toFixed(1).padStart(9);
  const special = (key) => key.startsWith("(idle)") || key.startsWith("(program)") || key.startsWith("(garbage collector)") || key.startsWith("(root)");
  process.stdout.write(`\n${path}\nprofile ${summary.totalMs.toFixed(0)} ms; ${summary.functions.filter((row) => special(row.key)).map((row) => `${row.key.split(" ")[0]} ${row.selfMs.toFixed(0)} ms`).join(", ")}\n`);
  process.stdout.write(`\ntop self time (ms)\n`);
  for (const row of summary.functions.filter((row) => !special(row.key)).sort((a, b) => b.selfMs - a.selfMs).slice(0, 30)) process.stdout.write(`${line(row.selfMs)}  ${row.key}\n`);
  process.stdout.write(`\ntop inclusive time in packages/ (ms)\n`);
  for (const row of summary.functions.filter((row) => row.key.includes(" packages/")).sort((a, b) => b.totalMs - a.totalMs).slice(0, 30)) process.stdout.write(`${line(row.totalMs)}  ${row.key}\n`);
  process.stdout.write(`\nself time per file (ms)\n`);
  for (const row of summary.files.slice(0, 20)) process.stdout.write(`${line(row.selfMs)}  ${row.file}\n`);
}

/** @param {string} path */
function printHeap(path) {
  const summary = summarizeHeapSnapshot(path);
  process.stdout.write(`\n${path}\nheap ${(summary.totalBytes / 2 ** 20).toFixed(1)} MiB (self sizes)\n`);
  for (const group of summary.groups.slice(0, 25)) process.stdout.write(`${(group.bytes / 2 ** 20).toFixed(2).padStart(8)} MiB ${String(group.count).padStart(8)}  ${group.key}\n`);
}

/**
 * Waits until a file with this suffix exists in `dir` and its size stopped changing.
 * @param {string} dir
 * @param {string} suffix
 */
async function waitForFile(dir, suffix) {
  let lastSize = -1;
  for (let attempt = 0; attempt < 300; attempt++) {
    const file = readdirSync(dir).find((entry) => entry.endsWith(suffix));
    if (file) {
      const size = statSync(join(dir, file)).size;
      if (size > 0 && size === lastSize) return;
      lastSize = size;
    }
    await sleep(100);
  }
  process.stderr.write(`no ${suffix} appeared in ${dir}\n`);
}
