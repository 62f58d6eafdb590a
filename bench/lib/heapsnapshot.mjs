/**
 * Summarises a V8 `.heapsnapshot`: retained-by-type totals (self sizes grouped by node type and
 * constructor name), enough to see what a runtime keeps in memory.
 * @module
 */
import { readFileSync } from "node:fs";

/**
 * Self size and count per `type:name` (strings grouped by type only).
 * @param {string} path
 * @returns {{ totalBytes: number, groups: Array<{ key: string, count: number, bytes: number }> }}
 */
export function summarizeHeapSnapshot(path) {
  const snapshot = JSON.parse(readFileSync(path, "utf8"));
  const fields = snapshot.snapshot.meta.node_fields;
  const types = snapshot.snapshot.meta.node_types[0];
  const stride = fields.length;
  const typeIndex = fields.indexOf("type");
  const nameIndex = fields.indexOf("name");
  const sizeIndex = fields.indexOf("self_size");
  const { nodes, strings } = snapshot;
  /** @type {Map<string, { count: number, bytes: number }>} */
  const groups = new Map();
  let totalBytes = 0;
  for (let offset = 0; offset < nodes.length; offset += stride) {
    const type = types[nodes[offset + typeIndex]];
    const size = nodes[offset + sizeIndex];
    totalBytes += size;
    const name = type === "object" || type === "closure" || type === "native" ? strings[nodes[offset + nameIndex]] : "";
    const key = name ? `${type}:${name.slice(0, 80)}` : type;
    const group = groups.get(key) ?? { count: 0, bytes: 0 };
    group.count++;
    group.bytes += size;
    groups.set(key, group);
  }
  return { totalBytes, groups: [...groups].map(([key, value]) => ({ key, ...value })).sort((a, b) => b.bytes - a.bytes) };
}
