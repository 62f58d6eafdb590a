/**
 * The scenario contract and the list of scenarios.
 * @module
 */

/**
 * @typedef {object} Metric
 * @property {string} key
 * @property {string} label shown in the table
 * @property {string} unit ms, MiB, ev/s, count
 * @property {"lower" | "higher"} better
 * @property {{ max?: number, min?: number }} [ratioTarget] Tandem / reference must be <= max or >= min
 * @property {{ max: number }} [absoluteTarget] Tandem alone: every run's value must be < max
 * @property {boolean} [info] supporting figure (no ratio shown in the summary)
 */

/**
 * @typedef {object} RunContext
 * @property {import("./harness.mjs").Target} target
 * @property {import("./model-server.mjs").BenchModelServer} model
 * @property {number} runIndex
 * @property {(options?: { home?: string }) => Promise<import("./harness.mjs").RuntimeHandle>} launch
 *   starts the target (stopped by the runner after the run, also on timeout)
 * @property {(line: string) => void} log
 */

/**
 * @typedef {object} Scenario
 * @property {number} id
 * @property {string} name
 * @property {number} defaultRuns
 * @property {number} timeoutMs per run
 * @property {Metric[]} metrics
 * @property {(ctx: RunContext) => Promise<Record<string, number | number[]>>} run one run: fresh process(es)
 */

/** @returns {Promise<Scenario[]>} every scenario, in order */
export async function loadScenarios() {
  const names = ["s1-cold-start", "s2-session-create", "s3-one-turn", "s4-tool-loop", "s5-streaming", "s6-concurrent", "s7-resume", "s8-memory", "s9-long-session", "s10-scale"];
  const modules = await Promise.all(names.map((name) => import(`../scenarios/${name}.mjs`)));
  return modules.map((module) => module.default);
}
