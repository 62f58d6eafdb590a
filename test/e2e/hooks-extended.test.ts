/**
 * The hook points of the official SDK 1.0.x beyond tool use, through its real client against the
 * built `tandem`: a preToolUse hook sees every call (even one to a tool that does not exist) and
 * the model is shown the arguments a hook substituted; userPromptTransformed rewrites the text the
 * model reads; sessionStart context arrives as its own message before the first prompt; an
 * agentStop hook's block keeps the agent answering with its reason.
 */
import { existsSync } from "node:fs";
import { approveAll, type AgentStopHookInput, type UserPromptTransformedHookInput } from "copilot-sdk-v1";
import { describe, expect, it } from "vitest";
import type { TestWorld } from "../helpers/harness.js";
import { officialClientFixture, officialV1Client } from "../helpers/official-client.js";
import type { CopilotClient as V1Client } from "copilot-sdk-v1";

type ChatMessage = { role: string; content?: string | null; tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>; tool_call_id?: string };
type ChatBody = { messages: ChatMessage[] };

const fixture = officialClientFixture(officialV1Client);
const start = (): V1Client => fixture.client() as unknown as V1Client;
const requestMessages = (world: TestWorld, index: number): ChatMessage[] => (world.model.requests[index]?.body as ChatBody).messages;

describe("hook points of the official SDK 1.0.x", () => {
  it("a preToolUse deny answers calls to unknown tools too; nothing runs", async () => {
    const world = await fixture.startWorld(["hooks-unknown-tool"]);
    const seen: string[] = [];
    const session = await start().createSession({
      onPermissionRequest: approveAll,
      hooks: {
        onPreToolUse: (input) => {
          seen.push(input.toolName);
          return { permissionDecision: "deny" };
        },
      },
    });
    await session.sendAndWait({ prompt: "read protected.txt" });
    expect(seen).toEqual(["report_progress_note", "view"]);
    const toolMessages = requestMessages(world, 1).filter((message) => message.role === "tool");
    expect(toolMessages.map((message) => [message.tool_call_id, message.content])).toEqual([
      ["call_intent_1", "Denied by preToolUse hook: No reason provided"],
      ["call_view_1", "Denied by preToolUse hook: No reason provided"],
    ]);
  });

  it("the model is shown the arguments a preToolUse hook substituted, in its own tool call", async () => {
    const world = await fixture.startWorld(["custom-tool"]);
    const ranWith: unknown[] = [];
    const session = await start().createSession({
      onPermissionRequest: approveAll,
      tools: [{ name: "get_weather", description: "Weather", handler: (args: unknown) => (ranWith.push(args), "72 degrees") }],
      hooks: { onPreToolUse: () => ({ permissionDecision: "allow", modifiedArgs: { city: "Lyon" } }) },
    });
    await session.sendAndWait({ prompt: "weather please" });
    expect(ranWith).toEqual([{ city: "Lyon" }]);
    const assistant = requestMessages(world, 1).find((message) => message.role === "assistant");
    expect(assistant?.tool_calls?.map((call) => [call.id, JSON.parse(call.function.arguments)])).toEqual([["call_weather_1", { city: "Lyon" }]]);
  });

  it("userPromptTransformed sees the prompt and its model text, and replaces that text", async () => {
    const world = await fixture.startWorld(["plain-reply"]);
    const inputs: UserPromptTransformedHookInput[] = [];
    const session = await start().createSession({
      onPermissionRequest: approveAll,
      hooks: {
        onUserPromptTransformed: (input) => {
          inputs.push(input);
          return { modifiedTransformedPrompt: "Rewritten by the hook." };
        },
      },
    });
    await session.sendAndWait({ prompt: "original words" });
    expect(inputs).toHaveLength(1);
    expect(inputs[0]?.prompt).toBe("original words");
    expect(inputs[0]?.transformedPrompt).toMatch(/^<current_datetime>.+<\/current_datetime>\n\noriginal words$/);
    expect(inputs[0]?.workingDirectory).toBeTruthy();
    expect(requestMessages(world, 0).at(-1)).toEqual({ role: "user", content: "Rewritten by the hook." });
    // The event keeps what the user typed.
    const user = (await session.getEvents()).find((event) => event.type === "user.message");
    expect(user?.data.content).toBe("original words");
  });

  it("sessionStart context reaches the model as its own message before the first prompt, not in the system prompt", async () => {
    const world = await fixture.startWorld(["plain-reply"]);
    const sources: string[] = [];
    const session = await start().createSession({
      onPermissionRequest: approveAll,
      hooks: {
        onSessionStart: (input) => {
          sources.push(input.source);
          return { additionalContext: "The user's name is Ada." };
        },
      },
    });
    await session.sendAndWait({ prompt: "hello there" });
    expect(sources).toEqual(["new"]);
    const messages = requestMessages(world, 0);
    expect(messages.map((message) => message.role)).toEqual(["system", "user", "user"]);
    expect(messages[0]?.content).not.toContain("Ada");
    expect(messages[1]?.content).toMatch(/The user's name is Ada\.$/);
    expect(messages[2]?.content).toMatch(/hello there$/);
  });

  it("an agentStop block continues the agent with its reason; the next stop says the hook is active", async () => {
    const world = await fixture.startWorld(["plain-reply"]);
    const inputs: AgentStopHookInput[] = [];
    const session = await start().createSession({
      onPermissionRequest: approveAll,
      hooks: {
        onAgentStop: (input) => {
          inputs.push(input);
          return inputs.length === 1 ? { decision: "block", reason: "Check your answer once more." } : undefined;
        },
      },
    });
    const answer = await session.sendAndWait({ prompt: "hello" });
    expect(inputs.map((input) => [input.stopReason, input.stopHookActive])).toEqual([
      ["end_turn", false],
      ["end_turn", true],
    ]);
    expect(inputs[0]?.transcriptPath && existsSync(inputs[0].transcriptPath)).toBe(true);
    expect(world.model.requests).toHaveLength(2);
    expect(requestMessages(world, 1).at(-1)?.content).toMatch(/Check your answer once more\.$/);
    expect(answer?.data.content).toBe("Second answer, with the whole history in view.");
    // One message was answered: one idle.
    expect((await session.getEvents()).filter((event) => event.type === "user.message").map((event) => event.data.content)).toEqual(["hello", "Check your answer once more."]);
  });

  it("an agentStop hook that always blocks is stopped after a bounded number of continuations", async () => {
    const world = await fixture.startWorld(["many-replies"]);
    let calls = 0;
    const session = await start().createSession({
      onPermissionRequest: approveAll,
      hooks: {
        onAgentStop: () => {
          calls++;
          return { decision: "block", reason: "Keep going." };
        },
      },
    });
    await session.sendAndWait({ prompt: "hello" }, 60_000);
    expect(calls).toBe(5);
    expect(world.model.requests).toHaveLength(6);
  });
});
