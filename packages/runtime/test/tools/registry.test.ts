import { ErrorCodes } from "@tandem/protocol/errors";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { TandemError } from "../../src/errors.js";
import { UserInputUnavailable } from "../../src/session/user-input.js";
import { defineBuiltinTool } from "../../src/tools/builtin/define.js";
import { outcomeFromReply } from "../../src/tools/external.js";
import { buildSessionTools, createBuiltinServices, disposeSessionTools, listBuiltinTools } from "../../src/tools/registry.js";
import type { Tool } from "../../src/tools/types.js";
import { fakeContext } from "./helpers.js";

const defaultOrder = [
  "bash", "write_bash", "read_bash", "stop_bash", "list_bash", "view", "create", "edit", "web_fetch", "report_intent", "grep", "glob", "task_complete",
];

function names(tools: Tool[]): string[] {
  return tools.map((tool) => tool.name);
}

async function build(config: Parameters<typeof buildSessionTools>[0]): Promise<Tool[]> {
  const tools = buildSessionTools(config, createBuiltinServices());
  await disposeSessionTools(tools);
  return tools;
}

describe("buildSessionTools", () => {
  it("offers the built-ins in the reference order, ask_user only with requestUserInput", async () => {
    expect(names(await build({}))).toEqual(defaultOrder);
    const withAsk = names(await build({ requestUserInput: true }));
    expect(withAsk.slice(9, 12)).toEqual(["report_intent", "ask_user", "grep"]);
  });

  it("adds custom tools after the built-ins, and an override takes the built-in's place", async () => {
    const tools = await build({
      tools: [
        { name: "deploy", description: "Deploy" },
        { name: "view", description: "My view", overridesBuiltInTool: true },
        { name: "audit", description: "Audit" },
      ],
    });
    expect(names(tools)).toEqual([...defaultOrder, "deploy", "audit"]);
    expect(tools[5]!.description).toBe("My view");
  });

  it("rejects a custom tool named like a built-in without overridesBuiltInTool", () => {
    let thrown: unknown;
    try {
      buildSessionTools({ tools: [{ name: "bash", description: "mine" }] });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(TandemError);
    expect((thrown as TandemError).code).toBe(ErrorCodes.InvalidParams);
    expect((thrown as TandemError).message).toBe(
      'External tool "bash" conflicts with a built-in tool of the same name. Set overridesBuiltInTool: true to explicitly override it.',
    );
  });

  it("filters with availableTools (keeping the built-in order) and excludedTools", async () => {
    expect(names(await build({ availableTools: ["view", "bash", "my_tool"], tools: [{ name: "my_tool" }] }))).toEqual(["bash", "view", "my_tool"]);
    expect(names(await build({ excludedTools: ["bash", "web_fetch"] }))).toEqual(defaultOrder.filter((name) => name !== "bash" && name !== "web_fetch"));
  });
});

describe("listBuiltinTools", () => {
  it("describes every built-in with a JSON Schema whose required list keeps the declared order", () => {
    const tools = listBuiltinTools();
    expect(tools.map((tool) => tool.name)).toEqual([...defaultOrder.slice(0, 10), "ask_user", ...defaultOrder.slice(10)]);
    const schema = (name: string) => tools.find((tool) => tool.name === name)!.parameters;
    expect(schema("bash")).toMatchObject({ type: "object", required: ["command", "description"] });
    expect(schema("bash")).not.toHaveProperty("$schema");
    expect(Object.keys(schema("bash").properties as object)).toEqual(["command", "description", "shellId", "mode", "detach", "initial_wait"]);
    expect(schema("write_bash")).toMatchObject({ required: ["shellId", "delay"] });
    expect(schema("list_bash")).toMatchObject({ required: [] });
    expect(schema("edit")).toMatchObject({ required: ["path"] });
    expect(schema("create")).toMatchObject({ required: ["path", "file_text"] });
    expect(schema("grep")).toMatchObject({ required: ["pattern"] });
    expect(Object.keys(schema("grep").properties as object)).toContain("-i");
    for (const tool of tools) expect(tool.description.length).toBeGreaterThan(20);
  });
});

describe("defineBuiltinTool", () => {
  const probe = defineBuiltinTool({
    name: "probe",
    description: "A probe",
    schema: z.object({ intent: z.string(), mode: z.enum(["a", "b"]).optional() }),
    permission: () => ({ kind: "url", intention: "x", url: "http://x" }),
    execute: async ({ intent }) => ({ resultType: "success", textForModel: intent }),
  });

  it("validates before asking permission, in the reference wording", async () => {
    const context = fakeContext("/");
    expect((await probe.execute({ intent: 5 }, context.context)).textForModel).toBe('Invalid input: "intent": Expected string, received number');
    expect((await probe.execute({}, context.context)).textForModel).toBe('Invalid input: "intent": Required');
    expect((await probe.execute({ intent: "x", mode: "c" }, context.context)).textForModel).toBe(
      "Invalid input: \"mode\": Invalid enum value. Expected 'a' | 'b', received 'c'",
    );
    expect(context.permissions).toEqual([]);
    expect((await probe.execute({ intent: "go", mode: null }, context.context)).textForModel).toBe("go");
    expect(context.permissions).toHaveLength(1);
  });
});

describe("session tools", () => {
  const tools = buildSessionTools({ requestUserInput: true }, createBuiltinServices());
  const tool = (name: string) => tools.find((each) => each.name === name)!;

  it("report_intent logs the intent as assistant.intent", async () => {
    const context = fakeContext("/");
    expect(await tool("report_intent").execute({ intent: "Exploring the code" }, context.context)).toMatchObject({ textForModel: "Intent logged" });
    expect(context.events).toEqual([{ type: "assistant.intent", data: { intent: "Exploring the code" } }]);
    expect((await tool("report_intent").execute({ intent: 1 }, context.context)).textForModel).toBe('Invalid input: "intent": Expected string, received number');
  });

  it("task_complete emits session.task_complete", async () => {
    const context = fakeContext("/");
    expect((await tool("task_complete").execute({ summary: "All done" }, context.context)).textForModel).toBe("Task marked complete.");
    expect(context.events).toEqual([{ type: "session.task_complete", data: { summary: "All done" } }]);
  });

  it("ask_user relays the question and words the answer by how it was given", async () => {
    const questions: unknown[] = [];
    const context = fakeContext("/", {
      askUser: async (question) => {
        questions.push(question);
        return question.choices ? { answer: question.choices[1]!, wasFreeform: false } : { answer: "blue", wasFreeform: true };
      },
    });
    const askUser = tool("ask_user");
    expect((await askUser.execute({ question: "Pick", choices: ["a", "b"], allow_freeform: false }, context.context)).textForModel).toBe("User selected: b");
    expect((await askUser.execute({ question: "Colour?" }, context.context)).textForModel).toBe("User responded: blue");
    expect(questions).toEqual([
      { question: "Pick", choices: ["a", "b"], allowFreeform: false },
      { question: "Colour?", allowFreeform: true },
    ]);
    const unavailable = fakeContext("/", {
      askUser: async () => {
        throw new UserInputUnavailable("No client is connected to answer.");
      },
    });
    expect(await askUser.execute({ question: "?" }, unavailable.context)).toMatchObject({ resultType: "failure" });
  });
});

describe("application tool results", () => {
  it("keep images from binaryResultsForLlm", () => {
    const outcome = outcomeFromReply("shot", {}, {
      result: {
        textResultForLlm: "screenshot taken",
        binaryResultsForLlm: [{ type: "image", mimeType: "image/png", data: "AAAA" }, { type: "resource", mimeType: "text/plain", data: "x" }],
      },
    });
    expect(outcome).toMatchObject({ resultType: "success", textForModel: "screenshot taken", binaryResults: [{ type: "image", mimeType: "image/png", data: "AAAA" }] });
  });
});
