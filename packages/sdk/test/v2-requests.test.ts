import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { approveAll, CopilotClient, defineTool, type SessionConfig, type SessionHooks } from "../src/index.js";
import { startFakeRuntime, type FakeRuntime } from "./helpers/fake-runtime.js";

let fake: FakeRuntime;
let client: CopilotClient;

beforeEach(async () => {
  fake = await startFakeRuntime({ protocolVersion: 2 });
  client = new CopilotClient({ cliUrl: fake.url });
});

afterEach(async () => {
  await client.forceStop();
  await fake.close();
});

const openSession = (config: Partial<SessionConfig> = {}) =>
  client.createSession({ sessionId: "s", onPermissionRequest: approveAll, ...config });

describe("tool.call", () => {
  const call = (toolName: string, args: unknown = {}) =>
    fake.request("tool.call", { sessionId: "s", toolCallId: "c1", toolName, arguments: args });

  it("wraps plain results as success and passes structured results through", async () => {
    await openSession({
      tools: [
        defineTool("echo", { handler: (args: { text: string }) => args.text }),
        defineTool("json", { handler: () => ({ n: 1 }) }),
        defineTool("structured", { handler: () => ({ textResultForLlm: "denied!", resultType: "denied" }) }),
        defineTool("nothing", { handler: () => undefined }),
      ],
    });
    expect(await call("echo", { text: "hi" })).toEqual({ result: { textResultForLlm: "hi", resultType: "success", toolTelemetry: {} } });
    expect(await call("json")).toEqual({ result: { textResultForLlm: '{"n":1}', resultType: "success", toolTelemetry: {} } });
    expect(await call("structured")).toEqual({ result: { textResultForLlm: "denied!", resultType: "denied" } });
    expect(await call("nothing")).toEqual({
      result: { textResultForLlm: "Tool returned no result", resultType: "failure", error: "tool returned no result", toolTelemetry: {} },
    });
  });

  it("answers a failure result for an unknown tool and for a throwing handler", async () => {
    await openSession({ tools: [defineTool("boom", { handler: () => Promise.reject(new Error("kaput")) })] });
    expect(await call("missing")).toEqual({
      result: {
        textResultForLlm: "Tool 'missing' is not supported by this client instance.",
        resultType: "failure",
        error: "tool 'missing' not supported",
        toolTelemetry: {},
      },
    });
    expect(await call("boom")).toEqual({
      result: {
        textResultForLlm: "Invoking this tool produced an error. Detailed information is not available.",
        resultType: "failure",
        error: "kaput",
        toolTelemetry: {},
      },
    });
  });

  it("fails for an unknown session", async () => {
    await openSession();
    await expect(fake.request("tool.call", { sessionId: "nope", toolCallId: "c", toolName: "x", arguments: {} })).rejects.toThrow(
      /Unknown session nope/,
    );
  });
});

describe("permission.request", () => {
  const permissionRequest = { kind: "read", toolCallId: "c1", intention: "Read file", path: "/etc/hosts" };

  it("answers with the handler's decision", async () => {
    await openSession({ onPermissionRequest: (request) => (request.kind === "read" ? { kind: "approved" } : { kind: "denied-by-rules", rules: [] }) });
    expect(await fake.request("permission.request", { sessionId: "s", permissionRequest })).toEqual({ result: { kind: "approved" } });
  });

  it("denies when the handler throws, and fails the request for no-result", async () => {
    await openSession({
      onPermissionRequest: () => {
        throw new Error("x");
      },
    });
    expect(await fake.request("permission.request", { sessionId: "s", permissionRequest })).toEqual({
      result: { kind: "denied-no-approval-rule-and-could-not-request-from-user" },
    });
    await client.createSession({ sessionId: "s2", onPermissionRequest: () => ({ kind: "no-result" }) });
    await expect(fake.request("permission.request", { sessionId: "s2", permissionRequest })).rejects.toThrow(/cannot return 'no-result'/);
  });
});

