/**
 * Hooks through the official SDK: the runtime calls `hooks.invoke` at
 * each hook point, wraps it in hook.start / hook.end, applies the output, and survives a hook that
 * never answers.
 */
import { CopilotClient, approveAll, type SessionEvent } from "@github/copilot-sdk";
import { describe, expect, it } from "vitest";
import { waitFor, type TestWorld } from "../helpers/harness.js";
import { clientVariants, officialClientFixture } from "../helpers/official-client.js";

let world: TestWorld | undefined;

type ChatBody = { messages: Array<{ role: string; content: string }> };
const lastMessage = (index: number) => (world?.model.requests[index]?.body as ChatBody).messages.at(-1);

describe.each(clientVariants)("$sdk", ({ make }) => {
  const fixture = officialClientFixture(make);
  const start = (extraEnv: Record<string, string> = {}): CopilotClient => fixture.client(extraEnv);

  it("rewrites tool arguments before and the result after, with hook events", async () => {
    world = await fixture.startWorld(["custom-tool"]);
    const seenArgs: unknown[] = [];
    const hookInputs: Array<{ type: string; input: unknown }> = [];
    const session = await start().createSession({
      onPermissionRequest: approveAll,
      tools: [{ name: "get_weather", description: "Weather", handler: (args) => (seenArgs.push(args), "72 degrees") }],
      hooks: {
        onPreToolUse: (input) => {
          hookInputs.push({ type: "pre", input });
          return { modifiedArgs: { city: "Lyon" } };
        },
        onPostToolUse: (input) => {
          hookInputs.push({ type: "post", input });
          return { modifiedResult: { textResultForLlm: `${input.toolResult.textResultForLlm} (checked by hook)`, resultType: "success" } };
        },
      },
    });
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));
    await session.sendAndWait({ prompt: "weather please" });
    expect(seenArgs).toEqual([{ city: "Lyon" }]);
    expect(hookInputs[0]?.input).toMatchObject({ toolName: "get_weather", toolArgs: { city: "Paris" } });
    expect(hookInputs[1]?.input).toMatchObject({ toolName: "get_weather", toolArgs: { city: "Lyon" }, toolResult: { textResultForLlm: "72 degrees", resultType: "success" } });
    expect(lastMessage(1)).toMatchObject({ role: "tool", content: "72 degrees (checked by hook)" });
    // The official SDK declares hooks with one boolean, so every hook point is invoked; look at the tool ones.
    const hookEvents = events.filter(
      (event) => (event.type === "hook.start" || event.type === "hook.end") && (event.data as { hookType: string }).hookType.endsWith("ToolUse"),
    );
    expect(hookEvents.map((event) => `${event.type}:${(event.data as { hookType: string }).hookType}`)).toEqual([
      "hook.start:preToolUse",
      "hook.end:preToolUse",
      "hook.start:postToolUse",
      "hook.end:postToolUse",
    ]);
    expect(hookEvents[1]?.data).toMatchObject({ success: true, output: { modifiedArgs: { city: "Lyon" } } });
  });

  it("denies a tool call from preToolUse; allow skips the permission request", async () => {
    world = await fixture.startWorld(["custom-tool"]);
    let ran = false;
    let asked = 0;
    const client = start();
    const session = await client.createSession({
      onPermissionRequest: () => (asked++, { kind: "approved" }),
      tools: [{ name: "get_weather", description: "Weather", handler: () => ((ran = true), "72") }],
      hooks: { onPreToolUse: () => ({ permissionDecision: "deny", permissionDecisionReason: "no weather on Sundays" }) },
    });
    await session.sendAndWait({ prompt: "weather please" });
    expect(ran).toBe(false);
    expect(asked).toBe(0);
    expect(lastMessage(1)).toMatchObject({ role: "tool", content: "Denied by preToolUse hook: no weather on Sundays" });

    const allowed = await client.createSession({
      onPermissionRequest: () => (asked++, { kind: "denied-interactively-by-user" }),
      tools: [{ name: "get_weather", description: "Weather", handler: () => ((ran = true), "72") }],
      hooks: { onPreToolUse: () => ({ permissionDecision: "allow" }) },
    });
    await allowed.sendAndWait({ prompt: "weather please" });
    expect(ran).toBe(true);
    expect(asked).toBe(0);
  });

  it("rewrites and rejects prompts; sessionStart context comes before the first prompt", async () => {
    world = await fixture.startWorld(["plain-reply"]);
    const session = await start().createSession({
      onPermissionRequest: approveAll,
      hooks: {
        onSessionStart: (input) => ({ additionalContext: `Started from ${input.source}; the user's name is Ada.` }),
        onUserPromptSubmitted: (input) =>
          input.prompt.includes("forbidden") ? ({ decision: "block", reason: "not allowed here" } as never) : { modifiedPrompt: input.prompt.toUpperCase() },
      },
    });
    const warnings: Array<{ data: { message: string } }> = [];
    session.on("session.warning", (event) => warnings.push(event));
    await session.sendAndWait({ prompt: "hello there" });
    const body = world.model.requests[0]?.body as ChatBody;
    // The sessionStart context is a message of its own, just before the first prompt.
    expect(body.messages[0]?.content).not.toContain("the user's name is Ada");
    expect(body.messages[1]?.content).toMatch(/Started from new; the user's name is Ada\.$/);
    expect(body.messages[2]?.content).toContain("HELLO THERE");
    const userTexts = (await session.getMessages()).flatMap((event) => (event.type === "user.message" ? [event.data.content] : []));
    expect(userTexts).toContain("hello there");

    await session.sendAndWait({ prompt: "something forbidden" });
    expect(world.model.requests).toHaveLength(1);
    expect(warnings[0]?.data.message).toContain("not allowed here");
  });

  it("reports a hook that never answers and carries on; errorOccurred hears about model failures", async () => {
    world = await fixture.startWorld(["server-error"]);
    const errors: unknown[] = [];
    const session = await start({ TANDEM_HOOK_TIMEOUT_MS: "300", TANDEM_MAX_RETRIES: "0" }).createSession({
      onPermissionRequest: approveAll,
      hooks: {
        onUserPromptSubmitted: () => new Promise(() => undefined),
        onErrorOccurred: (input) => {
          errors.push(input);
        },
      },
    });
    const events: SessionEvent[] = [];
    session.on((event) => events.push(event));
    await session.send({ prompt: "go" });
    await waitFor(() => events.some((event) => event.type === "session.idle"), "idle", 10_000);
    const end = events.find((event) => event.type === "hook.end" && event.data.hookType === "userPromptSubmitted");
    expect(end?.data).toMatchObject({ success: false, error: { message: expect.stringContaining("timed out") } });
    expect(events.some((event) => event.type === "session.warning")).toBe(true);
    // The prompt still went to the model (which failed with HTTP 500), and the error hook heard of it.
    expect(world.model.requests).toHaveLength(1);
    await waitFor(() => errors.length === 1, "errorOccurred");
    expect(errors[0]).toMatchObject({ errorContext: "model_call", recoverable: false });
  });
});
