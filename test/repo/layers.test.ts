/**
 * The runtime's layers: the folders of `packages/runtime/src` (and its top-level files) in order,
 * bottom first. A file imports only from its own folder or from folders below it, and no two files
 * import each other, directly or around a loop. The imports that still run upward are listed in
 * {@link knownUpwardImports}, each with why; a new upward import, or a new import cycle, fails here.
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { fileCycles, readImportGraph, sourceFiles, type ImportEdge } from "./import-graph.js";

const runtimeSource = fileURLToPath(new URL("../../packages/runtime/src/", import.meta.url));

/**
 * Bottom to top. A name with `.ts` is a file directly under `src/`; any other name is a folder.
 * Read it upward: ports and base utilities, storage and settings, model providers and tools, the
 * subsystems around the loop, the loop, the session features, the session, the cluster and the
 * server, and the composition root.
 */
const layers: readonly string[] = [
  // Shared contracts and base utilities: they import nothing above them.
  "types",
  "errors.ts",
  "log.ts",
  "version.ts",
  "fs-probe.ts",
  "node-os.ts",
  "import-once.ts",
  "v8-tuning.ts",
  "compat",
  // The ports: types and small contracts that lower folders need from the session, the loop and the server.
  "ports",
  "secrets",
  "sandbox",
  // Storage and settings.
  "store",
  "trust",
  "user-settings",
  "plugins",
  "schedule",
  "session-admin",
  "accounts",
  // Model providers, tools and what a tool call needs.
  "providers",
  "context",
  "permissions",
  "tools",
  "compaction",
  "mcp",
  "hooks",
  "session-fs",
  // The agent loop.
  "loop",
  "args.ts",
  "help-text.ts",
  // Session features built around the loop.
  "agents",
  "canvas",
  "checkpoints",
  "commands",
  "plan",
  "processes",
  "skills",
  "discovery",
  "extensions",
  "factories",
  "telemetry",
  // The session and its manager.
  "session",
  // Serving clients: the cluster forwards requests between nodes, the server speaks JSON-RPC.
  "cluster",
  "server",
  // The composition root and the entry points.
  "runtime.ts",
  "cluster-join.ts",
  "cli.ts",
  "index.ts",
];

/**
 * Imports that run upward today, as `from-folder -> to-folder: count`. Each is a debt, not a
 * pattern to copy: move the shared type or port down instead of adding one. Lower a count when an
 * import goes away (the check fails until the list matches, so it never hides a new one).
 */
const knownUpwardImports: Readonly<Record<string, number>> = {
  // session-history.ts rebuilds a session's history from its events (HistoryRebuilder: its type, and
  // the module loaded on the first history request; rewinds.ts reads the rebuilt history): it belongs
  // with the session more than with git checkpoints.
  "checkpoints -> session": 3,
  // Remote and unattended clients extend the server's ClientBase; the router forwards results as
  // the writer's PreSerializedJson. Both would move down with the client base class.
  "cluster -> server": 3,
  // The summary call retries with the loop's retry helper (withRetries).
  "compaction -> loop": 1,
  // A permission outcome is reported as a tool outcome (ToolOutcome); tools also import permissions.
  "permissions -> tools": 1,
  // bash reports an interrupted command in the loop's words (interruptedText).
  "tools -> loop": 1,
};

/** The layer unit of a file: its top folder under `src/`, or its own name when it sits there. */
function unitOf(file: string): string {
  const slash = file.indexOf("/");
  return slash === -1 ? file : file.slice(0, slash);
}

/** Imports from a unit to one above it, counted per pair of units, with the files for the message. */
function upwardImports(edges: readonly ImportEdge[]): Map<string, string[]> {
  const rank = new Map(layers.map((unit, index) => [unit, index]));
  const upward = new Map<string, string[]>();
  for (const edge of edges) {
    const from = unitOf(edge.from);
    const to = unitOf(edge.to);
    if (from === to) continue;
    if (rank.get(from)! >= rank.get(to)!) continue;
    const key = `${from} -> ${to}`;
    upward.set(key, [...(upward.get(key) ?? []), `${edge.from} -> ${edge.to}`]);
  }
  return upward;
}

describe("packages/runtime/src layers", () => {
  const files = sourceFiles(runtimeSource);
  const edges = readImportGraph(runtimeSource);

  it("names every folder and top-level file of the runtime in the layer list", () => {
    const units = [...new Set(files.map(unitOf))].sort();
    expect(units.filter((unit) => !layers.includes(unit))).toEqual([]);
    expect(layers.filter((unit) => !units.includes(unit) && unit !== "types")).toEqual([]);
  });

  it("has no import cycle between files (lazy imports included)", () => {
    expect(fileCycles(files, edges)).toEqual([]);
  });

  it("imports only downward, apart from the listed known upward imports", () => {
    const upward = upwardImports(edges);
    const pairs = [...new Set([...upward.keys(), ...Object.keys(knownUpwardImports)])].sort();
    const changed = pairs.filter((pair) => (upward.get(pair)?.length ?? 0) !== (knownUpwardImports[pair] ?? 0));
    const explained = changed.map((pair) => `${pair}: ${upward.get(pair)?.length ?? 0} (listed: ${knownUpwardImports[pair] ?? 0})\n    ${(upward.get(pair) ?? []).join("\n    ")}`);
    expect(explained, "upward imports differ from knownUpwardImports; move the shared type down to ports/ (or lower the listed count)").toEqual([]);
  });
});