describe("userInput.request", () => {
  it("returns the handler's answer", async () => {
    const asked: unknown[] = [];
    await openSession({
      onUserInputRequest: (request, invocation) => {
        asked.push([request, invocation]);
        return { answer: "blue", wasFreeform: false };
      },
    });
    const answer = await fake.request("userInput.request", { sessionId: "s", question: "Colour?", choices: ["blue", "red"], allowFreeform: false });
    expect(answer).toEqual({ answer: "blue", wasFreeform: false });
    expect(asked).toEqual([[{ question: "Colour?", choices: ["blue", "red"], allowFreeform: false }, { sessionId: "s" }]]);
  });

  it("fails when the session has no user input handler", async () => {
    await openSession();
    await expect(fake.request("userInput.request", { sessionId: "s", question: "?" })).rejects.toThrow(/no handler registered/);
  });
});

describe("hooks.invoke", () => {
  it("routes each hookType to its handler and wraps the output", async () => {
    const calls: string[] = [];
    const hooks: SessionHooks = {
      onPreToolUse: (input, { sessionId }) => {
        calls.push(`pre:${input.toolName}:${sessionId}`);
        return { permissionDecision: "deny", permissionDecisionReason: "read-only" };
      },
      onPostToolUse: () => {
        calls.push("post");
      },
      onUserPromptSubmitted: ({ prompt }) => ({ modifiedPrompt: prompt.toUpperCase() }),
      onSessionStart: () => ({ additionalContext: "ctx" }),
      onSessionEnd: () => ({ sessionSummary: "done" }),
      onErrorOccurred: () => ({ errorHandling: "retry" }),
    };
    await openSession({ hooks });
    const invoke = (hookType: string, input: unknown) => fake.request("hooks.invoke", { sessionId: "s", hookType, input });
    expect(await invoke("preToolUse", { toolName: "bash", toolArgs: {}, timestamp: 1, cwd: "/" })).toEqual({
      output: { permissionDecision: "deny", permissionDecisionReason: "read-only" },
    });
    expect(await invoke("postToolUse", { toolName: "bash" })).toEqual({});
    expect(await invoke("userPromptSubmitted", { prompt: "hi" })).toEqual({ output: { modifiedPrompt: "HI" } });
    expect(await invoke("sessionStart", { source: "new" })).toEqual({ output: { additionalContext: "ctx" } });
    expect(await invoke("sessionEnd", { reason: "complete" })).toEqual({ output: { sessionSummary: "done" } });
    expect(await invoke("errorOccurred", { error: "e" })).toEqual({ output: { errorHandling: "retry" } });
    expect(calls).toEqual(["pre:bash:s", "post"]);
  });

  it("gives undefined output for unknown hook types, missing handlers and throwing handlers", async () => {
    await openSession({
      hooks: {
        onSessionStart: () => {
          throw new Error("bad hook");
        },
      },
    });
    const invoke = (hookType: string) => fake.request("hooks.invoke", { sessionId: "s", hookType, input: {} });
    expect(await invoke("sessionStart")).toEqual({});
    expect(await invoke("preToolUse")).toEqual({});
    expect(await invoke("toString")).toEqual({});
  });
});

describe("systemMessage.transform", () => {
  it("sends function actions as transform and runs them when asked", async () => {
    await openSession({
      systemMessage: {
        mode: "customize",
        sections: { tone: { action: (content) => `${content}!` }, safety: { action: "remove" } },
      },
    });
    expect(fake.requestsFor("session.create")[0].systemMessage).toEqual({
      mode: "customize",
      sections: { tone: { action: "transform" }, safety: { action: "remove" } },
    });
    const answer = await fake.request("systemMessage.transform", {
      sessionId: "s",
      sections: { tone: { content: "Be nice" }, identity: { content: "Tandem" } },
    });
    expect(answer).toEqual({ sections: { tone: { content: "Be nice!" }, identity: { content: "Tandem" } } });
  });
});
