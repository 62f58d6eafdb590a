#!/usr/bin/env node
/**
 * `npm run bench`: every scenario against Tandem and, when it can run here, the reference runtime
 * (the official Copilot CLI), both driven by the official SDK and the same fake model server.
 * Runs are interleaved (Tandem, reference, Tandem, reference, …); each run starts fresh
 * processes in a fresh state folder. Prints a table and writes `bench/results/latest.json`.
 *
 * Environment:
 * - `BENCH_RUNS=N` runs per scenario (default: each scenario's own modest count)
 * - `BENCH_SCENARIOS=1,3,5` which scenarios (default: all)
 * - `BENCH_SDK=1.0` drive both runtimes with the official SDK 1.0.x (`copilot-sdk-v1`) instead of 0.2.0
 * - `BENCH_REFERENCE=0` Tandem only; `BENCH_REFERENCE_CLI=<path>` a specific reference entry
 * - `BENCH_BASELINE_DIR=<checkout>/packages/runtime` an A/B of two Tandem builds: that build takes
 *   the reference's place (interleaved runs, ratios current / baseline, Tandem-only scenarios too)
 * - `BENCH_BUDGET_S=N` stop starting new runs after N seconds (default 900)
 * - `BENCH_OUT=<file>` report path (default bench/results/latest.json); `BENCH_KEEP=1` keep state folders
 * @module
 */
import { cpus, release, totalmem } from "node:os";
import { join } from "node:path";
import { now, withTimeout } from "./lib/clock.mjs";
import { RuntimeHandle, sdk } from "./lib/harness.mjs";
import { BenchModelServer } from "./lib/model-server.mjs";
import { repoRoot, resultsDir } from "./lib/paths.mjs";
import { findReference } from "./lib/reference.mjs";
import { renderTable, summarizeMetric, writeReport } from "./lib/report.mjs";
import { loadScenarios } from "./lib/scenario.mjs";
import { allScripts } from "./lib/scripts.mjs";
import { snapshotBaseline, snapshotTandem } from "./lib/tandem.mjs";

const log = (line) => process.stderr.write(`[bench] ${line}\n`);
const budgetMs = Number(process.env.BENCH_BUDGET_S ?? 900) * 1000;
const runsOverride = process.env.BENCH_RUNS ? Math.max(1, Math.min(50, Number(process.env.BENCH_RUNS))) : undefined;
const selected = process.env.BENCH_SCENARIOS ? new Set(process.env.BENCH_SCENARIOS.split(",").map((value) => Number(value.trim()))) : undefined;
const outPath = process.env.BENCH_OUT ?? join(resultsDir, "latest.json");

/** Every runtime started by the current run, stopped when the run ends (or times out). */
const live = new Set();

