/**
 * The scenarios: `scenarios/<id>.mjs` (a driver) with its testkit script(s) `scenarios/<id>.yaml`.
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const scenariosDir = fileURLToPath(new URL("../scenarios/", import.meta.url));

/** Scenario ids in report order. */
export const scenarioIds = [
  "plain",
  "streaming",
  "custom-tool",
  "bash",
  "files",
  "rejected",
  "ask-user",
  "abort",
  "resume",
  "multi-tool",
  "attachments",
  "plan-mode",
  "task",
  "failing-tool",
];

/**
 * @typedef {object} Scenario
 * @property {string} id
 * @property {string} title
 * @property {string[]} scripts absolute paths of its YAML scripts (`{{workdir}}` is replaced per run)
 * @property {number} [timeoutMs]
 * @property {string} [unorderedRounds] why its rounds of parallel tool calls are compared as sets (`lib/unordered.mjs`)
 * @property {(context: import("./run.mjs").ScenarioContext) => Promise<void>} run
 */

/**
 * Loads the selected scenarios (`CONFORMANCE_SCENARIOS=plain,bash` narrows the list).
 * @returns {Promise<Scenario[]>}
 */
export async function loadScenarios() {
  const wanted = process.env.CONFORMANCE_SCENARIOS?.split(",").map((id) => id.trim()).filter(Boolean);
  const ids = wanted?.length ? scenarioIds.filter((id) => wanted.includes(id)) : scenarioIds;
  const scenarios = [];
  for (const id of ids) {
    const module = await import(join(scenariosDir, `${id}.mjs`));
    const driver = module.default;
    scenarios.push({ ...driver, id, scripts: (driver.scripts ?? [`${id}.yaml`]).map((name) => join(scenariosDir, name)) });
  }
  return scenarios;
}
