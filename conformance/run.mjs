/**
 * `npm run conformance`: runs every scenario through each selected pair's reference runtime and
 * through Tandem with that pair's client (`lib/pairs.mjs`), diffs the normalised model requests and
 * session events, and writes `conformance/REPORT.md` and `conformance/report.json`, pair by pair.
 *
 * Environment: `CONFORMANCE_PAIRS=sdk0.2-cli1.0.10,sdk1.0-bundled` (a subset of the pairs),
 * `CONFORMANCE_SCENARIOS=plain,bash` (a subset of the scenarios), `CONFORMANCE_OUT=<dir>` (where
 * the report goes), `CONFORMANCE_RAW=<file>` (every recorded request and event),
 * `CONFORMANCE_KEEP=1` (keep state folders), `BENCH_REFERENCE_CLI=<path>` (another entry for the
 * 1.0.102 reference, as for the bench).
 *
 * Exit code: 0 when every selected pair ran; 3 when at least one pair could not run (its reference
 * or its client is missing; the report says why and covers the others); 2 when none could run.
 * @module
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { repoRoot, tandemCli } from "../bench/lib/paths.mjs";
import { explain } from "./lib/allowed.mjs";
import { diffEvents, diffRequests } from "./lib/diff.mjs";
import { normalizeEvents, normalizeRequest, schemaEventTypes } from "./lib/normalize.mjs";
import { selectPairs } from "./lib/pairs.mjs";
import { findConformanceReference } from "./lib/references.mjs";
import { renderReport, pairCounts } from "./lib/report.mjs";
import { runScenario } from "./lib/run.mjs";
import { loadScenarios } from "./lib/scenarios.mjs";
import { sdkAdapters } from "./lib/sdks.mjs";
import { roundsInCallOrder, toolResultsInCallOrder } from "./lib/unordered.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));
const outDir = process.env.CONFORMANCE_OUT ?? here;
const started = Date.now();
const log = (line) => process.stderr.write(`${line}\n`);

const pairs = selectPairs(process.env.CONFORMANCE_PAIRS);
const adapters = sdkAdapters();
/** @type {Map<string, import("./lib/references.mjs").Reference>} */
const references = new Map();
/** @type {Map<string, { available: boolean, reason?: string }>} */
const drivers = new Map();
/** @type {Array<import("./lib/pairs.mjs").Pair & { available: boolean, reason?: string }>} */
const pairStates = [];
for (const pair of pairs) {
  if (!references.has(pair.reference)) references.set(pair.reference, await findConformanceReference(pair.reference, log));
  const sdk = adapters.find((adapter) => adapter.id === pair.sdk);
  if (sdk && !drivers.has(sdk.id)) drivers.set(sdk.id, await sdk.prepare(log));
  const reference = /** @type {import("./lib/references.mjs").Reference} */ (references.get(pair.reference));
  const driver = drivers.get(pair.sdk) ?? { available: false, reason: `no driver "${pair.sdk}"` };
  const reason = !reference.available ? `${reference.label} cannot run here: ${reference.reason}` : !driver.available ? `the ${pair.sdk} driver cannot run here: ${driver.reason}` : undefined;
  if (reason) log(`conformance: pair ${pair.id} skipped: ${reason}`);
  pairStates.push({ ...pair, available: !reason, reason });
}

const tandemVersion = JSON.parse(readFileSync(join(repoRoot, "packages/runtime/package.json"), "utf8")).version;
const scenarios = await loadScenarios();
const schemaTypes = schemaEventTypes();
/** Tandem's runs, shared by the pairs that drive it with the same client. */
const tandemRuns = new Map();

/** @type {import("./lib/report.mjs").Comparison[]} */
const comparisons = [];
const raw = [];
for (const scenario of scenarios) {
  for (const pair of pairStates.filter((state) => state.available)) {
    const sdk = /** @type {import("./lib/sdks.mjs").SdkAdapter} */ (adapters.find((adapter) => adapter.id === pair.sdk));
    const reference = /** @type {import("./lib/references.mjs").Reference} */ (references.get(pair.reference));
    const referenceRun = await runScenario(scenario, { id: "reference", cliPath: /** @type {string} */ (reference.cliPath), env: reference.env }, sdk);
    const tandemKey = `${scenario.id}\u0000${sdk.id}`;
    if (!tandemRuns.has(tandemKey)) tandemRuns.set(tandemKey, await runScenario(scenario, { id: "tandem", cliPath: tandemCli, env: {} }, sdk));
    const tandemRun = tandemRuns.get(tandemKey);
    const comparison = compare(scenario, pair, referenceRun, tandemRun);
    comparisons.push(comparison);
    raw.push({ scenario: scenario.id, pair: pair.id, runs: { reference: referenceRun, tandem: tandemRun } });
    const open = comparison.divergences.filter((item) => !item.rule).length;
    log(`${scenario.id.padEnd(14)} ${pair.id.padEnd(18)} ${comparison.status.padEnd(9)} open ${open}, allowed ${comparison.divergences.length - open}  (ref ${referenceRun.ms} ms, tandem ${tandemRun.ms} ms)`);
  }
}

