/**
 * The Markdown report: the pairs and their references, a summary table (scenario × pair), the
 * hand-written triage, then pair by pair the common divergences and per scenario what diverged
 * (unexplained first, then the allowed ones with their rule), the aligned event sequence and the
 * reference's internal events that were not compared.
 * @module
 */
import { allowRules } from "./allowed.mjs";

/**
 * @typedef {object} Comparison
 * @property {string} scenario
 * @property {string} title
 * @property {string} pair the pair's id (`lib/pairs.mjs`)
 * @property {string} sdk the driver's id
 * @property {string} reference the reference's id
 * @property {string} status identical | allowed | divergent | failed
 * @property {Array<import("./diff.mjs").Divergence & { rule?: string }>} divergences
 * @property {string[]} sequence
 * @property {Record<string, number>} internal reference events outside the SDK schema
 * @property {{ reference: string[], tandem: string[] }} errors
 * @property {{ reference: string[], tandem: string[] }} otherRequests
 * @property {{ reference: number, tandem: number }} ms
 */

/**
 * @typedef {object} ReportMeta
 * @property {{ version: string, revision: string }} tandem
 * @property {Array<{ id: string, version: string }>} sdks
 * @property {Array<{ id: string, label: string, available: boolean, reason?: string, version?: string, how?: string }>} references
 * @property {Array<{ id: string, sdk: string, reference: string, title: string, available: boolean, reason?: string }>} pairs
 * @property {string} date
 * @property {number} seconds
 */

/**
 * @typedef {object} PairCounts
 * @property {number} comparisons
 * @property {number} open divergences no rule explains
 * @property {number} allowed divergences explained by a rule
 * @property {Record<string, number>} statuses comparisons per status
 */

/**
 * Divergence counts of one pair's comparisons.
 * @param {Comparison[]} comparisons
 * @returns {PairCounts}
 * @example
 * pairCounts([]); // { comparisons: 0, open: 0, allowed: 0, statuses: {} }
 */
export function pairCounts(comparisons) {
  /** @type {PairCounts} */
  const counts = { comparisons: comparisons.length, open: 0, allowed: 0, statuses: {} };
  for (const comparison of comparisons) {
    counts.statuses[comparison.status] = (counts.statuses[comparison.status] ?? 0) + 1;
    for (const item of comparison.divergences) {
      if (item.rule) counts.allowed++;
      else counts.open++;
    }
  }
  return counts;
}

/**
 * @param {ReportMeta} meta
 * @param {Comparison[]} comparisons
 * @param {string} notes extra Markdown (the triage of the remaining divergences)
 * @returns {string}
 * @example
 * writeFileSync("REPORT.md", renderReport(meta, comparisons, readFileSync("NOTES.md", "utf8")));
 */
export function renderReport(meta, comparisons, notes) {
  const lines = [];
  lines.push("# Conformance report", "");
  lines.push(
    `Tandem ${meta.tandem.version} (${meta.tandem.revision}) against the reference runtime of each client generation, driven by ${meta.sdks.map((sdk) => `${sdk.id} ${sdk.version}`).join(", ")}. ` +
      `Generated ${meta.date} in ${meta.seconds} s by \`npm run conformance\`.`,
    "",
    "Each runtime runs each scenario in a fresh state folder against the same scripted model (testkit `ModelServer`, Copilot API mode: `COPILOT_API_URL`, " +
      "`COPILOT_DEBUG_GITHUB_API_URL` serving `/copilot_internal/user`, token through `--auth-token-env`). Compared, normalised: the model request bodies " +
      "(parameters, messages with roles and content, tool results' text, tool names, order and parameter schemas without descriptions; the system prompt only by presence and outline) " +
      "and the session events declared by the 1.0.x SDK schema (order, ephemeral flag, data; ids, times, temp paths and measured numbers replaced). " +
      "Events outside the SDK schema (the reference's `model.*` diagnostics) are counted, not compared. Events are recorded from the `onEvent` handler given to `createSession`/`resumeSession`, as an application would.",
    "",
    "## Pairs",
    "",
    "| pair | client | reference | status | comparisons | open | allowed |",
    "| --- | --- | --- | --- | --- | --- | --- |",
  );
  for (const pair of meta.pairs) {
    const reference = meta.references.find((item) => item.id === pair.reference);
    const sdkVersion = meta.sdks.find((sdk) => sdk.id === pair.sdk)?.version ?? "?";
    const referenceText = reference?.available ? `${reference.label} (${reference.how})` : (reference?.label ?? pair.reference);
    if (!pair.available) {
      lines.push(`| \`${pair.id}\` | ${pair.sdk} ${sdkVersion} | ${referenceText} | **not run**: ${pair.reason} | – | – | – |`);
      continue;
    }
    const counts = pairCounts(comparisons.filter((comparison) => comparison.pair === pair.id));
    const statuses = Object.entries(counts.statuses).map(([status, count]) => `${status} ${count}`).join(", ");
    lines.push(`| \`${pair.id}\` | ${pair.sdk} ${sdkVersion} | ${referenceText}, version ${reference?.version ?? "?"} | ${statuses} | ${counts.comparisons} | ${counts.open} | ${counts.allowed} |`);
  }
  lines.push("");
  const ranPairs = meta.pairs.filter((pair) => pair.available);
  const commons = new Map(ranPairs.map((pair) => [pair.id, commonDivergences(comparisons.filter((comparison) => comparison.pair === pair.id))]));
  lines.push("## Summary", "", `| scenario | ${ranPairs.map((pair) => `\`${pair.id}\``).join(" | ")} |`, `| --- | ${ranPairs.map(() => "---").join(" | ")} |`);
  for (const scenario of [...new Set(comparisons.map((comparison) => comparison.scenario))]) {
    const cells = ranPairs.map((pair) => {
      const comparison = comparisons.find((item) => item.scenario === scenario && item.pair === pair.id);
      if (!comparison) return "–";
      const common = commons.get(pair.id) ?? new Map();
      const open = comparison.divergences.filter((item) => !item.rule);
      const specific = open.filter((item) => !common.has(idOf(item))).length;
      const allowed = comparison.divergences.length - open.length;
      return `${comparison.status}: ${specific} specific + ${open.length - specific} common open, ${allowed} allowed`;
    });
    const title = comparisons.find((item) => item.scenario === scenario)?.title ?? scenario;
    lines.push(`| ${title} (\`${scenario}\`) | ${cells.join(" | ")} |`);
  }
  lines.push("");
  if (notes) lines.push(notes.trim(), "");
  lines.push("## Allow-list", "", "| rule | references | reason |", "| --- | --- | --- |");
  for (const rule of allowRules) {
    const where = `${rule.references?.join(", ") ?? "all"}${rule.scenarios ? ` (scenario ${rule.scenarios.join(", ")})` : ""}`;
    lines.push(`| \`${rule.id}\` | ${where} | ${rule.reason} |`);
  }
  lines.push("");
  for (const pair of ranPairs) {
    const group = comparisons.filter((comparison) => comparison.pair === pair.id);
    const common = commons.get(pair.id) ?? new Map();
    lines.push(`<a id="${pair.id}"></a>`, `## Pair \`${pair.id}\`: ${pair.title}`, "");
    lines.push(`Open divergences found in at least half of this pair's ${group.length} comparisons, listed once here and left out of the scenarios below (count = comparisons).`, "", "```diff");
    for (const [, entry] of [...common].sort((a, b) => b[1].comparisons - a[1].comparisons)) lines.push(`! ${entry.text} [${entry.comparisons}]`);
    lines.push("```", "");
    for (const comparison of group) renderComparison(lines, comparison, common);
  }
  return `${lines.join("\n")}\n`;
}

