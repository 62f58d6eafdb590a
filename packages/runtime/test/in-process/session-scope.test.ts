/**
 * Session subsystems built from a session scope alone, with no `Session` around them: the model
 * selection talks to a scripted model over real HTTP and switches models; client membership,
 * hooks and the system prompt reach attached clients through the scope; permissions and tool
 * contexts decide and announce standing approvals; the title announces its own changes. Each
 * subsystem emits its events on the scope's emitter (written to a real event log).
 */
import { afterEach, describe, expect, it } from "vitest";
import { ClientMembership } from "../../src/session/client-membership.js";
import { registrationOf } from "../../src/session/clients.js";
import { HookRunner } from "../../src/hooks/hook-runner.js";
import { ModelSelection } from "../../src/session/model-selection.js";
import { PendingAbandoned } from "../../src/ports/pending.js";
import { ProviderError } from "../../src/providers/errors.js";
import { SessionPermissions } from "../../src/permissions/session-permissions.js";
import { SessionPrompt } from "../../src/session/session-prompt.js";
import { SessionTitle } from "../../src/session/title.js";
import { ToolContexts } from "../../src/session/tool-contexts.js";
import { success, type Tool } from "../../src/tools/types.js";
import { ScriptedClient, scopeWorld, type ScopeWorld } from "../helpers/session-scope.js";

let world: ScopeWorld | undefined;

afterEach(async () => {
  await world?.dispose();
  world = undefined;
});

const twoReplies = `
name: two-replies
sequential: true
steps:
  - reply: { content: "first answer" }
  - reply: { content: "second answer" }
`;

/** A tool whose calls only ask for permission (the contexts under test decide the answers). */
function toolNamed(name: string): Tool {
  return { name, description: `The ${name} tool`, parameters: { type: "object" }, execute: async () => success("done") };
}

/** One non-streamed call of `selection`'s current client on the scope's model. */
async function ask(selection: ModelSelection, model: string): Promise<string> {
  const request = { model, system: "You are a test.", messages: [{ role: "user" as const, content: "hi" }], tools: [], stream: false, signal: AbortSignal.timeout(20_000) };
  return (await selection.client().generate(request, () => undefined)).text;
}

describe("ModelSelection from a scope", () => {
  it("calls the scripted model with the scope's model, and a switch announces itself and reaches the next call", async () => {
    world = await scopeWorld({ scripts: [twoReplies] });
    const { scope, model } = world;
    const selection = new ModelSelection(scope, () => ({ "x-turn": "t1" }));

    expect(await ask(selection, scope.model)).toBe("first answer");
    expect(model.requests.at(-1)?.body).toMatchObject({ model: "gpt-4.1" });
    expect(model.requests.at(-1)?.headers["x-turn"]).toBe("t1");

    selection.switchTo("claude-sonnet-4.5", "high");
    expect(scope.model).toBe("claude-sonnet-4.5");
    expect(scope.config).toMatchObject({ model: "claude-sonnet-4.5", reasoningEffort: "high" });
    expect(world.eventsOf("session.model_change").map((event) => event.data)).toEqual([{ previousModel: "gpt-4.1", newModel: "claude-sonnet-4.5", reasoningEffort: "high" }]);

    expect(await ask(selection, scope.model)).toBe("second answer");
    expect(model.requests.at(-1)?.body).toMatchObject({ model: "claude-sonnet-4.5" });
  });

  it("offers the auto model after a user rate limit to an attached client, and switches when it says yes", async () => {
    world = await scopeWorld();
    const { scope } = world;
    const selection = new ModelSelection(scope, () => undefined);
    const membership = new ClientMembership(scope, () => undefined);
    const client = new ScriptedClient({ "autoModeSwitch.request": () => ({ response: "yes" }) });
    membership.attach(client, { ...registrationOf({}), requestAutoModeSwitch: true });
    const rateLimited = new ProviderError("weekly limit reached", "rate_limit", 429, undefined, false, 60_000, "user_weekly_rate_limited");

    expect(await selection.autoSwitch.offer(rateLimited, new AbortController().signal)).toBe(true);

    expect(client.requests.map((request) => request.method)).toEqual(["autoModeSwitch.request"]);
    expect(scope.model).toBe("auto");
    expect(world.eventsOf("auto_mode_switch.completed").map((event) => event.data.response)).toEqual(["yes"]);
    expect(world.eventsOf("session.model_change").map((event) => event.data)).toEqual([{ previousModel: "gpt-4.1", newModel: "auto", cause: "rate_limit_auto_switch" }]);
    // Clients get an event once the log holds it.
    await scope.emitter.delivered();
    expect(client.eventTypes).toContain("session.model_change");
  });
});