const notesPath = join(here, "NOTES.md");
const meta = {
  tandem: { version: tandemVersion, revision: gitRevision() },
  sdks: [...drivers.keys()].map((id) => ({ id, version: adapters.find((adapter) => adapter.id === id)?.version ?? "?" })),
  references: [...references.values()].map(({ id, label, available, reason, version, how }) => ({ id, label, available, reason, version, how })),
  pairs: pairStates.map(({ id, sdk, reference, title, available, reason }) => ({ id, sdk, reference, title, available, reason })),
  date: new Date().toISOString().slice(0, 10),
  seconds: Math.round((Date.now() - started) / 1000),
};
writeFileSync(join(outDir, "REPORT.md"), renderReport(meta, comparisons, existsSync(notesPath) ? readFileSync(notesPath, "utf8") : ""));
const compact = comparisons.map(({ sequence, otherRequests, ...rest }) => ({
  ...rest,
  otherRequests: { reference: [...new Set(otherRequests.reference)], tandem: [...new Set(otherRequests.tandem)] },
}));
const counts = Object.fromEntries(pairStates.map((pair) => [pair.id, pairCounts(comparisons.filter((comparison) => comparison.pair === pair.id))]));
writeFileSync(join(outDir, "report.json"), `${JSON.stringify({ meta, counts, comparisons: compact }, null, 1)}\n`);
if (process.env.CONFORMANCE_RAW) writeFileSync(process.env.CONFORMANCE_RAW, JSON.stringify(raw, null, 1));
for (const pair of pairStates) {
  const line = pair.available ? JSON.stringify(counts[pair.id]) : `not run: ${pair.reason}`;
  log(`conformance: ${pair.id}: ${line}`);
}
log(`conformance: ${comparisons.length} comparisons in ${meta.seconds} s; report in ${join(outDir, "REPORT.md")}`);
const ran = pairStates.filter((pair) => pair.available).length;
process.exitCode = ran === 0 ? 2 : ran < pairStates.length ? 3 : 0;

/**
 * @param {import("./lib/scenarios.mjs").Scenario} scenario
 * @param {import("./lib/pairs.mjs").Pair} pair
 * @param {import("./lib/run.mjs").RunRecord} ref
 * @param {import("./lib/run.mjs").RunRecord} tandem
 * @returns {import("./lib/report.mjs").Comparison}
 */
function compare(scenario, pair, ref, tandem) {
  // A scenario whose rounds of parallel calls run in no fixed order compares each round as a set.
  const body = scenario.unorderedRounds ? toolResultsInCallOrder : (value) => value;
  const recorded = scenario.unorderedRounds ? roundsInCallOrder : (value) => value;
  const requests = diffRequests(
    ref.modelRequests.map((request) => normalizeRequest(body(request.body), ref.paths)),
    tandem.modelRequests.map((request) => normalizeRequest(body(request.body), tandem.paths)),
  );
  const refEvents = normalizeEvents(recorded(ref.events), ref.paths, schemaTypes);
  const tandemEvents = normalizeEvents(recorded(tandem.events), tandem.paths, schemaTypes);
  const events = diffEvents(refEvents.events, tandemEvents.events);
  const divergences = [...requests, ...events.divergences].map((item) => ({ ...item, rule: explain(item, pair.reference, scenario.id)?.id }));
  if (JSON.stringify(ref.errors) !== JSON.stringify(tandem.errors)) {
    divergences.unshift({ area: "run", key: "run.errors", text: `run errors: ref ${JSON.stringify(ref.errors)} | tandem ${JSON.stringify(tandem.errors)}`, rule: undefined });
  }
  const failed = ref.errors.length > 0 || tandem.errors.length > 0;
  const open = divergences.some((item) => !item.rule);
  const status = failed ? "failed" : open ? "divergent" : divergences.length > 0 ? "allowed" : "identical";
  return {
    scenario: scenario.id,
    title: scenario.title,
    pair: pair.id,
    sdk: pair.sdk,
    reference: pair.reference,
    status,
    divergences,
    sequence: events.sequence,
    internal: refEvents.internal,
    errors: { reference: ref.errors, tandem: tandem.errors },
    otherRequests: { reference: ref.otherRequests, tandem: tandem.otherRequests },
    ms: { reference: ref.ms, tandem: tandem.ms },
  };
}

/** The commit Tandem was built from. */
function gitRevision() {
  try {
    return execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: repoRoot, encoding: "utf8" }).trim();
  } catch {
    return "unknown";
  }
}
