/**
 * Normal forms of what the two runtimes produced, so that only what matters can differ: ids,
 * times, temp paths, token counts and the system prompt's wording are replaced by placeholders
 * or summaries.
 * @module
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../../bench/lib/paths.mjs";

const uuidPattern = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const isoTimePattern = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})/g;
const completionIdPattern = /chatcmpl-[A-Za-z0-9]+/g;
/** Data keys whose numbers measure (tokens, sizes, times) rather than mean. */
const measuredKey = /token|Tokens|duration|Duration|cost|Cost|Ms$|ms$|time|Time|bytes|Bytes|size|Size|Count$|count$|Length$|pid$|eventCount|Nano|Premium|Requests$|limit|Limit/;

/**
 * The event types the current official SDK (1.0.x) declares: events outside this list are the
 * reference's internal diagnostics and are counted, not compared.
 * @returns {Set<string>}
 */
export function schemaEventTypes() {
  const declarations = readFileSync(join(repoRoot, "node_modules/copilot-sdk-v1/dist/generated/session-events.d.ts"), "utf8");
  const types = new Set();
  for (const match of declarations.matchAll(/^\s*type: "([a-z_.]+)";/gm)) types.add(match[1]);
  return types;
}

/**
 * Replaces run-specific text: temp paths, uuids, times, completion ids.
 * @param {string} text
 * @param {{ home: string, workdir: string }} paths
 */
export function normalizeText(text, paths) {
  return text
    .replaceAll(paths.workdir, "<work>")
    .replaceAll(paths.home, "<home>")
    .replace(/\/tmp\/conformance-[a-z-]+-[A-Za-z0-9]+/g, "<home>")
    .replace(/<current_datetime>[^<]*<\/current_datetime>/g, "<current_datetime>…</current_datetime>")
    .replace(/<reminder>([\s\S]*?)<\/reminder>/g, (_, inner) => `<reminder>${tagsIn(inner).join(",")}</reminder>`)
    .replace(uuidPattern, "<uuid>")
    .replace(isoTimePattern, "<time>")
    .replace(completionIdPattern, "<completion-id>");
}

/** Names of the top-level `<tag>` blocks in a text. @param {string} text */
function tagsIn(text) {
  return [...text.matchAll(/<([a-z_]+)>/g)].map((match) => match[1]).filter((tag, index, all) => all.indexOf(tag) === index);
}

/**
 * A value with run-specific parts replaced (recursively); numbers under measuring keys become `<n>`.
 * @param {unknown} value
 * @param {{ home: string, workdir: string }} paths
 * @param {string} [key]
 * @returns {unknown}
 */
export function normalizeValue(value, paths, key = "") {
  if (typeof value === "string") return normalizeText(value, paths);
  if (typeof value === "number") return measuredKey.test(key) ? "<n>" : value;
  if (Array.isArray(value)) return value.map((item) => normalizeValue(item, paths, key));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([name, inner]) => [name, normalizeValue(inner, paths, name)]));
  }
  return value;
}

/**
 * The system prompt's outline: markdown headings and top-level tags (its wording is not compared).
 * @param {string} text
 */
export function promptSections(text) {
  const sections = [];
  for (const line of text.split("\n")) {
    const heading = /^#{1,3} (.+)$/.exec(line);
    if (heading) sections.push(`# ${heading[1].trim()}`);
    const tag = /^<([a-z_]+)>/.exec(line);
    if (tag) sections.push(`<${tag[1]}>`);
  }
  return sections;
}

/**
 * A model request body in normal form.
 * @param {any} body
 * @param {{ home: string, workdir: string }} paths
 */
export function normalizeRequest(body, paths) {
  const messages = Array.isArray(body?.messages) ? body.messages : [];
  const system = messages.filter((message) => message.role === "system");
  const params = Object.fromEntries(Object.entries(body ?? {}).filter(([name]) => name !== "messages" && name !== "tools"));
  const tools = Array.isArray(body?.tools) ? body.tools : [];
  return {
    params: normalizeValue(params, paths),
    system: { count: system.length, sections: system.flatMap((message) => promptSections(textOf(message.content))) },
    messages: messages.filter((message) => message.role !== "system").map((message) => normalizeMessage(message, paths)),
    toolNames: tools.map((tool) => tool?.function?.name ?? tool?.name),
    toolSchemas: Object.fromEntries(tools.map((tool) => [tool?.function?.name ?? tool?.name, withoutDescriptions(tool?.function?.parameters ?? tool?.parameters)])),
    toolExtras: Object.fromEntries(tools.map((tool) => [tool?.function?.name, Object.keys(tool).filter((name) => name !== "type" && name !== "function")]).filter(([, extra]) => extra.length > 0)),
  };
}

/** @param {any} message @param {{ home: string, workdir: string }} paths */
function normalizeMessage(message, paths) {
  const normal = { role: message.role };
  if (message.content !== undefined) normal.content = typeof message.content === "string" ? normalizeText(message.content, paths) : normalizeValue(message.content, paths);
  if (message.tool_call_id) normal.tool_call_id = message.tool_call_id;
  if (Array.isArray(message.tool_calls)) {
    normal.tool_calls = message.tool_calls.map((call) => ({ id: call.id, name: call.function?.name, arguments: normalizeValue(parseArguments(call.function?.arguments), paths) }));
  }
  for (const name of Object.keys(message).sort()) {
    if (!["role", "content", "tool_call_id", "tool_calls"].includes(name)) normal[name] = normalizeValue(message[name], paths);
  }
  return normal;
}

/** @param {unknown} raw */
function parseArguments(raw) {
  if (typeof raw !== "string") return raw;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/** @param {unknown} content */
function textOf(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part) => (typeof part?.text === "string" ? part.text : "")).join("\n");
  return "";
}

/**
 * A JSON schema without its `description` texts (wording is not compared; structure is), its
 * `required` lists sorted (a set in JSON Schema: their order means nothing).
 * @param {unknown} schema
 * @returns {unknown}
 */
function withoutDescriptions(schema) {
  if (Array.isArray(schema)) return schema.map(withoutDescriptions);
  if (!schema || typeof schema !== "object") return schema;
  const entries = Object.entries(schema).filter(([name, value]) => !(name === "description" && typeof value === "string"));
  return Object.fromEntries(
    entries.map(([name, value]) => {
      if (name === "properties") return [name, mapValues(value, withoutDescriptions)];
      if (name === "required" && Array.isArray(value)) return [name, [...value].sort()];
      return [name, withoutDescriptions(value)];
    }),
  );
}

/** @param {any} object @param {(value: unknown) => unknown} map */
function mapValues(object, map) {
  return Object.fromEntries(Object.entries(object ?? {}).map(([name, value]) => [name, map(value)]));
}

/**
 * Events in normal form: schema events only (others counted by type), each as
 * `{ session, type, ephemeral, data }` with run-specific values replaced.
 * @param {Array<{ session: string, event: any }>} recorded
 * @param {{ home: string, workdir: string }} paths
 * @param {Set<string>} schemaTypes
 */
export function normalizeEvents(recorded, paths, schemaTypes) {
  /** @type {Record<string, number>} */
  const internal = {};
  const events = [];
  for (const { session, event } of recorded) {
    if (!schemaTypes.has(event.type)) {
      internal[event.type] = (internal[event.type] ?? 0) + 1;
      continue;
    }
    events.push({ session, type: event.type, ephemeral: event.ephemeral === true, data: normalizeValue(event.data ?? {}, paths) });
  }
  return { events, internal };
}