describe("ClientMembership, HookRunner and SessionPrompt from a scope", () => {
  it("runs an attached client's hooks while it is attached; its detach abandons what only it could answer", async () => {
    world = await scopeWorld({ config: { hooks: true } });
    const { scope } = world;
    let registrationsChanged = 0;
    const membership = new ClientMembership(scope, () => registrationsChanged++);
    const hooks = new HookRunner(scope, 5_000);
    const client = new ScriptedClient({ "hooks.invoke": () => ({ output: { additionalContext: "from the hook" } }) });
    expect(hooks.active).toBe(false);

    membership.attach(client, { ...registrationOf({ hooks: true }), requestUserInput: true });
    expect(registrationsChanged).toBe(1);
    expect(hooks.active).toBe(true);
    expect(await hooks.run("sessionStart", { source: "new" })).toEqual({ additionalContext: "from the hook" });
    expect(client.requests[0]).toMatchObject({ method: "hooks.invoke", params: { sessionId: "s1", hookType: "sessionStart", input: { source: "new", cwd: scope.workingDirectory } } });
    await scope.emitter.delivered();
    expect(client.eventTypes).toEqual(["hook.start", "hook.end"]);

    const question = scope.pending.open("userInput", new AbortController().signal);
    membership.detach(client);
    await expect(question.promise).rejects.toBeInstanceOf(PendingAbandoned);
    expect(hooks.active).toBe(false);
    expect(await hooks.run("sessionEnd", { reason: "user_exit" })).toBeUndefined();
  });

  it("builds the system prompt from the scope's configuration, again after it changed", async () => {
    world = await scopeWorld({ config: { systemMessage: { mode: "replace", content: "You are the first prompt." } } });
    const { scope } = world;
    const prompt = new SessionPrompt(scope);
    expect(await prompt.base()).toContain("You are the first prompt.");

    scope.config = { ...scope.config, systemMessage: { mode: "replace", content: "You are the second prompt." } };
    expect(await prompt.base()).toContain("You are the first prompt.");
    prompt.reset();
    expect(await prompt.base()).toContain("You are the second prompt.");
  });
});

describe("SessionPermissions and ToolContexts from a scope", () => {
  it("announces an approve-all change once, and a tool call it covers is approved without asking", async () => {
    world = await scopeWorld();
    const { scope } = world;
    const permissions = new SessionPermissions(scope);
    const contexts = new ToolContexts(scope, permissions, () => "/nowhere/plan.md");

    permissions.setApproveAll(true);
    permissions.setApproveAll(true);
    expect(world.eventsOf("session.permissions_changed").map((event) => event.data)).toEqual([{ previousMode: "manual", mode: "allow-all" }]);

    const tool = toolNamed("deploy");
    const context = contexts.create({ id: "call-1", name: tool.name, rawArguments: "{}" }, tool, new AbortController().signal);
    const result = await context.requestPermission({ kind: "custom-tool", toolName: tool.name, toolDescription: "a tool", args: {} });
    expect(result).toEqual({ kind: "approved" });
    expect(world.eventsOf("permission.completed").map((event) => event.data)).toMatchObject([{ toolCallId: "call-1", decisionSource: "host_policy", result: { kind: "approved" } }]);
    expect(world.eventsOf("permission.requested")).toEqual([]);
  });

  it("plan mode, switched on the scope, denies a write outside the plan file without asking", async () => {
    world = await scopeWorld();
    const { scope } = world;
    const contexts = new ToolContexts(scope, new SessionPermissions(scope), () => "/nowhere/plan.md");
    scope.setMode("plan");
    scope.setMode("plan");
    expect(world.eventsOf("session.mode_changed").map((event) => event.data)).toEqual([{ previousMode: "interactive", newMode: "plan" }]);

    const tool = toolNamed("create");
    const context = contexts.create({ id: "call-2", name: "create", rawArguments: "{}" }, tool, new AbortController().signal);
    const result = await context.requestPermission({ kind: "write", fileName: "/nowhere/other.txt", diff: "", intention: "create a file" });
    expect(result.kind).toMatch(/^denied/);
    expect(world.eventsOf("permission.requested")).toEqual([]);
  });
});

describe("SessionTitle", () => {
  it("announces a user's name only after it was written, and a generated title only while the user gave none", async () => {
    world = await scopeWorld();
    const { scope } = world;
    const title = new SessionTitle(scope.emitter, { summary: "fix the flaky test in the parser module" }, () => undefined);
    expect(title.current()).toContain("fix the flaky test");

    expect(title.setGenerated("Parser test fix")).toBe(true);
    expect(title.current()).toBe("Parser test fix");
    let announcedBeforeWrite: number | undefined;
    await title.rename("Parser", async () => {
      announcedBeforeWrite = world?.eventsOf("session.title_changed").length;
    });
    expect(announcedBeforeWrite).toBe(1);
    expect(title.setGenerated("Another title")).toBe(false);
    expect(world.eventsOf("session.title_changed").map((event) => event.data.title)).toEqual(["Parser test fix", "Parser"]);
    expect(title.current()).toBe("Parser");
  });
});
