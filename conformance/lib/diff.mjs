/**
 * Differences between the reference's and Tandem's normal forms, as short lines with a stable
 * key each (the allow-list matches keys). Lines repeated across requests or events collapse.
 * @module
 */

/**
 * @typedef {object} Divergence
 * @property {"request" | "event" | "run"} area
 * @property {string} key stable identifier, e.g. `event.only-ref:session.tools_updated`
 * @property {string} text what differs, compact
 * @property {number} [count] how many times it occurred
 */

const maxValue = 140;

/** @param {unknown} value */
export function show(value) {
  const text = value === undefined ? "(absent)" : JSON.stringify(value);
  return text.length > maxValue ? `${text.slice(0, maxValue)}…` : text;
}

/**
 * Where two strings part, with some context on each side.
 * @param {string} ref
 * @param {string} tandem
 */
function showStrings(ref, tandem) {
  let start = 0;
  while (start < ref.length && start < tandem.length && ref[start] === tandem[start]) start++;
  const from = Math.max(0, start - 30);
  const cut = (text) => `${from > 0 ? "…" : ""}${JSON.stringify(text.slice(from, from + 110)).slice(1, -1)}${text.length > from + 110 ? "…" : ""}`;
  return `ref "${cut(ref)}" | tandem "${cut(tandem)}"`;
}

/**
 * Deep differences, as `path: ref … | tandem …` lines (at most `limit`).
 * @param {unknown} ref
 * @param {unknown} tandem
 * @param {string} path
 * @param {Array<{ path: string, text: string }>} out
 * @param {number} limit
 */
export function deepDiff(ref, tandem, path, out, limit = 12) {
  if (out.length >= limit) return out;
  if (JSON.stringify(ref) === JSON.stringify(tandem)) return out;
  const bothObjects = ref && tandem && typeof ref === "object" && typeof tandem === "object" && Array.isArray(ref) === Array.isArray(tandem);
  if (bothObjects && Array.isArray(ref)) {
    if (ref.length !== tandem.length && ref.every((item) => typeof item !== "object")) {
      out.push({ path, text: `ref ${show(ref)} | tandem ${show(tandem)}` });
      return out;
    }
    for (let index = 0; index < Math.max(ref.length, tandem.length); index++) deepDiff(ref[index], tandem[index], `${path}[${index}]`, out, limit);
    return out;
  }
  if (bothObjects) {
    const onlyRef = Object.keys(ref).filter((key) => !(key in tandem));
    const onlyTandem = Object.keys(tandem).filter((key) => !(key in ref));
    if (onlyRef.length > 0) out.push({ path: `${path}{keys}`, text: `only ref has ${onlyRef.join(", ")}` });
    if (onlyTandem.length > 0) out.push({ path: `${path}{keys}`, text: `only tandem has ${onlyTandem.join(", ")}` });
    for (const key of Object.keys(ref)) if (key in tandem) deepDiff(ref[key], tandem[key], path ? `${path}.${key}` : key, out, limit);
    return out;
  }
  if (typeof ref === "string" && typeof tandem === "string") out.push({ path, text: showStrings(ref, tandem) });
  else out.push({ path, text: `ref ${show(ref)} | tandem ${show(tandem)}` });
  return out;
}

/**
 * Differences of the model requests (paired by arrival order).
 * @param {ReturnType<typeof import("./normalize.mjs").normalizeRequest>[]} ref
 * @param {ReturnType<typeof import("./normalize.mjs").normalizeRequest>[]} tandem
 * @returns {Divergence[]}
 */
export function diffRequests(ref, tandem) {
  /** @type {Divergence[]} */
  const found = [];
  const add = (key, text) => found.push({ area: "request", key, text });
  if (ref.length !== tandem.length) add("request.count", `model requests: ref ${ref.length} | tandem ${tandem.length}`);
  for (let index = 0; index < Math.min(ref.length, tandem.length); index++) {
    const a = ref[index];
    const b = tandem[index];
    for (const line of deepDiff(a.params, b.params, "", [])) add(`request.params.${line.path.replace(/\{keys\}$/, "")}`, `params${line.path ? `.${line.path}` : ""}: ${line.text}`);
    if (a.system.count !== b.system.count) add("request.system.count", `system messages: ref ${a.system.count} | tandem ${b.system.count}`);
    if (JSON.stringify(a.system.sections) !== JSON.stringify(b.system.sections)) {
      add("request.system.sections", `system prompt outline: ref [${a.system.sections.join(" ")}] | tandem [${b.system.sections.join(" ")}]`);
    }
    diffMessages(a.messages, b.messages, add);
    diffTools(a, b, add);
  }
  return collapse(found);
}

/**
 * @param {any[]} ref
 * @param {any[]} tandem
 * @param {(key: string, text: string) => void} add
 */
function diffMessages(ref, tandem, add) {
  const roles = (list) => list.map((message) => message.role).join(",");
  if (roles(ref) !== roles(tandem)) add("request.messages.roles", `message roles: ref [${roles(ref)}] | tandem [${roles(tandem)}]`);
  for (let index = 0; index < Math.min(ref.length, tandem.length); index++) {
    const a = ref[index];
    const b = tandem[index];
    if (a.role !== b.role) continue;
    for (const line of deepDiff(a, b, "", [], 6)) {
      const field = line.path.replace(/\[\d+\]/g, "").replace(/\{keys\}$/, "") || "message";
      add(`request.message.${a.role}.${field}`, `${a.role} message${line.path ? ` ${line.path}` : ""}: ${line.text}`);
    }
  }
}

/**
 * @param {any} a
 * @param {any} b
 * @param {(key: string, text: string) => void} add
 */
