import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadScript, loadScripts, ModelServer, parseScript, parseScripts, ScriptValidationError } from "../src/index.js";

const scriptsDir = fileURLToPath(new URL("../scripts/", import.meta.url));

function writeTemp(name: string, text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), "testkit-")), name);
  writeFileSync(path, text);
  return path;
}

describe("scripts", () => {
  it("parses the full step syntax", () => {
    const script = parseScript(`
name: full
match: weather
model: gpt-test
steps:
  - reply:
      content: "Let me check."
      reasoning: "thinking..."
      toolCalls:
        - { id: call_1, name: get_weather, arguments: { city: "Paris" } }
        - { name: raw, arguments: '{"broken": ' }
      usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0 }
      chunkSize: 8
      repeat: 2
    delayMs: 5
    chunkDelayMs: 1
    error: { status: 500, message: boom, times: 1, retryAfter: 1 }
    expect: { lastRole: user, contains: weather }
  - { hang: true, hangTimes: 2, reply: { content: done } }
`);
    expect(script).toMatchObject({ name: "full", match: "weather", model: "gpt-test", source: "<inline>" });
    expect(script.steps[0]?.reply?.toolCalls?.[1]?.arguments).toBe('{"broken": ');
    expect(script.steps[0]?.error).toMatchObject({ status: 500, times: 1, retryAfter: 1 });
    expect(script.steps[1]).toMatchObject({ hang: true, hangTimes: 2 });
  });

  it("reports invalid YAML with the file name", () => {
    const path = writeTemp("broken.yaml", "name: [unclosed\nsteps: {");
    expect(() => loadScript(path)).toThrow(ScriptValidationError);
    expect(() => loadScript(path)).toThrow(new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: invalid YAML`));
  });

  it("names the file and the bad field", () => {
    const path = writeTemp("bad.yaml", "name: bad\nsteps:\n  - reply:\n      toolCalls:\n        - { arguments: {} }\n");
    try {
      loadScript(path);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ScriptValidationError);
      expect((error as ScriptValidationError).field).toBe("steps[0].reply.toolCalls[0].name");
      expect((error as Error).message).toBe(`${path}: steps[0].reply.toolCalls[0].name is required`);
    }
  });

  it.each([
    ["steps: [{ reply: { content: x } }]", "name is required"],
    ["name: x\nsteps: []", "steps must contain at least one step"],
    ["name: x\nsteps: [{ reply: { contnet: x } }]", "steps[0].reply.contnet is not a known field"],
    ["name: x\nsteps: [{ delayMs: -1, reply: {} }]", "steps[0].delayMs must be >= 0"],
    ["name: x\nsteps: [{ error: { status: 200 } }]", "steps[0].error.status must be >= 400"],
    ["name: x\nsteps: [{ error: { message: m } }]", "steps[0].error.status is required"],
    ["name: x\nsteps: [{ expect: { lastRole: tool } }]", "steps[0] must have at least one of `reply`, `error` or `hang`"],
    ["name: x\nsteps: [{ reply: { toolCalls: [{ name: t, arguments: [1] }] } }]", "steps[0].reply.toolCalls[0].arguments must be an object or a string"],
    ["name: x\nsteps: [{ hangTimes: 1, reply: {} }]", "steps[0].hangTimes requires `hang: true`"],
    ["- just a list", "must be an object, got an array"],
  ])("rejects %j", (yamlText, message) => {
    expect(() => parseScript(yamlText, "case.yaml")).toThrow(`case.yaml: ${message}`);
  });

  it("reports unreadable files", () => {
    expect(() => loadScript("/nonexistent/script.yaml")).toThrow(/^\/nonexistent\/script\.yaml: cannot read script file/);
  });

  it("reads every document of a multi-document file, in order", () => {
    const path = writeTemp("many.yaml", "name: first\nmatch: one\nsteps: [{ reply: { content: a } }]\n---\nname: second\nmatch: two\nsteps: [{ reply: { content: b } }]\n---\n");
    expect(loadScripts(path).map((script) => script.name)).toEqual(["first", "second"]);
    const server = new ModelServer();
    server.loadScriptFiles(path);
    expect(server.loadScriptFiles(writeTemp("third.yaml", "name: third\nmatch: three\nsteps: [{ reply: { content: c } }]\n")).map((script) => script.name)).toEqual(["third"]);
  });

  it("names the document of a multi-document file that is wrong", () => {
    expect(() => parseScripts("name: ok\nsteps: [{ reply: {} }]\n---\nname: bad\nsteps: []\n", "many.yaml")).toThrow(
      "many.yaml (document 2): steps must contain at least one step",
    );
    expect(() => parseScripts("name: ok\nsteps: [{ reply: {} }]\n---\nname: [unclosed\n", "many.yaml")).toThrow(/^many\.yaml \(document 2\): invalid YAML/);
    expect(() => parseScripts("# only a comment\n", "empty.yaml")).toThrow("empty.yaml: no script");
  });

  it("loads the example scripts", () => {
    const server = new ModelServer();
    expect(server.loadScriptFile(join(scriptsDir, "plain-reply.yaml")).name).toBe("plain-reply");
    expect(server.loadScriptFile(join(scriptsDir, "tool-call.yaml")).steps).toHaveLength(2);
  });
});
