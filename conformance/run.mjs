/**
 * `npm run conformance`: runs every scenario through the reference runtime and through Tandem,
 * with the official SDK 0.2.0 and 1.0.x, diffs the normalised model requests and session events,
 * and writes `conformance/REPORT.md` and `conformance/report.json`.
 *
 * Environment: `CONFORMANCE_SCENARIOS=plain,bash` (a subset), `CONFORMANCE_SDKS=sdk-0.2`,
 * `CONFORMANCE_OUT=<dir>` (where the report goes), `CONFORMANCE_KEEP=1` (keep state folders),
 * `BENCH_REFERENCE_CLI=<path>` (another reference entry, as for the bench).
 * @module
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { findReference } from "../bench/lib/reference.mjs";
import { repoRoot, tandemCli } from "../bench/lib/paths.mjs";
import { brokenReferenceRuleId, explain } from "./lib/allowed.mjs";
import { diffEvents, diffRequests } from "./lib/diff.mjs";
import { normalizeEvents, normalizeRequest, schemaEventTypes } from "./lib/normalize.mjs";
import { renderReport } from "./lib/report.mjs";
import { runScenario } from "./lib/run.mjs";
import { loadScenarios } from "./lib/scenarios.mjs";
import { sdkAdapters } from "./lib/sdks.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));
const outDir = process.env.CONFORMANCE_OUT ?? here;
const started = Date.now();
const log = (line) => process.stderr.write(`${line}\n`);

const reference = findReference(log);
if (!reference.available || !reference.cliPath) {
  log(`conformance: the reference runtime cannot run here: ${reference.reason}`);
  process.exit(2);
}
const tandemVersion = JSON.parse(readFileSync(join(repoRoot, "packages/runtime/package.json"), "utf8")).version;
const targets = {
  reference: { id: /** @type {const} */ ("reference"), cliPath: reference.cliPath, env: reference.env },
  tandem: { id: /** @type {const} */ ("tandem"), cliPath: tandemCli, env: reference.env },
};
const wantedSdks = process.env.CONFORMANCE_SDKS?.split(",").map((id) => id.trim());
const sdks = sdkAdapters().filter((sdk) => !wantedSdks || wantedSdks.includes(sdk.id));
const scenarios = await loadScenarios();
const schemaTypes = schemaEventTypes();

/** @type {import("./lib/report.mjs").Comparison[]} */
const comparisons = [];
const raw = [];
for (const scenario of scenarios) {
  for (const sdk of sdks) {
    const runs = {};
    for (const target of [targets.reference, targets.tandem]) runs[target.id] = await runScenario(scenario, target, sdk);
    const comparison = compare(scenario, sdk.id, runs.reference, runs.tandem);
    comparisons.push(comparison);
    raw.push({ scenario: scenario.id, sdk: sdk.id, runs });
    const open = comparison.divergences.filter((item) => !item.rule).length;
    log(`${scenario.id.padEnd(14)} ${sdk.id}  ${comparison.status.padEnd(9)} open ${open}, allowed ${comparison.divergences.length - open}  (ref ${runs.reference.ms} ms, tandem ${runs.tandem.ms} ms)`);
  }
}

const notesPath = join(here, "NOTES.md");
const meta = {
  reference: { version: reference.version ?? "?", how: reference.how ?? "" },
  tandem: { version: tandemVersion, revision: gitRevision() },
  sdks: sdks.map((sdk) => ({ id: sdk.id, version: sdk.version })),
  bundledRuntime: bundledRuntimeVersion(),
  date: new Date().toISOString().slice(0, 10),
  seconds: Math.round((Date.now() - started) / 1000),
};
writeFileSync(join(outDir, "REPORT.md"), renderReport(meta, comparisons, existsSync(notesPath) ? readFileSync(notesPath, "utf8") : ""));
const compact = comparisons.map(({ sequence, otherRequests, ...rest }) => ({
  ...rest,
  otherRequests: { reference: [...new Set(otherRequests.reference)], tandem: [...new Set(otherRequests.tandem)] },
}));
writeFileSync(join(outDir, "report.json"), `${JSON.stringify({ meta, comparisons: compact }, null, 1)}\n`);
if (process.env.CONFORMANCE_RAW) writeFileSync(process.env.CONFORMANCE_RAW, JSON.stringify(raw, null, 1));
log(`conformance: ${comparisons.length} comparisons in ${meta.seconds} s; report in ${join(outDir, "REPORT.md")}`);

/**
 * @param {import("./lib/scenarios.mjs").Scenario} scenario
 * @param {string} sdk
 * @param {import("./lib/run.mjs").RunRecord} ref
 * @param {import("./lib/run.mjs").RunRecord} tandem
 * @returns {import("./lib/report.mjs").Comparison}
 */
function compare(scenario, sdk, ref, tandem) {
  const requests = diffRequests(
    ref.modelRequests.map((request) => normalizeRequest(request.body, ref.paths)),
    tandem.modelRequests.map((request) => normalizeRequest(request.body, tandem.paths)),
  );
  const refEvents = normalizeEvents(ref.events, ref.paths, schemaTypes);
  const tandemEvents = normalizeEvents(tandem.events, tandem.paths, schemaTypes);
  const events = diffEvents(refEvents.events, tandemEvents.events);
  const divergences = [...requests, ...events.divergences].map((item) => ({ ...item, rule: explain(item)?.id }));
  if (JSON.stringify(ref.errors) !== JSON.stringify(tandem.errors)) {
    divergences.unshift({ area: "run", key: "run.errors", text: `run errors: ref ${JSON.stringify(ref.errors)} | tandem ${JSON.stringify(tandem.errors)}`, rule: undefined });
  }
  const referenceBroken = divergences.some((item) => item.rule === "ref-0.2-permissions");
  if (referenceBroken) for (const item of divergences) item.rule ??= brokenReferenceRuleId;
  const failed = ref.errors.length > 0 || tandem.errors.length > 0;
  const open = divergences.some((item) => !item.rule);
  const status = failed ? "failed" : open ? "divergent" : divergences.length > 0 ? "allowed" : "identical";
  return {
    scenario: scenario.id,
    title: scenario.title,
    sdk,
    status,
    divergences,
    sequence: events.sequence,
    internal: refEvents.internal,
    errors: { reference: ref.errors, tandem: tandem.errors },
    otherRequests: { reference: ref.otherRequests, tandem: tandem.otherRequests },
    ms: { reference: ref.ms, tandem: tandem.ms },
    referenceBroken,
  };
}

/** The commit Tandem was built from (`+dirty` with uncommitted runtime changes). */
function gitRevision() {
  try {
    return execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: repoRoot, encoding: "utf8" }).trim();
  } catch {
    return "unknown";
  }
}

/** The runtime version the 1.0.x SDK would spawn by default (its bundled `copilot-runtime`). */
function bundledRuntimeVersion() {
  try {
    const source = readFileSync(join(repoRoot, "node_modules/copilot-sdk-v1/dist/cliVersion.js"), "utf8");
    return /COPILOT_CLI_VERSION = "([^"]+)"/.exec(source)?.[1] ?? "unknown";
  } catch {
    return "unknown";
  }
}
