/**
 * The pairs a conformance run covers. A pair is one client generation (an SDK driver) and the
 * reference runtime of that generation: every scenario runs through the reference and through
 * Tandem with the same driver, and the two records are compared. Each pair is reported apart.
 * @module
 */

/**
 * @typedef {object} Pair
 * @property {string} id what `CONFORMANCE_PAIRS` names
 * @property {string} sdk the driver's id (`lib/sdks.mjs`)
 * @property {string} reference the reference's id (`lib/references.mjs`)
 * @property {string} title how the report names the pair
 */

/** @type {Pair[]} */
export const allPairs = [
  { id: "sdk0.2-cli1.0.10", sdk: "sdk-0.2", reference: "cli-1.0.10", title: "SDK 0.2.0 with @github/copilot 1.0.10 (the older era)" },
  { id: "sdk1.0-cli1.0.102", sdk: "sdk-1.0", reference: "cli-1.0.102", title: "SDK 1.0.x with @github/copilot 1.0.102 (today's CLI)" },
  { id: "sdk1.0-bundled", sdk: "sdk-1.0", reference: "sdk-bundled", title: "SDK 1.0.x with the runtime it bundles" },
  { id: "python-cli1.0.102", sdk: "python", reference: "cli-1.0.102", title: "official Python SDK with @github/copilot 1.0.102" },
];

/**
 * The pairs selected by `CONFORMANCE_PAIRS` (comma-separated ids; all when unset). An unknown id
 * is an error that names the known ones.
 * @param {string | undefined} setting
 * @returns {Pair[]}
 * @example
 * selectPairs("sdk0.2-cli1.0.10,sdk1.0-bundled").map((pair) => pair.id);
 */
export function selectPairs(setting) {
  const wanted = setting?.split(",").map((id) => id.trim()).filter(Boolean);
  if (!wanted?.length) return allPairs;
  const unknown = wanted.filter((id) => !allPairs.some((pair) => pair.id === id));
  if (unknown.length > 0) throw new Error(`CONFORMANCE_PAIRS: unknown pair ${unknown.join(", ")} (known: ${allPairs.map((pair) => pair.id).join(", ")})`);
  return allPairs.filter((pair) => wanted.includes(pair.id));
}
