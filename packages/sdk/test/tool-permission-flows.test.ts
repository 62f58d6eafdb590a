import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  approveAll,
  CopilotClient,
  defineTool,
  type PermissionHandler,
  type SessionConfig,
  type ToolInvocation,
} from "../src/index.js";
import { startFakeRuntime, type FakeRuntime } from "./helpers/fake-runtime.js";

let fake: FakeRuntime;
let client: CopilotClient;

beforeEach(async () => {
  fake = await startFakeRuntime();
  client = new CopilotClient({ cliUrl: fake.url });
});

afterEach(async () => {
  await client.forceStop();
  await fake.close();
});

const openSession = (config: Partial<SessionConfig> = {}) =>
  client.createSession({ sessionId: "s", onPermissionRequest: approveAll, ...config });

function requestTool(toolName: string, requestId: string, args: unknown = {}) {
  fake.emitEvent("s", "external_tool.requested", { requestId, sessionId: "s", toolCallId: `call-${requestId}`, toolName, arguments: args }, true);
}

describe("protocol v3: external_tool.requested", () => {
  it("runs the handler with args and invocation, then answers handlePendingToolCall", async () => {
    const invocations: ToolInvocation[] = [];
    const add = defineTool("add", {
      parameters: z.object({ a: z.number(), b: z.number() }),
      handler: ({ a, b }, invocation) => {
        invocations.push(invocation);
        return a + b;
      },
    });
    await openSession({ tools: [add] });
    requestTool("add", "r1", { a: 2, b: 3 });
    expect(await fake.waitForRequest("session.tools.handlePendingToolCall")).toEqual({ sessionId: "s", requestId: "r1", result: "5" });
    expect(invocations).toEqual([{ sessionId: "s", toolCallId: "call-r1", toolName: "add", arguments: { a: 2, b: 3 } }]);
  });

  it("converts results: null/undefined to empty, strings as-is, everything else JSON", async () => {
    const results: unknown[] = [null, undefined, "plain", { textResultForLlm: "T", resultType: "failure" }, [1, 2]];
    const tools = results.map((value, index) => defineTool(`t${index}`, { handler: () => value }));
    await openSession({ tools });
    results.forEach((_, index) => requestTool(`t${index}`, `r${index}`));
    const answers = await Promise.all(results.map((_, index) => fake.waitForRequest("session.tools.handlePendingToolCall", index)));
    const byRequest = Object.fromEntries(answers.map((answer) => [answer.requestId, answer.result]));
    expect(byRequest).toEqual({
      r0: "",
      r1: "",
      r2: "plain",
      r3: JSON.stringify({ textResultForLlm: "T", resultType: "failure" }),
      r4: "[1,2]",
    });
  });

  it("answers with the error message when the handler throws", async () => {
    await openSession({ tools: [defineTool("fails", { handler: async () => Promise.reject(new Error("API timeout")) })] });
    requestTool("fails", "r1");
    expect(await fake.waitForRequest("session.tools.handlePendingToolCall")).toEqual({ sessionId: "s", requestId: "r1", error: "API timeout" });
  });

  it("ignores tools this session did not register (another client may own them)", async () => {
    await openSession({ tools: [defineTool("mine", { handler: () => "ok" })] });
    const seen: string[] = [];
    const session2 = await client.createSession({ sessionId: "s2", onPermissionRequest: approveAll });
    session2.on("external_tool.requested", (event) => seen.push(event.data.toolName));
    requestTool("not_mine", "r1");
    requestTool("mine", "r2");
    expect(await fake.waitForRequest("session.tools.handlePendingToolCall")).toMatchObject({ requestId: "r2", result: "ok" });
    await client.ping();
    expect(fake.requestsFor("session.tools.handlePendingToolCall")).toHaveLength(1);
    expect(seen).toEqual([]);
  });

  it("still delivers the broadcast event to subscribers", async () => {
    const session = await openSession({ tools: [defineTool("mine", { handler: () => "ok" })] });
    const seen: string[] = [];
    session.on("external_tool.requested", (event) => seen.push(event.data.requestId));
    requestTool("mine", "r9");
    await fake.waitForRequest("session.tools.handlePendingToolCall");
    expect(seen).toEqual(["r9"]);
  });
});

describe("protocol v3: permission.requested", () => {
  const shellRequest = {
    kind: "shell",
    toolCallId: "c1",
    fullCommandText: "ls",
    intention: "List files",
    commands: [{ identifier: "ls", readOnly: false }],
    possiblePaths: [],
  };
  const requestPermission = (requestId: string) =>
    fake.emitEvent("s", "permission.requested", { requestId, permissionRequest: shellRequest }, true);

  it("asks the handler and answers with its decision", async () => {
    const asked: unknown[] = [];
    const onPermissionRequest: PermissionHandler = (request, invocation) => {
      asked.push([request, invocation]);
      return { kind: "denied-interactively-by-user", feedback: "no" };
    };
    await openSession({ onPermissionRequest });
    requestPermission("p1");
    expect(await fake.waitForRequest("session.permissions.handlePendingPermissionRequest")).toEqual({
      sessionId: "s",
      requestId: "p1",
      result: { kind: "denied-interactively-by-user", feedback: "no" },
    });
    expect(asked).toEqual([[shellRequest, { sessionId: "s" }]]);
  });

  it("answers denied-no-approval-rule-and-could-not-request-from-user when the handler throws", async () => {
    await openSession({
      onPermissionRequest: () => {
        throw new Error("UI gone");
      },
    });
    requestPermission("p1");
    expect(await fake.waitForRequest("session.permissions.handlePendingPermissionRequest")).toEqual({
      sessionId: "s",
      requestId: "p1",
      result: { kind: "denied-no-approval-rule-and-could-not-request-from-user" },
    });
  });

  it("does not answer when the handler returns no-result", async () => {
    let calls = 0;
    await openSession({
      onPermissionRequest: async () => {
        calls++;
        return { kind: "no-result" };
      },
    });
    requestPermission("p1");
    await client.ping();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await client.ping();
    expect(calls).toBe(1);
    expect(fake.requestsFor("session.permissions.handlePendingPermissionRequest")).toEqual([]);
  });
});
