import { ErrorCodes } from "@tandem/protocol/errors";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { TandemError } from "../../src/errors.js";
import { UserInputUnavailable } from "../../src/session/user-input.js";
import { defineBuiltinTool } from "../../src/tools/builtin/define.js";
import { outcomeFromReply } from "../../src/tools/external.js";
import { buildSessionTools, createBuiltinServices, disposeSessionTools, listBuiltinTools } from "../../src/tools/registry.js";
import { sameToolSpecs } from "../../src/session/toolset.js";
import { success, toolSpecOf, type Tool } from "../../src/tools/types.js";
import { fakeContext } from "./helpers.js";

const defaultOrder = [
  "bash", "write_bash", "read_bash", "stop_bash", "list_bash", "view", "create", "edit", "web_fetch", "sql", "grep", "glob", "task_complete",
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
    expect(withAsk.slice(8, 12)).toEqual(["web_fetch", "ask_user", "sql", "grep"]);
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
    expect(tools.map((tool) => tool.name)).toEqual([...defaultOrder.slice(0, 9), "ask_user", ...defaultOrder.slice(9)]);
    const schema = (name: string) => tools.find((tool) => tool.name === name)!.parameters;
    expect(schema("bash")).toMatchObject({ type: "object", required: ["command", "description"] });
    expect(schema("bash")).not.toHaveProperty("$schema");
    expect(Object.keys(schema("bash").properties as object)).toEqual(["command", "description", "shellId", "mode", "detach", "initial_wait"]);
    expect(schema("write_bash")).toMatchObject({ required: ["shellId", "delay"] });
    expect(schema("list_bash")).toMatchObject({ required: [] });
    expect(schema("edit")).toMatchObject({ required: ["path"] });
    expect(schema("create")).toMatchObject({ required: ["path", "file_text"] });
    expect(schema("grep")).toMatchObject({ required: ["pattern"] });
    expect(schema("sql")).toMatchObject({ required: ["description", "query"] });
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

  it("builds a built-in's JSON Schema when it is first read, once for every tool of that name; comparing tool lists builds none", () => {
    let shapeReads = 0;
    // Each session defines its tools anew; zod reads a getter in the shape only when converting (or parsing).
    const defineCity = () =>
      defineBuiltinTool({
        name: "lazy_city_probe",
        description: "Looks a city up",
        schema: z.object({
          get city() {
            shapeReads++;
            return z.string().describe("The city");
          },
        }),
        execute: async ({ city }) => success(city),
      });
    const before = [probe, defineCity()].map(toolSpecOf);
    const after = [probe, defineCity()].map(toolSpecOf);
    expect(sameToolSpecs(after, before)).toBe(true);
    expect(shapeReads).toBe(0);
    expect(after[1]!.parameters).toEqual({
      type: "object",
      properties: { city: { type: "string", description: "The city" } },
      required: ["city"],
    });
    const readsForOneBuild = shapeReads;
    expect(before[1]!.parameters).toBe(after[1]!.parameters);
    expect(defineCity().parameters).toBe(after[1]!.parameters);
    expect(shapeReads).toBe(readsForOneBuild);
    // A tool of another shape under another name still differs.
    expect(sameToolSpecs([probe, defineCity()].map(toolSpecOf), [defineCity(), probe].map(toolSpecOf))).toBe(false);
  });
});

describe("session tools", () => {
  const tools = buildSessionTools({ requestUserInput: true }, createBuiltinServices());
  const tool = (name: string) => tools.find((each) => each.name === name)!;

  it("sql answers in the reference's words, in memory without a session folder", async () => {
    const context = fakeContext("/");
    const run = async (query: string, database?: string) => (await tool("sql").execute({ description: "d", query, ...(database ? { database } : {}) }, context.context)).textForModel;
    expect(await run("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")).toBe("Schema operation completed successfully.");
    expect(await run("-- two\nINSERT INTO notes (body) VALUES ('a|b'), (NULL)")).toBe("2 row(s) inserted. Last inserted row ID: 2.");
    expect(await run("SELECT id, body FROM notes")).toBe("2 row(s) returned:\n\n| id | body |\n| --- | --- |\n| 1 | a\\|b |\n| 2 | NULL |");
    expect(await run("UPDATE notes SET body = 'c'")).toBe("2 row(s) updated.");
    expect(await run("DELETE FROM notes WHERE id = 1")).toBe("1 row(s) deleted.");
    expect(await run("SELECT * FROM notes WHERE id = 9")).toBe("Query returned 0 rows.");
    expect(await run("SELEC 1")).toBe('SQL Error: Error: near "SELEC": syntax error');
    // A script answers what each of its statements did.
    expect(await run("INSERT INTO notes (body) VALUES ('d'); SELECT count(*) AS n FROM notes")).toBe(
      "Executed 2 statement(s):\n\n1. INSERT\n   1 row(s) inserted. Last inserted row ID: 3.\n\n2. SELECT\n   1 row(s) returned:\n\n   | n |\n   | --- |\n   | 2 |",
    );
    expect(await run("SELECT 1", "session_store")).toBe("Error: Session store is not enabled. Enable the SESSION_STORE experimental feature flag.");
    // Only writes to the todo tables are todo changes.
    expect(context.events).toEqual([]);
    // The todo tables are there from the start.
    expect(await run("INSERT INTO todos (id, title) VALUES ('t1', 'Write it')")).toBe("1 row(s) inserted. Last inserted row ID: 1.");
    await run("SELECT * FROM todos");
    expect(context.events).toEqual([{ type: "session.todos_changed", data: {} }]);
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