async function main() {
  const benchStarted = now();
  const tandem = snapshotTandem();
  const tandemVersion = tandem.version;
  log(`Tandem ${tandem.version} (${tandem.revision}), copied to ${tandem.cliPath.replace(repoRoot, "")}; driven by the official ${sdk.label} (BENCH_SDK=${sdk.id})`);
  /** @type {import("./lib/harness.mjs").Target[]} */
  const targets = [{ id: "tandem", label: `Tandem ${tandemVersion}`, cliPath: tandem.cliPath, version: tandemVersion }];
  const baseline = snapshotBaseline();
  const reference = baseline
    ? { available: true, version: `${baseline.version} (${baseline.revision})`, how: "a baseline build of Tandem (BENCH_BASELINE_DIR)", cliPath: baseline.cliPath, env: undefined, baseline: true }
    : findReference(log);
  if (reference.available) {
    targets.push({ id: "reference", label: baseline ? `Tandem ${reference.version}` : `Copilot CLI ${reference.version}`, cliPath: reference.cliPath, version: reference.version, env: reference.env, baseline: Boolean(baseline) });
    log(`reference: ${baseline ? "Tandem" : "Copilot CLI"} ${reference.version} (${reference.how})`);
  } else {
    log(`reference runtime not available: ${reference.reason}. Running Tandem only; no ratios.`);
  }
  const withReference = targets.length > 1;

  const scenarios = (await loadScenarios()).filter((scenario) => !selected || selected.has(scenario.id));
  const model = await BenchModelServer.start(allScripts());
  log(`fake model server at ${model.url}`);
  const report = {
    generatedAt: new Date().toISOString(),
    command: commandLine(),
    sdk: { id: sdk.id, version: sdk.version },
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, memoryGiB: Math.round(totalmem() / 2 ** 30), kernel: release(), node: process.version },
    tandem: { version: tandemVersion, revision: tandem.revision, cliPath: "packages/runtime/bin/tandem.js" },
    reference: reference.available ? { available: true, version: reference.version, how: reference.how } : { available: false, reason: reference.reason },
    scenarios: [],
  };
  const rows = [];
  try {
    for (const scenario of scenarios) {
      const runs = runsOverride ?? scenario.defaultRuns;
      /** @type {Record<string, Array<any>>} */
      const results = Object.fromEntries(targets.map((target) => [target.id, []]));
      for (let runIndex = 0; runIndex < runs; runIndex++) {
        for (const target of targets) {
          if (scenario.tandemOnly && target.id !== "tandem" && !target.baseline) continue;
          if (now() - benchStarted > budgetMs) {
            results[target.id].push({ skipped: "time budget (BENCH_BUDGET_S) used up" });
            continue;
          }
          const runStarted = now();
          const result = await runOnce(scenario, target, model, runIndex);
          result.durationS = Math.round((now() - runStarted) / 100) / 10;
          results[target.id].push(result);
          log(`${scenario.id}. ${scenario.name} · ${target.id} run ${runIndex + 1}/${runs} (${result.durationS} s): ${result.error ? `FAILED: ${result.error}` : brief(result.metrics)}`);
        }
      }
      const ok = (id) => (results[id] ?? []).filter((result) => result.metrics).map((result) => result.metrics);
      const summaries = scenario.metrics.map((metric) => summarizeMetric(metric, ok("tandem"), withReference && ok("reference").length > 0 ? ok("reference") : null));
      rows.push(...summaries);
      report.scenarios.push({ id: scenario.id, name: scenario.name, runs: results, metrics: summaries });
      process.stderr.write(`${renderTable(summaries, withReference)}\n`);
    }
  } finally {
    await model.stop();
  }
  report.durationS = Math.round((now() - benchStarted) / 1000);
  report.table = renderTable(rows, withReference);
  writeReport(outPath, report);
  const heading = withReference
    ? `Tandem ${tandemVersion} (${tandem.revision}) vs ${baseline ? "Tandem" : "Copilot CLI"} ${reference.version} (${reference.how}), both driven by the official ${sdk.label}; ${report.machine.cpus} CPUs, Node ${process.version}; ${report.durationS} s`
    : `Tandem ${tandemVersion} only, driven by the official ${sdk.label} — reference not run: ${reference.reason}; ${report.machine.cpus} CPUs, Node ${process.version}; ${report.durationS} s`;
  process.stdout.write(`\n${heading}\n\n${report.table}\n\nreport: ${outPath.replace(repoRoot, "")}\n`);
}

/**
 * One run of one scenario on one target, bounded in time; every runtime it started is stopped.
 * @param {import("./lib/scenario.mjs").Scenario} scenario
 * @param {import("./lib/harness.mjs").Target} target
 * @param {BenchModelServer} model
 * @param {number} runIndex
 */
async function runOnce(scenario, target, model, runIndex) {
  await model.take();
  const handles = [];
  const ctx = {
    target,
    model,
    runIndex,
    log,
    launch: async (options = {}) => {
      const handle = await RuntimeHandle.launch(target, model.url, options);
      handles.push(handle);
      live.add(handle);
      return handle;
    },
  };
  try {
    const metrics = await withTimeout(scenario.run(ctx), scenario.timeoutMs, `${scenario.name} on ${target.id}`);
    return { metrics };
  } catch (error) {
    return { error: error instanceof Error ? error.message.split("\n")[0] : String(error) };
  } finally {
    await Promise.all(handles.map((handle) => handle.stop().catch(() => undefined)));
    for (const handle of handles) live.delete(handle);
  }
}

/** @param {Record<string, number | number[]>} metrics */
function brief(metrics) {
  return Object.entries(metrics)
    .map(([key, value]) => `${key}=${Array.isArray(value) ? `[${value.map((item) => item.toFixed(1)).join(", ")}]` : value.toFixed(1)}`)
    .join(" ");
}

function commandLine() {
  const settings = ["BENCH_SDK", "BENCH_RUNS", "BENCH_SCENARIOS", "BENCH_REFERENCE", "BENCH_REFERENCE_CLI", "BENCH_BASELINE_DIR", "BENCH_SESSIONS", "BENCH_RESUME_EVENTS", "BENCH_SCALE_SESSIONS", "BENCH_TANDEM_DIR", "BENCH_TANDEM_NODE_OPTIONS"]
    .filter((name) => process.env[name])
    .map((name) => `${name}=${process.env[name]}`);
  return [...settings, "npm run bench"].join(" ");
}

for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, () => {
    log(`${signal}: stopping runtimes`);
    Promise.all([...live].map((handle) => handle.stop().catch(() => undefined))).finally(() => process.exit(130));
  });
}

main().catch((error) => {
  log(`failed: ${error instanceof Error ? error.stack : String(error)}`);
  process.exitCode = 1;
});