function diffTools(a, b, add) {
  const onlyRef = a.toolNames.filter((name) => !b.toolNames.includes(name));
  const onlyTandem = b.toolNames.filter((name) => !a.toolNames.includes(name));
  for (const name of onlyRef) add(`request.tools.only-ref:${name}`, `tool only in ref: ${name}`);
  for (const name of onlyTandem) add(`request.tools.only-tandem:${name}`, `tool only in tandem: ${name}`);
  const shared = (list, other) => list.filter((name) => other.includes(name));
  if (shared(a.toolNames, b.toolNames).join(",") !== shared(b.toolNames, a.toolNames).join(",")) {
    add("request.tools.order", `shared tools in another order: ref [${shared(a.toolNames, b.toolNames).join(",")}] | tandem [${shared(b.toolNames, a.toolNames).join(",")}]`);
  }
  for (const name of shared(a.toolNames, b.toolNames)) {
    for (const line of deepDiff(a.toolSchemas[name], b.toolSchemas[name], "", [], 6)) {
      const field = line.path.replace(/\[\d+\]/g, "").replace(/\{keys\}$/, "");
      add(`request.tool-schema.${name}.${field}`, `${name} parameters${line.path ? `.${line.path}` : ""}: ${line.text}`);
    }
  }
  if (JSON.stringify(a.toolExtras) !== JSON.stringify(b.toolExtras)) add("request.tools.extras", `tool entry extra keys: ref ${show(a.toolExtras)} | tandem ${show(b.toolExtras)}`);
}

/**
 * Differences of the event sequences: an alignment by (session, type), then field differences
 * of the aligned pairs.
 * @param {Array<{ session: string, type: string, ephemeral: boolean, data: any }>} ref
 * @param {Array<{ session: string, type: string, ephemeral: boolean, data: any }>} tandem
 * @returns {{ divergences: Divergence[], sequence: string[] }}
 */
export function diffEvents(ref, tandem) {
  /** @type {Divergence[]} */
  const found = [];
  const sequence = [];
  const label = (event) => `${event.session} ${event.type}${event.ephemeral ? " (eph)" : ""}`;
  // Persisted events weigh more than ephemeral signals: where an order differs, the signal is the one left unaligned.
  for (const step of align(ref, tandem, (event) => `${event.session}|${event.type}`, (event) => (event.ephemeral ? 1 : 2))) {
    if (step.kind === "ref") {
      sequence.push(`- ${label(step.ref)}`);
      found.push({ area: "event", key: `event.only-ref:${step.ref.type}`, text: `only ref emits ${step.ref.type}${step.ref.ephemeral ? " (eph)" : ""}` });
      continue;
    }
    if (step.kind === "tandem") {
      sequence.push(`+ ${label(step.tandem)}`);
      found.push({ area: "event", key: `event.only-tandem:${step.tandem.type}`, text: `only tandem emits ${step.tandem.type}${step.tandem.ephemeral ? " (eph)" : ""}` });
      continue;
    }
    const { ref: a, tandem: b } = step;
    sequence.push(`  ${label(a)}${a.ephemeral === b.ephemeral ? "" : " / tandem: ephemeral " + b.ephemeral}`);
    if (a.ephemeral !== b.ephemeral) found.push({ area: "event", key: `event.ephemeral:${a.type}`, text: `${a.type}: ephemeral ref ${a.ephemeral} | tandem ${b.ephemeral}` });
    for (const line of deepDiff(a.data, b.data, "", [], 8)) {
      const field = line.path.replace(/\[\d+\]/g, "").replace(/\{keys\}$/, "");
      found.push({ area: "event", key: `event.field:${a.type}${field ? `.${field}` : ""}`, text: `${a.type} data${line.path ? `.${line.path}` : ""}: ${line.text}` });
    }
  }
  return { divergences: collapse(found), sequence };
}

/**
 * Heaviest-common-subsequence alignment of two lists by key (each aligned pair counts its
 * weight; with every weight 1, the longest common subsequence).
 * @template T
 * @param {T[]} ref
 * @param {T[]} tandem
 * @param {(item: T) => string} keyOf
 * @param {(item: T) => number} [weightOf]
 * @returns {Array<{ kind: "both", ref: T, tandem: T } | { kind: "ref", ref: T } | { kind: "tandem", tandem: T }>}
 */
function align(ref, tandem, keyOf, weightOf = () => 1) {
  const a = ref.map(keyOf);
  const b = tandem.map(keyOf);
  const table = Array.from({ length: a.length + 1 }, () => new Array(b.length + 1).fill(0));
  const matched = (i, j) => a[i] === b[j] && table[i + 1][j + 1] + weightOf(ref[i]) >= Math.max(table[i + 1][j], table[i][j + 1]);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      const skip = Math.max(table[i + 1][j], table[i][j + 1]);
      table[i][j] = a[i] === b[j] ? Math.max(skip, table[i + 1][j + 1] + weightOf(ref[i])) : skip;
    }
  }
  const steps = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && matched(i, j)) steps.push({ kind: "both", ref: ref[i++], tandem: tandem[j++] });
    else if (j >= b.length || (i < a.length && table[i + 1][j] >= table[i][j + 1])) steps.push({ kind: "ref", ref: ref[i++] });
    else steps.push({ kind: "tandem", tandem: tandem[j++] });
  }
  return steps;
}

/**
 * Merges identical lines, counting them.
 * @param {Divergence[]} list
 * @returns {Divergence[]}
 */
function collapse(list) {
  /** @type {Map<string, Divergence>} */
  const merged = new Map();
  for (const item of list) {
    const id = `${item.key}\u0000${item.text}`;
    const existing = merged.get(id);
    if (existing) existing.count = (existing.count ?? 1) + 1;
    else merged.set(id, { ...item });
  }
  return [...merged.values()];
}
