#!/usr/bin/env node
/**
 * Repeatable instruction counts of the Tandem runtime under `valgrind --tool=callgrind`, driven by
 * the official SDK and the fake model like `npm run bench` (Tandem only):
 *
 *   node bench/callgrind.mjs            # start, create, 2-turn and 20-turn tool loops
 *
 * Each workload runs in a fresh runtime under callgrind (about 20 s each). Printed: instructions
 * (Ir, all threads: JIT, compiler, GC) for `start` (spawn → ping → exit), `create` (+ one
 * session.create), `loop2` / `loop20` (+ one 2- / 20-turn custom-tool loop), and the derived
 * instructions per tool turn = (loop20 − loop2) / 18; `turn1` / `turn11` (+ 1 / 11 sessions with one
 * one-line turn each, scenario 3's work) give the instructions per new session and turn. Compare two builds with
 * `BENCH_TANDEM_DIR=<checkout>/packages/runtime`; run some workloads only with
 * `BENCH_CALLGRIND=loop2,loop20`. `BENCH_CALLGRIND_NODE_OPTIONS="--single-threaded --hash-seed=1
 * --random-seed=1"` runs the runtime with those Node flags: the counts then repeat to the last digit
 * (V8's background compiles and GC threads, and its random hash seed, otherwise moved one build's
 * create between 460 and 478 M on the busy machine), for an A/B of a change smaller than that; they
 * are not comparable with counts taken without the flags.
 * Output files: `bench/results/profiles/callgrind/`.
 * @module
 */
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { RuntimeHandle, timedTurn } from "./lib/harness.mjs";
import { BenchModelServer } from "./lib/model-server.mjs";
import { resultsDir } from "./lib/paths.mjs";
import { allScripts, prompt } from "./lib/scripts.mjs";
import { snapshotTandem } from "./lib/tandem.mjs";

const outDir = join(resultsDir, "profiles", "callgrind");
rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });
const tandem = snapshotTandem();
const nodeOptions = process.env.BENCH_CALLGRIND_NODE_OPTIONS?.trim() ?? "";

/** @type {Record<string, (runtime: RuntimeHandle) => Promise<void>>} */
const workloads = {
  start: async () => undefined,
  create: async (runtime) => {
    await runtime.client.createSession(runtime.sessionConfig());
  },
  turn1: async (runtime) => {
    await timedTurn(await runtime.client.createSession(runtime.sessionConfig()), prompt("plain", "cg-0"), 600_000);
  },
  turn11: async (runtime) => {
    for (let index = 0; index <= 10; index++) await timedTurn(await runtime.client.createSession(runtime.sessionConfig()), prompt("plain", `cg-${index}`), 600_000);
  },
  loop2: async (runtime) => {
    await timedTurn(await runtime.client.createSession(runtime.sessionConfig()), prompt("loop2", "cg"), 600_000);
  },
  loop20: async (runtime) => {
    await timedTurn(await runtime.client.createSession(runtime.sessionConfig()), prompt("loop20", "cg"), 600_000);
  },
};

const model = await BenchModelServer.start(allScripts());
/** @type {Record<string, number>} */
const totals = {};
try {
  const only = process.env.BENCH_CALLGRIND ? new Set(process.env.BENCH_CALLGRIND.split(",")) : undefined;
  for (const [name, workload] of Object.entries(workloads)) {
    if (only && !only.has(name)) continue;
    const outFile = join(outDir, `${name}.out`);
    const wrapper = join(outDir, `${name}.sh`);
    writeFileSync(
      wrapper,
      `#!/bin/sh\nexec valgrind --tool=callgrind --smc-check=all-non-file --callgrind-out-file='${outFile}' '${process.execPath}' ${nodeOptions} '${tandem.cliPath}' "$@" 2>/dev/null\n`,
    );
    chmodSync(wrapper, 0o755);
    const runtime = await RuntimeHandle.launch({ id: "tandem", label: "Tandem", cliPath: wrapper }, model.url, { timeoutMs: 300_000 });
    try {
      await workload(runtime);
    } finally {
      await runtime.stop();
    }
    totals[name] = readTotal(outFile);
    process.stdout.write(`${name.padEnd(7)} ${formatIr(totals[name])}\n`);
  }
} finally {
  await model.stop();
}
const line = (label, value) => (Number.isFinite(value) ? `${label}${formatIr(value)}\n` : "");
process.stdout.write(
  `\nTandem ${tandem.version} (${tandem.revision})${nodeOptions ? ` with ${nodeOptions}` : ""}\n` +
    line("start (spawn → ping → exit): ", totals.start) +
    line("one session.create:           ", totals.create - totals.start) +
    line("per tool turn:                ", (totals.loop20 - totals.loop2) / 18) +
    line("per new session + one turn:   ", (totals.turn11 - totals.turn1) / 10) +
    (totals.loop20 ? `\ntop functions of loop20 (self Ir):\n${top(join(outDir, "loop20.out"))}\n` : ""),
);

/**
 * The total Ir of a callgrind output file.
 * @param {string} file
 */
function readTotal(file) {
  const text = readFileSync(file, "utf8");
  const match = /^(?:summary|totals):\s+(\d+)/m.exec(text);
  if (!match) throw new Error(`no totals in ${file}`);
  return Number(match[1]);
}

/** @param {number} value */
function formatIr(value) {
  return `${(value / 1e6).toFixed(1)} M instructions`;
}

/**
 * The first lines of `callgrind_annotate` (native symbols; JIT-compiled JavaScript shows as ???).
 * @param {string} file
 */
function top(file) {
  try {
    const text = execFileSync("callgrind_annotate", [file], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
    const lines = text.split("\n").filter((line) => /^\s*[\d,]+ \(/.test(line) && !line.includes("PROGRAM TOTALS"));
    return lines.slice(0, 15).map((line) => line.slice(0, 170)).join("\n");
  } catch (error) {
    return `(callgrind_annotate failed: ${error.message})`;
  }
}
