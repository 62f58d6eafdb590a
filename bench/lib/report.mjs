/**
 * Aggregation of run results, the summary table (Markdown) and the JSON report.
 * @module
 */
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { summarize } from "./stats.mjs";

/**
 * @typedef {object} MetricSummary
 * @property {string} key
 * @property {string} label
 * @property {string} unit
 * @property {ReturnType<typeof summarize>} tandem
 * @property {ReturnType<typeof summarize> | null} reference
 * @property {number | null} ratio Tandem median / reference median
 * @property {string} target
 * @property {boolean | null} met
 * @property {boolean} [info]
 */

/**
 * Summarises one metric over all runs of both targets.
 * @param {import("./scenario.mjs").Metric} metric
 * @param {Array<Record<string, number | number[]>>} tandemRuns successful runs
 * @param {Array<Record<string, number | number[]>> | null} referenceRuns null when not measured
 * @returns {MetricSummary}
 */
export function summarizeMetric(metric, tandemRuns, referenceRuns) {
  const samples = (runs) => runs.flatMap((run) => (Array.isArray(run[metric.key]) ? run[metric.key] : [run[metric.key]])).filter((value) => value !== undefined);
  const tandem = summarize(samples(tandemRuns));
  const reference = referenceRuns ? summarize(samples(referenceRuns)) : null;
  const ratio = tandem.median !== null && reference?.median ? tandem.median / reference.median : null;
  let target = "";
  let met = null;
  if (metric.ratioTarget?.max !== undefined) {
    target = `ratio ≤ ${fraction(metric.ratioTarget.max)}`;
    met = ratio === null ? null : ratio <= metric.ratioTarget.max;
  } else if (metric.ratioTarget?.min !== undefined) {
    target = `ratio ≥ ${metric.ratioTarget.min}×`;
    met = ratio === null ? null : ratio >= metric.ratioTarget.min;
  } else if (metric.absoluteTarget) {
    target = `< ${formatValue(metric.absoluteTarget.max, metric.unit)} (every run)`;
    met = tandem.max === null ? null : tandem.max < metric.absoluteTarget.max;
  }
  return { key: metric.key, label: metric.label, unit: metric.unit, tandem, reference, ratio, target, met, ...(metric.info ? { info: true } : {}) };
}

/**
 * The Markdown table of every metric.
 * @param {MetricSummary[]} rows
 * @param {boolean} withReference
 * @returns {string}
 */
export function renderTable(rows, withReference) {
  const header = withReference
    ? ["Scenario", "Tandem median (min–max)", "Reference median (min–max)", "Tandem / ref", "Target", "Met"]
    : ["Scenario", "Tandem median (min–max)", "n", "Target", "Met"];
  const lines = [`| ${header.join(" | ")} |`, `| ${header.map(() => "---").join(" | ")} |`];
  for (const row of rows) {
    const tandem = cell(row.tandem, row.unit);
    const met = row.met === null ? (row.target ? "n/a" : "") : row.met ? "yes" : "**no**";
    if (withReference) {
      const reference = row.reference ? cell(row.reference, row.unit) : "–";
      const ratio = row.ratio === null ? "–" : formatRatio(row.ratio);
      lines.push(`| ${row.label} | ${tandem} | ${reference} | ${ratio} | ${row.target} | ${met} |`);
    } else {
      const target = row.target.startsWith("ratio") ? `(${row.target})` : row.target;
      lines.push(`| ${row.label} | ${tandem} | ${row.tandem.n} | ${target} | ${row.target.startsWith("ratio") ? "n/a" : met} |`);
    }
  }
  return lines.join("\n");
}

/**
 * Writes the JSON report atomically (a `.tmp` file, then a rename).
 * @param {string} path
 * @param {unknown} report
 */
export function writeReport(path, report) {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(report, null, 2)}\n`);
  renameSync(temporary, path);
}

/**
 * @param {ReturnType<typeof summarize>} summary
 * @param {string} unit
 */
function cell(summary, unit) {
  if (summary.median === null) return "failed";
  if (summary.n === 1) return formatValue(summary.median, unit);
  return `${formatValue(summary.median, unit)} (${formatNumber(summary.min, unit)}–${formatNumber(summary.max, unit)})`;
}

/**
 * A value with its unit.
 * @param {number} value
 * @param {string} unit
 */
export function formatValue(value, unit) {
  if (unit === "ms" && value >= 1000) return `${(value / 1000).toFixed(value >= 10_000 ? 1 : 2)} s`;
  return unit === "count" ? formatNumber(value, unit) : `${formatNumber(value, unit)} ${unit}`;
}

/**
 * @param {number} value
 * @param {string} unit
 */
function formatNumber(value, unit) {
  if (unit === "ms" && value >= 1000) return `${(value / 1000).toFixed(value >= 10_000 ? 1 : 2)} s`;
  if (unit === "count" || unit === "ev/s") return Math.round(value).toLocaleString("en-US");
  if (Math.abs(value) >= 100) return value.toFixed(0);
  if (Math.abs(value) >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

/** @param {number} ratio */
function formatRatio(ratio) {
  if (ratio >= 1) return `${ratio.toFixed(ratio >= 10 ? 1 : 2)}×`;
  return `1/${(1 / ratio).toFixed(1 / ratio >= 10 ? 0 : 1)}`;
}

/** @param {number} value */
function fraction(value) {
  return value < 1 ? `1/${Math.round(1 / value)}` : String(value);
}
