/**
 * The Markdown report: a summary table, then per scenario and SDK what diverged (unexplained
 * first, then the allowed ones with their rule), the aligned event sequence and the reference's
 * internal events that were not compared.
 * @module
 */
import { allowRules } from "./allowed.mjs";

/**
 * @typedef {object} Comparison
 * @property {string} scenario
 * @property {string} title
 * @property {string} sdk
 * @property {string} status identical | allowed | divergent | failed
 * @property {Array<import("./diff.mjs").Divergence & { rule?: string }>} divergences
 * @property {string[]} sequence
 * @property {Record<string, number>} internal reference events outside the SDK schema
 * @property {{ reference: string[], tandem: string[] }} errors
 * @property {{ reference: string[], tandem: string[] }} otherRequests
 * @property {{ reference: number, tandem: number }} ms
 * @property {boolean} [referenceBroken] the reference failed its own permission flow
 */

/**
 * @param {{ reference: { version: string, how: string }, tandem: { version: string, revision: string }, sdks: Array<{ id: string, version: string }>, bundledRuntime: string, date: string, seconds: number }} meta
 * @param {Comparison[]} comparisons
 * @param {string} notes extra Markdown (the triage of the remaining divergences)
 */
export function renderReport(meta, comparisons, notes) {
  const lines = [];
  lines.push("# Conformance report", "");
  lines.push(
    `Reference ${meta.reference.version} (${meta.reference.how}) vs Tandem ${meta.tandem.version} (${meta.tandem.revision}), driven by ${meta.sdks.map((sdk) => `official SDK ${sdk.version}`).join(" and ")}; ` +
      `the 1.0.x SDK's own bundled runtime is ${meta.bundledRuntime} (older than the reference used). Generated ${meta.date} in ${meta.seconds} s by \`npm run conformance\`.`,
    "",
    "Both runtimes run each scenario in a fresh state folder against the same scripted model (testkit `ModelServer`, Copilot API mode: `COPILOT_API_URL`, " +
      "`COPILOT_DEBUG_GITHUB_API_URL` serving `/copilot_internal/user`, token through `--auth-token-env`). Compared, normalised: the model request bodies " +
      "(parameters, messages with roles and content, tool results' text, tool names, order and parameter schemas without descriptions; the system prompt only by presence and outline) " +
      "and the session events declared by the 1.0.x SDK schema (order, ephemeral flag, data; ids, times, temp paths and measured numbers replaced). " +
      "Events outside the SDK schema (the reference's `model.*` diagnostics) are counted, not compared.",
    "",
  );
  const common = commonDivergences(comparisons);
  lines.push("## Summary", "");
  const sdkIds = [...new Set(comparisons.map((comparison) => comparison.sdk))];
  lines.push(`| scenario | ${sdkIds.join(" | ")} |`, `| --- | ${sdkIds.map(() => "---").join(" | ")} |`);
  for (const scenario of [...new Set(comparisons.map((comparison) => comparison.scenario))]) {
    const cells = sdkIds.map((sdk) => {
      const comparison = comparisons.find((item) => item.scenario === scenario && item.sdk === sdk);
      if (!comparison) return "–";
      const open = comparison.divergences.filter((item) => !item.rule);
      const specific = open.filter((item) => !common.has(idOf(item))).length;
      const allowed = comparison.divergences.length - open.length;
      const status = comparison.referenceBroken ? `${comparison.status}, ref broken` : comparison.status;
      return `${status}: ${specific} specific + ${open.length - specific} common open, ${allowed} allowed`;
    });
    const title = comparisons.find((item) => item.scenario === scenario)?.title ?? scenario;
    lines.push(`| [${title}](#${scenario}) | ${cells.join(" | ")} |`);
  }
  lines.push("");
  if (notes) lines.push(notes.trim(), "");
  lines.push(
    "## Common divergences",
    "",
    `Open divergences found in at least half of the ${comparisons.length} comparisons, listed once here and left out of the scenarios below (count = comparisons).`,
    "",
    "```diff",
  );
  for (const [, entry] of [...common].sort((a, b) => b[1].comparisons - a[1].comparisons)) lines.push(`! ${entry.text} [${entry.comparisons}]`);
  lines.push("```", "");
  lines.push("## Allow-list", "", "| rule | reason |", "| --- | --- |");
  for (const rule of allowRules) lines.push(`| \`${rule.id}\` | ${rule.reason} |`);
  lines.push("");
  for (const scenario of [...new Set(comparisons.map((comparison) => comparison.scenario))]) {
    const group = comparisons.filter((comparison) => comparison.scenario === scenario);
    lines.push(`<a id="${scenario}"></a>`, `## ${group[0].title} (\`${scenario}\`)`, "");
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
  return new Map([...seen].filter(([, entry]) => entry.comparisons >= Math.ceil(comparisons.length / 2)));
}

/**
 * @param {string[]} lines
 * @param {Comparison} comparison
 * @param {Map<string, unknown>} common
 */
function renderComparison(lines, comparison, common) {
  lines.push(`### ${comparison.sdk}: ${comparison.status}`, "");
  lines.push(`Run time: reference ${comparison.ms.reference} ms, Tandem ${comparison.ms.tandem} ms.`, "");
  for (const side of /** @type {const} */ (["reference", "tandem"])) {
    if (comparison.errors[side].length > 0) lines.push(`- **${side} failed:** ${comparison.errors[side].join("; ")}`);
  }
  if (comparison.referenceBroken) lines.push("- **The reference failed its own built-in tool permission flow with this SDK** (see rule `ref-0.2-permissions`): its side is no oracle here.");
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