/** @param {{ key: string, text: string }} item */
function idOf(item) {
  return `${item.key}\u0000${item.text}`;
}

/**
 * Open divergences present in at least half of the comparisons.
 * @param {Comparison[]} comparisons
 * @returns {Map<string, { text: string, comparisons: number }>}
 */
function commonDivergences(comparisons) {
  /** @type {Map<string, { text: string, comparisons: number }>} */
  const seen = new Map();
  for (const comparison of comparisons) {
    for (const item of comparison.divergences) {
      if (item.rule) continue;
      const entry = seen.get(idOf(item)) ?? { text: item.text, comparisons: 0 };
      entry.comparisons++;
      seen.set(idOf(item), entry);
    }
  }
  const threshold = Math.max(2, Math.ceil(comparisons.length / 2));
  return new Map([...seen].filter(([, entry]) => entry.comparisons >= threshold));
}

/**
 * @param {string[]} lines
 * @param {Comparison} comparison
 * @param {Map<string, unknown>} common
 */
function renderComparison(lines, comparison, common) {
  lines.push(`<a id="${comparison.pair}-${comparison.scenario}"></a>`, `### ${comparison.title} (\`${comparison.scenario}\`, \`${comparison.pair}\`): ${comparison.status}`, "");
  lines.push(`Run time: reference ${comparison.ms.reference} ms, Tandem ${comparison.ms.tandem} ms.`, "");
  for (const side of /** @type {const} */ (["reference", "tandem"])) {
    if (comparison.errors[side].length > 0) lines.push(`- **${side} failed:** ${comparison.errors[side].join("; ")}`);
  }
  const allOpen = comparison.divergences.filter((item) => !item.rule);
  const open = allOpen.filter((item) => !common.has(idOf(item)));
  const allowed = comparison.divergences.filter((item) => item.rule);
  if (open.length > 0) {
    lines.push("", `Divergences (besides ${allOpen.length - open.length} common ones):`, "", "```diff");
    for (const item of open) lines.push(`! ${item.text}${item.count ? ` (×${item.count})` : ""}`);
    lines.push("```");
  }
  if (allowed.length > 0) {
    lines.push("", "<details><summary>Allowed (" + allowed.length + ")</summary>", "", "```");
    for (const item of allowed) lines.push(`[${item.rule}] ${item.text}${item.count ? ` (×${item.count})` : ""}`);
    lines.push("```", "", "</details>");
  }
  if (comparison.sequence.length > 0) {
    lines.push("", "<details><summary>Event sequence (` ` both, `-` reference only, `+` Tandem only)</summary>", "", "```diff");
    lines.push(...comparison.sequence);
    lines.push("```", "", "</details>");
  }
  const internal = Object.entries(comparison.internal);
  if (internal.length > 0) lines.push("", `Reference events outside the SDK schema (not compared): ${internal.map(([type, count]) => `${type}×${count}`).join(", ")}.`);
  const other = (side) => [...new Set(comparison.otherRequests[side])].join(", ") || "none";
  lines.push("", `Other HTTP requests: reference ${other("reference")}; Tandem ${other("tandem")}.`, "");
}
