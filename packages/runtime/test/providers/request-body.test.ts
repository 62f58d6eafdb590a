import { describe, expect, it } from "vitest";
import type { ToolSpec } from "../../src/loop/messages.js";
import { chatCompletionsBody, ToolsJsonCache } from "../../src/providers/chat-completions/request.js";
import type { ModelRequest } from "../../src/providers/types.js";

const tools: ToolSpec[] = [
  { name: "read", description: "Read a file", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } },
  { name: "bash", description: "Run a command", parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] } },
];

function request(extra: Partial<ModelRequest> = {}): ModelRequest {
  return { model: "gpt-4.1", system: "Be brief.", messages: [{ role: "user", content: "hi" }], tools, stream: false, signal: new AbortController().signal, ...extra } as ModelRequest;
}

/** The body as one JSON.stringify of the whole object would write it. */
function plainBody(req: ModelRequest, marks: boolean): string {
  const messages: Array<Record<string, unknown>> = [{ role: "system", content: req.system }, ...req.messages.map((message) => ({ role: message.role, content: message.content }))];
  if (marks) messages[0]!.copilot_cache_control = { type: "ephemeral" };
  const chatTools = req.tools.map((tool) => ({ type: "function", function: { name: tool.name, description: tool.description, parameters: tool.parameters } }) as Record<string, unknown>);
  if (marks && chatTools.length > 0) chatTools[chatTools.length - 1]!.copilot_cache_control = { type: "ephemeral" };
  return JSON.stringify({
    model: req.model,
    reasoning_effort: req.reasoningEffort || undefined,
    messages,
    tools: chatTools.length > 0 ? chatTools : undefined,
    stream: req.stream ? true : undefined,
    stream_options: req.stream ? { include_usage: true } : undefined,
  });
}

describe("chatCompletionsBody", () => {
  it.each([
    { name: "plain", req: request(), marks: false },
    { name: "streaming, reasoning effort", req: request({ stream: true, reasoningEffort: "high" }), marks: false },
    { name: "no tools", req: request({ tools: [] }), marks: false },
    { name: "Copilot cache marks", req: request({ stream: true }), marks: true },
  ])("writes the same bytes as serialising the whole body ($name)", ({ req, marks }) => {
    expect(chatCompletionsBody(req, { cacheMarks: marks })).toBe(plainBody(req, marks));
    expect(chatCompletionsBody(req, { cacheMarks: marks, toolsCache: new ToolsJsonCache() })).toBe(plainBody(req, marks));
  });

  it("reuses the tools' JSON for the same list, and serialises a changed list again", () => {
    const cache = new ToolsJsonCache();
    const first = chatCompletionsBody(request(), { toolsCache: cache });
    expect(chatCompletionsBody(request({ messages: [{ role: "user", content: "again" }] } as Partial<ModelRequest>), { toolsCache: cache })).toContain('"name":"bash"');
    const fewer = tools.slice(0, 1);
    const second = chatCompletionsBody(request({ tools: fewer }), { toolsCache: cache });
    expect(second).toBe(plainBody(request({ tools: fewer }), false));
    expect(second).not.toContain('"name":"bash"');
    expect(first).toBe(plainBody(request(), false));
    // The cache marks are part of the remembered text: switching them rebuilds it.
    expect(chatCompletionsBody(request({ tools: fewer }), { toolsCache: cache, cacheMarks: true })).toBe(plainBody(request({ tools: fewer }), true));
  });
});
