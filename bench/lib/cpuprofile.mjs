/**
 * Summarises a V8 `.cpuprofile` (from `node --cpu-prof`): self and inclusive time per function,
 * with bundle positions mapped back to TypeScript sources through the bundle's source maps.
 * @module
 */
import { existsSync, readFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { fileURLToPath } from "node:url";
import { dirname, isAbsolute, relative, resolve } from "node:path";
import { repoRoot } from "./paths.mjs";

/** @type {Map<string, { map: SourceMap, dir: string } | null>} */
const maps = new Map();

/**
 * The source map of a bundle file (`<file>.map`), if there is one.
 * @param {string} url
 */
function sourceMapOf(url) {
  if (!maps.has(url)) {
    let map = null;
    try {
      const path = url.startsWith("file:") ? fileURLToPath(url) : url;
      if (existsSync(`${path}.map`)) map = { map: new SourceMap(JSON.parse(readFileSync(`${path}.map`, "utf8"))), dir: dirname(path) };
    } catch {
      map = null;
    }
    maps.set(url, map);
  }
  return maps.get(url);
}

/**
 * `file:line` of a call frame, mapped to the original source when a map exists.
 * @param {{ url: string, lineNumber: number, columnNumber: number, functionName: string }} frame 0-based positions
 */
export function locate(frame) {
  if (!frame.url) return `(${frame.functionName || "native"})`;
  const mapped = sourceMapOf(frame.url);
  if (mapped && frame.lineNumber >= 0) {
    const entry = mapped.map.findEntry(frame.lineNumber, frame.columnNumber);
    if (entry?.originalSource) {
      const original = entry.originalSource.startsWith("file:") ? fileURLToPath(entry.originalSource) : entry.originalSource;
      const source = isAbsolute(original) ? original : resolve(mapped.dir, original);
      return `${shorten(source)}:${entry.originalLine + 1}`;
    }
  }
  const path = frame.url.startsWith("file:") ? fileURLToPath(frame.url) : frame.url;
  return `${shorten(path)}:${frame.lineNumber + 1}`;
}

/** @param {string} path */
function shorten(path) {
  // The benchmarks run a copy of the bundle (.bench-cache/tandem/packages/runtime/...).
  path = path.replace(`${repoRoot}.bench-cache/tandem/`, repoRoot);
  const inRepo = path.startsWith(repoRoot) ? relative(repoRoot, path) : path;
  return inRepo.replace(/^.*node_modules\//, "node_modules/");
}

/**
 * Self and inclusive milliseconds per function (`name file:line`), and self time per file.
 * @param {string} path a `.cpuprofile`
 * @returns {{ totalMs: number, functions: Array<{ key: string, selfMs: number, totalMs: number }>, files: Array<{ file: string, selfMs: number }> }}
 */
export function summarizeCpuProfile(path) {
  const profile = JSON.parse(readFileSync(path, "utf8"));
  /** @type {Map<number, any>} */
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  /** @type {Map<number, number>} */
  const selfUs = new Map();
  let totalUs = 0;
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    selfUs.set(id, (selfUs.get(id) ?? 0) + delta);
    totalUs += delta;
  });
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  /** @type {Map<string, { selfUs: number, totalUs: number }>} */
  const byFunction = new Map();
  /** @type {Map<string, number>} */
  const byFile = new Map();
  const keyOf = new Map();
  for (const node of profile.nodes) {
    const where = locate(node.callFrame);
    keyOf.set(node.id, `${node.callFrame.functionName || "(anonymous)"} ${where}`);
  }
  for (const [id, us] of selfUs) {
    const key = keyOf.get(id);
    const entry = byFunction.get(key) ?? { selfUs: 0, totalUs: 0 };
    entry.selfUs += us;
    byFunction.set(key, entry);
    const file = key.slice(key.indexOf(" ") + 1).replace(/:\d+$/, "");
    byFile.set(file, (byFile.get(file) ?? 0) + us);
    // Inclusive time: charge every distinct function on the stack once.
    const seen = new Set();
    for (let current = id; current !== undefined; current = parent.get(current)) {
      const ancestor = keyOf.get(current);
      if (seen.has(ancestor)) continue;
      seen.add(ancestor);
      const record = byFunction.get(ancestor) ?? { selfUs: 0, totalUs: 0 };
      record.totalUs += us;
      byFunction.set(ancestor, record);
    }
  }
  return {
    totalMs: totalUs / 1000,
    functions: [...byFunction].map(([key, value]) => ({ key, selfMs: value.selfUs / 1000, totalMs: value.totalUs / 1000 })),
    files: [...byFile].map(([file, us]) => ({ file, selfMs: us / 1000 })).sort((a, b) => b.selfMs - a.selfMs),
  };
}
