/**
 * What each official SDK generation declares about session events, read from its generated
 * `session-events.d.ts`: the event types and, per type, the top-level fields of its `data`. The
 * allow-list uses it to tell an optional field or event a client of that generation knows from
 * one it has never heard of.
 * @module
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../../bench/lib/paths.mjs";

/** The generated event declarations of each SDK package, by driver id. */
const declarationFiles = {
  "sdk-0.2": "node_modules/@github/copilot-sdk/dist/generated/session-events.d.ts",
  "sdk-1.0": "node_modules/copilot-sdk-v1/dist/generated/session-events.d.ts",
};

/** @type {Map<string, Map<string, Set<string>>>} */
const cache = new Map();

/**
 * The event types an SDK generation declares, each with its data fields.
 * @param {"sdk-0.2" | "sdk-1.0"} generation
 * @returns {Map<string, Set<string>>} event type → top-level `data` field names
 * @example
 * declaredEvents("sdk-0.2").get("session.idle"); // Set {"backgroundTasks", ...}
 */
export function declaredEvents(generation) {
  const cached = cache.get(generation);
  if (cached) return cached;
  const source = readFileSync(join(repoRoot, declarationFiles[generation]), "utf8");
  /** @type {Map<string, string>} interface name → body */
  const interfaces = new Map();
  for (const match of source.matchAll(/^export interface (\w+) \{\n([\s\S]*?)^\}/gm)) interfaces.set(match[1], match[2]);
  /** @type {Map<string, Set<string>>} */
  const events = new Map();
  // 0.2.0 declares one union of inline object types: `type: "x";` then `data: { ... };`.
  for (const match of source.matchAll(/^ {4}type: "([a-z_.]+)";\n(?: {4}\/\*\*(?:(?!\*\/)[\s\S])*\*\/\n)? {4}data: \{\n([\s\S]*?)^ {4}\};$/gm)) {
    events.set(match[1], new Set([...match[2].matchAll(/^ {8}"?([A-Za-z_][\w-]*)"?\??: /gm)].map((field) => field[1])));
  }
  // 1.0.x declares one interface per event, its data in another interface.
  for (const body of interfaces.values()) {
    const type = /^ {4}type: "([a-z_.]+)";$/m.exec(body)?.[1];
    if (!type) continue;
    const dataType = /^ {4}data: (\w+);$/m.exec(body)?.[1];
    const dataBody = dataType ? (interfaces.get(dataType) ?? "") : (/^ {4}data: \{\n([\s\S]*?)^ {4}\};$/m.exec(body)?.[1] ?? "");
    const fields = new Set([...dataBody.matchAll(/^ {4,8}"?([A-Za-z_][\w-]*)"?\??: /gm)].map((field) => field[1]));
    events.set(type, fields);
  }
  cache.set(generation, events);
  return events;
}

/**
 * Whether every field a divergence says only Tandem has is declared for that event by an SDK
 * generation (`event.field:<type>` with text `<type> data.{keys}: only tandem has a, b`).
 * @param {{ key: string, text: string }} divergence
 * @param {"sdk-0.2" | "sdk-1.0"} generation
 * @returns {boolean}
 * @example
 * onlyTandemFieldsDeclared({ key: "event.field:session.idle", text: "session.idle data.{keys}: only tandem has aborted" }, "sdk-0.2");
 */
export function onlyTandemFieldsDeclared(divergence, generation) {
  const type = /^event\.field:([a-z_.]+)$/.exec(divergence.key)?.[1];
  const fields = /^[a-z_.]+ data\.\{keys\}: only tandem has (.+)$/.exec(divergence.text)?.[1];
  if (!type || !fields) return false;
  const declared = declaredEvents(generation).get(type);
  return Boolean(declared) && fields.split(", ").every((field) => declared?.has(field));
}

/**
 * Whether an event type that only Tandem emitted (`event.only-tandem:<type>`) is declared by an
 * SDK generation.
 * @param {{ key: string }} divergence
 * @param {"sdk-0.2" | "sdk-1.0"} generation
 * @returns {boolean}
 */
export function onlyTandemEventDeclared(divergence, generation) {
  const type = /^event\.only-tandem:([a-z_.]+)$/.exec(divergence.key)?.[1];
  return Boolean(type) && declaredEvents(generation).has(/** @type {string} */ (type));
}

/** @type {{ interfaces: Map<string, Map<string, { required: boolean, type: string }>>, aliases: Map<string, string[]>, dataOf: Map<string, string> } | undefined} */
let current;

/** The 1.0.x declarations: interface members with their requiredness, union aliases, event → data interface. */
function currentDeclarations() {
  if (current) return current;
  const source = readFileSync(join(repoRoot, declarationFiles["sdk-1.0"]), "utf8");
  const interfaces = new Map();
  const dataOf = new Map();
  for (const match of source.matchAll(/^export interface (\w+) \{\n([\s\S]*?)^\}/gm)) {
    const members = new Map();
    for (const member of match[2].matchAll(/^ {4}"?([A-Za-z_][\w-]*)"?(\??): ([^;\n]+);?$/gm)) members.set(member[1], { required: member[2] !== "?", type: member[3] });
    interfaces.set(match[1], members);
    const type = /^ {4}type: "([a-z_.]+)";$/m.exec(match[2])?.[1];
    const data = /^ {4}data: (\w+);$/m.exec(match[2])?.[1];
    if (type && data) dataOf.set(type, data);
  }
  const aliases = new Map();
  for (const match of source.matchAll(/^export type (\w+) = ([\w |]+);$/gm)) aliases.set(match[1], match[2].split("|").map((name) => name.trim()));
  current = { interfaces, aliases, dataOf };
  return current;
}

/**
 * Whether a field is required by the 1.0.x schema in the data of an event, or in an object one
 * level down (`path`, e.g. `permissionRequest`; for a union, required in any variant that has it).
 * @param {string} eventType
 * @param {string} path "" for the data itself
 * @param {string} field
 * @returns {boolean}
 * @example
 * requiredInToday("permission.requested", "permissionRequest", "canOfferSessionApproval"); // true
 */
export function requiredInToday(eventType, path, field) {
  const { interfaces, aliases, dataOf } = currentDeclarations();
  const dataName = dataOf.get(eventType);
  if (!dataName) return false;
  /** @type {string[]} */
  let names = [dataName];
  if (path) {
    const memberType = interfaces.get(dataName)?.get(path)?.type ?? "";
    names = memberType.split("|").map((name) => name.trim()).flatMap((name) => aliases.get(name) ?? [name]);
  }
  return names.some((name) => interfaces.get(name)?.get(field)?.required === true);
}

/**
 * Whether a divergence `<type> data[.path]{keys}: only ref has a, b` names a field the 1.0.x
 * schema requires there (a field Tandem must send).
 * @param {{ key: string, text: string }} divergence
 * @returns {boolean}
 */
export function namesRequiredField(divergence) {
  const match = /^([a-z_.]+) data(?:\.(\w+))?\{keys\}: only ref has (.+)$/.exec(divergence.text);
  if (!match) return false;
  return match[3].split(", ").some((field) => requiredInToday(match[1], match[2] ?? "", field));
}
