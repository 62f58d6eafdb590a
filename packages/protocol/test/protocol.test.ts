import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { emitJsonSchemas } from "../src/emit-json-schema.js";
import {
  clientToServerRequests,
  ephemeralEventTypes,
  eventDataSchemas,
  PermissionResult,
  SessionCreateParams,
  SessionEventSchema,
  sessionEventTypes,
  serverToClientRequests,
} from "../src/index.js";

describe("session events", () => {
  it("parses an event of every type through the union, keeping unknown fields", () => {
    const minimalData: Record<string, unknown> = {
      "session.start": { sessionId: "s", version: 1, producer: "tandem", copilotVersion: "0", startTime: "t" },
      "assistant.message": { messageId: "m", content: "hi", futureField: 1 },
      "permission.requested": { requestId: "r", permissionRequest: { kind: "url", intention: "Fetch", url: "https://x" } },
    };
    for (const type of ["session.start", "assistant.message", "permission.requested"]) {
      const parsed = SessionEventSchema.parse({ id: "1", timestamp: "t", parentId: null, type, data: minimalData[type] });
      expect(parsed.type).toBe(type);
    }
    const message = SessionEventSchema.parse({ id: "1", timestamp: "t", parentId: null, type: "assistant.message", data: minimalData["assistant.message"] });
    expect((message.data as Record<string, unknown>).futureField).toBe(1);
  });

  it("rejects an event whose required data is missing", () => {
    const result = SessionEventSchema.safeParse({ id: "1", timestamp: "t", parentId: null, type: "assistant.message", data: {} });
    expect(result.success).toBe(false);
  });

  it("marks the event reference's ephemeral events and only known types", () => {
    for (const type of ["session.idle", "assistant.message_delta", "permission.requested", "assistant.usage"] as const) expect(ephemeralEventTypes.has(type)).toBe(true);
    for (const type of ["user.message", "assistant.message", "tool.execution_complete", "abort", "session.error"] as const) expect(ephemeralEventTypes.has(type)).toBe(false);
    for (const type of ephemeralEventTypes) expect(sessionEventTypes).toContain(type);
  });
});

describe("methods", () => {
  it("accepts every field the official SDK sends in session.create and keeps unknown ones", () => {
    const params = SessionCreateParams.parse({
      model: "m",
      sessionId: "abc",
      tools: [{ name: "t", description: "d", parameters: { type: "object" }, overridesBuiltInTool: false, skipPermission: true }],
      systemMessage: { mode: "append", content: "x" },
      requestPermission: true,
      requestUserInput: false,
      hooks: false,
      envValueMode: "direct",
      mcpServers: { local: { command: "node", args: [] }, remote: { type: "http", url: "http://x" } },
      customAgents: [{ name: "a", prompt: "p" }],
      infiniteSessions: { enabled: true },
      somethingNew: { nested: true },
    });
    expect((params as Record<string, unknown>).somethingNew).toEqual({ nested: true });
  });

  it("validates permission results by kind", () => {
    expect(PermissionResult.safeParse({ kind: "approved" }).success).toBe(true);
    expect(PermissionResult.safeParse({ kind: "denied-interactively-by-user", feedback: "no" }).success).toBe(true);
    expect(PermissionResult.safeParse({ kind: "maybe" }).success).toBe(false);
  });

  it("has unique method names", () => {
    const names = [...clientToServerRequests, ...serverToClientRequests].map((token) => token.method);
    expect(new Set(names).size).toBe(names.length);
  });
});

describe("JSON Schema emission", () => {
  it("writes a schema for every method and every event type", () => {
    const dir = mkdtempSync(join(tmpdir(), "tandem-schema-"));
    try {
      expect(emitJsonSchemas(dir)).toBe(3);
      const methods = JSON.parse(readFileSync(join(dir, "methods.schema.json"), "utf8")).methods as Record<string, { params: unknown }>;
      for (const token of clientToServerRequests) expect(methods[token.method]?.params, token.method).toBeDefined();
      const events = JSON.parse(readFileSync(join(dir, "event-data.schema.json"), "utf8")).events as Record<string, unknown>;
      expect(Object.keys(events).sort()).toEqual(Object.keys(eventDataSchemas).sort());
      expect(JSON.parse(readFileSync(join(dir, "session-event.schema.json"), "utf8")).$comment).toMatch(/Generated/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
