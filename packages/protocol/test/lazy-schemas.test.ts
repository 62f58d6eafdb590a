import { describe, expect, it } from "vitest";
import {
  CanvasDeclaration,
  clientToServerRequests,
  DiscoveredAgent,
  eventDataSchemas,
  FactoryMeta,
  FactoryRunDetail,
  FactoryRunSummary,
  InstalledPluginInfo,
  LocalSessionEntry,
  McpToolInfo,
  PermissionPolicyRule,
  SandboxEnforcementStatus,
  ScheduleEntry,
  serverNotifications,
  serverToClientRequests,
  sessionEventTypes,
  SessionEventSchema,
  SessionFsError,
  SessionFsSqliteResult,
  TaskAgentInfo,
  WorkspaceSummary,
} from "../src/index.js";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineRequest } from "../src/method.js";
import * as core from "../src/core.js";
import * as index from "../src/index.js";
import { z } from "zod";

const sourceDir = fileURLToPath(new URL("../src/", import.meta.url));

/** The protocol's source files a file reaches through its static imports and re-exports (relative paths). */
function reachedFrom(entry: string): Set<string> {
  const reached = new Set<string>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (reached.has(file)) continue;
    reached.add(file);
    const source = readFileSync(join(sourceDir, file), "utf8");
    for (const match of source.matchAll(/(?:import|export)\s[^;]*?from\s*"(\.{1,2}\/[^"]+)\.js"/g)) pending.push(join(dirname(file), `${match[1]!}.ts`));
  }
  return reached;
}

/** Whether `record[key]` is still an unread getter (its schema not built yet). */
function isUnbuilt(record: object, key: string): boolean {
  return typeof Object.getOwnPropertyDescriptor(record, key)?.get === "function";
}

// Runs in its own module graph (vitest isolates files): nothing below has been read yet at load.
describe("protocol schemas are built on first use", () => {
  it("loads without building the event data schemas, builds each once on read", () => {
    expect(sessionEventTypes.length).toBeGreaterThan(60);
    expect(sessionEventTypes.filter((type) => !isUnbuilt(eventDataSchemas, type))).toEqual([]);
    const first = eventDataSchemas["session.start"];
    expect(isUnbuilt(eventDataSchemas, "session.start")).toBe(false);
    expect(eventDataSchemas["session.start"]).toBe(first);
    expect(first.safeParse({ sessionId: "s", version: 1, producer: "p", copilotVersion: "0", startTime: "t" }).success).toBe(true);
    expect(isUnbuilt(eventDataSchemas, "session.resume")).toBe(true);
    expect(Object.keys(eventDataSchemas)).toEqual(sessionEventTypes);
  });

  it("loads without building the method tokens' inline params and result schemas", () => {
    const tokens = [...clientToServerRequests, ...serverToClientRequests, ...serverNotifications];
    const built = tokens.filter((token) => !isUnbuilt(token, "params") && !isUnbuilt(token, "result"));
    // Tokens may share a named schema (built at load), but most are inline and must stay unbuilt.
    expect(built.length).toBeLessThan(tokens.length / 4);
  });

  it("loads without building the shapes the method areas share: each is a lazy schema, built when first parsed", () => {
    const shapes = {
      CanvasDeclaration,
      DiscoveredAgent,
      FactoryMeta,
      FactoryRunDetail,
      FactoryRunSummary,
      InstalledPluginInfo,
      LocalSessionEntry,
      McpToolInfo,
      PermissionPolicyRule,
      SandboxEnforcementStatus,
      ScheduleEntry,
      SessionFsError,
      SessionFsSqliteResult,
      TaskAgentInfo,
      WorkspaceSummary,
    };
    for (const [name, shape] of Object.entries(shapes)) expect(shape.def.type, name).toBe("lazy");
    expect(WorkspaceSummary.safeParse({ id: "w", cwd: "/work" }).success).toBe(true);
    expect(WorkspaceSummary.safeParse({ cwd: "/work" }).success).toBe(false);
    expect(CanvasDeclaration.array().safeParse([{ id: 1 }]).success).toBe(false);
    expect(SessionFsError.safeParse({ code: "ENOENT" }).success).toBe(true);
    expect(SessionFsError.safeParse({ code: "EPERM" }).success).toBe(false);
    const detail = FactoryRunDetail.safeParse({ runId: "r" });
    expect(detail.success).toBe(false);
    expect(detail.error?.issues.map((issue) => issue.path[0])).toContain("phases");
  });

  it("builds a token's schema once, on the first read", () => {
    let builds = 0;
    const token = defineRequest("x.y", () => {
      builds += 1;
      return z.object({ a: z.string() });
    }, z.null());
    expect(builds).toBe(0);
    expect(token.params.parse({ a: "b" })).toEqual({ a: "b" });
    expect(token.params).toBe(token.params);
    expect(builds).toBe(1);
    expect(token.result.parse(null)).toBeNull();
    expect(Object.keys(token)).toEqual(["kind", "method", "params", "result"]);
  });

  it("the event union still validates after being built lazily", () => {
    expect(SessionEventSchema.safeParse({ id: "1", timestamp: "t", parentId: null, type: "session.title_changed", data: { title: "x" } }).success).toBe(true);
    expect(SessionEventSchema.safeParse({ id: "1", timestamp: "t", parentId: null, type: "session.title_changed", data: {} }).success).toBe(false);
  });

  it("keeps the method areas' files out of the core entry (what the runtime loads at a session's create): their tokens load with their areas", () => {
    const reached = [...reachedFrom("core.ts")];
    expect(reached).toContain("methods.ts");
    expect(reached.filter((file) => file.startsWith("methods/"))).toEqual(["methods/current.ts"]);
    expect(reached).not.toContain("method-lists.ts");
    // The index still offers everything, the core's exports among them (the same objects).
    for (const [name, value] of Object.entries(core)) expect((index as Record<string, unknown>)[name], name).toBe(value);
    expect(Object.keys(index)).toEqual(expect.arrayContaining(["canvasRequests", "SessionCanvasList", "clientToServerRequests", "SessionFactoryRun"]));
    expect(Object.keys(core)).not.toContain("SessionCanvasList");
  });
});
