/// <reference lib="dom" />
/**
 * Tandem Console in a real browser, second part: code highlighting, reasoning, sub-agents nested
 * under their `task` card, token usage per turn, the new-session form (model picker, reasoning
 * effort, mode), the plan-exit choices, an MCP server's elicitation form, fork, slash commands
 * and the worktree view. Real console, real runtime, real MCP server, system Chromium.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { defaultModels } from "@tandem/testkit";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { assistantText, ConsoleHarness, idle, newSession, sendPrompt, shot } from "../helpers/console-browser.js";

const formServer = fileURLToPath(new URL("../fixtures/console/form-server.mjs", import.meta.url));
let harness: ConsoleHarness;

type ChatBody = { messages?: Array<{ role: string; content: unknown }>; reasoning_effort?: string };
const lastRequestBody = () => harness.world.model.requests.at(-1)?.body as ChatBody;
const requestText = (body: ChatBody | undefined) => JSON.stringify(body?.messages ?? []);

beforeAll(async () => {
  harness = await ConsoleHarness.start({
    scripts: ["console-features"],
    models: [...defaultModels(), { id: "o-think", name: "O Think", reasoningEfforts: ["low", "medium", "high"] }],
    consoleArgs: (workdir) => {
      const config = join(workdir, "..", `${workdir.split("/").at(-1)}-mcp.json`);
      writeFileSync(config, JSON.stringify({ mcpServers: { forms: { command: process.execPath, args: [formServer], tools: ["*"] } } }));
      return ["--mcp-config", config];
    },
  });
}, 60_000);

afterEach(() => harness.closePages());
afterAll(() => harness?.dispose());

describe("Tandem Console in Chromium: the second round", () => {
  it("highlights code blocks with a highlighter loaded only when the first code block arrives", async () => {
    const page = await harness.openConsole();
    const highlighterRequests: string[] = [];
    page.on("request", (request) => {
      if (new URL(request.url()).pathname === "/highlighter.js") highlighterRequests.push(request.url());
    });
    await newSession(page);
    expect(highlighterRequests).toEqual([]);
    await sendPrompt(page, "show code");
    await assistantText(page, "Plain inline code stays plain.");
    await page.waitForSelector(".message.assistant pre code.language-ts.hljs .hljs-keyword");
    expect(await page.locator(".message.assistant pre code.language-ts .hljs-keyword").allTextContents()).toEqual(expect.arrayContaining(["export", "function", "return"]));
    expect(await page.locator(".message.assistant pre code.language-bash .hljs-string").count()).toBeGreaterThan(0);
    expect(await page.locator(".message.assistant p code .hljs-keyword").count()).toBe(0);
    expect(new Set(highlighterRequests).size).toBe(1);
    expect(highlighterRequests[0]).toContain("token=");
    await shot(page, "code-highlighting");
  });

  it("shows reasoning collapsed, opening on a click, and the token usage of the turn beside the context meter", async () => {
    const page = await harness.openConsole();
    await newSession(page);
    await sendPrompt(page, "think first");
    await assistantText(page, "Four.");
    const reasoning = page.locator("details.reasoning");
    await reasoning.waitFor();
    expect(await reasoning.evaluate((element) => (element as HTMLDetailsElement).open)).toBe(false);
    expect(await page.locator(".reasoning-body").isVisible()).toBe(false);
    await reasoning.locator("summary").click();
    expect(await page.locator(".reasoning-body").textContent()).toBe("The user wants me to think. Two plus two is four.");
    expect(await page.locator(".reasoning-body").isVisible()).toBe(true);
    await idle(page);
    const usage = page.locator("[data-testid=turn-usage]");
    await usage.waitFor();
    expect(await usage.textContent()).toMatch(/^This turn: [1-9][\d,]* in.* · [1-9][\d,]* out · 1 model call$/);
    expect(await page.isVisible("[data-testid=context-meter]")).toBe(true);
  });

  it("nests a sub-agent's tool calls under its task card", async () => {
    const page = await harness.openConsole();
    await newSession(page);
    await sendPrompt(page, "delegate the search");
    const task = page.locator("[data-tool-call-id=call_console_task]");
    const nested = task.locator(".tool-children [data-tool-call-id=call_console_sub_view]");
    // The sub-agent's read asks for permission on its card, inside the task card, which runs meanwhile.
    await nested.locator("[data-decision=approve-once]").waitFor();
    expect(await task.getAttribute("data-status")).toBe("running");
    await shot(page, "subagent");
    await nested.locator("[data-decision=approve-once]").click();
    await assistantText(page, "The sub-agent read it.");
    expect(await nested.getAttribute("data-tool-name")).toBe("view");
    expect(await nested.getAttribute("data-status")).toBe("done");
    expect(await task.getAttribute("data-agent")).toBeTruthy();
    // The sub-agent's card is not also a top-level card.
    expect(await page.locator(".conversation > [data-tool-call-id=call_console_sub_view]").count()).toBe(0);
  });

  it("new session form: models from models.list, reasoning effort only for a model that supports it, mode and folder reach the session", async () => {
    const page = await harness.openConsole();
    expect(await page.locator("[data-testid=model-select] option").allTextContents()).toEqual(["GPT-4.1", "Claude Sonnet 4", "O Think"]);
    expect(await page.isVisible("[data-testid=effort-label]")).toBe(false);
    await page.selectOption("[data-testid=model-select]", "o-think");
    await page.waitForSelector("[data-testid=effort-label]:not([hidden])");
    expect(await page.locator("[data-testid=effort-select] option").allTextContents()).toEqual(["Default", "low", "medium", "high"]);
    await page.selectOption("[data-testid=effort-select]", "high");
    await page.selectOption("select[name=mode]", "autopilot");
    expect(await page.inputValue("[data-testid=cwd-input]")).toBe(harness.workdir);
    const folder = harness.inWorkdir("sub");
    mkdirSync(folder, { recursive: true });
    await page.fill("[data-testid=cwd-input]", folder);
    await shot(page, "new-session");
    const sessionId = await newSession(page);
    expect(await page.textContent(`.session[data-session-id="${sessionId}"] .session-meta`)).toBe(folder);
    expect(await page.textContent("[data-testid=model-label]")).toBe("o-think");
    expect(await page.textContent("[data-testid=mode-label]")).toBe("autopilot");
    await sendPrompt(page, "which effort");
    await assistantText(page, "Thinking hard.");
    expect(lastRequestBody().reasoning_effort).toBe("high");
    expect(requestText(lastRequestBody())).toContain(folder);
  });

  it("plan exit: the plan is shown with the four choices; picking one with feedback (in a tab opened later) leaves plan mode and implements", async () => {
    const page = await harness.openConsole();
    await page.selectOption("select[name=mode]", "plan");
    await newSession(page);
    expect(await page.textContent("[data-testid=mode-label]")).toBe("plan");
    await sendPrompt(page, "Plan the fix");
    const card = page.locator(".request-card.plan-exit");
    await card.waitFor();
    expect(await card.locator(".request-message").textContent()).toBe("Fix the bug in two steps");
    expect(await page.textContent("[data-tool-name=exit_plan_mode] .tool-status")).toBe("Waiting for your answer");
    expect(await card.locator(".plan-content h1").textContent()).toBe("Plan");
    expect(await card.locator(".plan-content li").allTextContents()).toEqual(["Reproduce the bug", "Fix it and add a test"]);
    expect(await card.locator(".plan-action").evaluateAll((buttons) => buttons.map((button) => (button as HTMLElement).dataset.action))).toEqual(["interactive", "autopilot", "autopilot_fleet", "exit_only"]);
    expect(await card.locator(".plan-action.recommended").getAttribute("data-action")).toBe("autopilot");
    await card.locator(".plan-feedback").fill("keep it small");
    await shot(page, "plan-exit");
    // A tab opened now gets the pending plan in its snapshot (the request event is ephemeral); it answers first.
    const sessionId = await page.evaluate(() => location.hash.slice(4));
    const second = await harness.openConsole(`#/s/${sessionId}`);
    const secondCard = second.locator(".request-card.plan-exit");
    await secondCard.locator("[data-action=interactive]").waitFor();
    await secondCard.locator(".plan-feedback").fill("keep it small");
    await secondCard.locator("[data-action=interactive]").click();
    await assistantText(page, "Implementing it, small.");
    await page.waitForSelector(".request-card.plan-exit[data-answered=true]");
    // The first tab's late answer finds nothing waiting.
    const requestId = await card.getAttribute("data-request-id");
    const late = await page.evaluate(
      async ({ id, request }) => {
        const token = document.querySelector<HTMLMetaElement>('meta[name="tandem-token"]')?.content ?? "";
        const response = await fetch(`/api/sessions/${id}/plan-exit`, { method: "POST", headers: { "x-tandem-token": token, "content-type": "application/json" }, body: JSON.stringify({ requestId: request, approved: false }) });
        return response.status;
      },
      { id: sessionId, request: requestId },
    );
    expect(late).toBe(409);
    expect(await page.textContent("[data-testid=mode-label]")).toBe("interactive");
    expect(requestText(lastRequestBody())).toContain("The user approved the plan");
  });

  it("elicitation: an MCP server's form from its JSON Schema, checked before it is sent; the answer reaches the server", async () => {
    const page = await harness.openConsole();
    await newSession(page);
    await sendPrompt(page, "sign me up");
    // Calling the MCP tool needs permission first.
    const tool = page.locator("[data-tool-call-id=call_console_signup]");
    await tool.locator("[data-decision=approve-once]").click();
    const card = page.locator(".request-card.elicitation");
    await card.waitFor();
    expect(await card.locator(".request-title").textContent()).toBe("forms asks");
    expect(await card.locator(".request-message").textContent()).toBe("Your details, please");
    expect(await card.locator("select[name=color] option").allTextContents()).toEqual(["Choose…", "Red", "Blue", "Green"]);
    expect(await card.locator("input[name=age]").getAttribute("type")).toBe("number");
    expect(await card.locator("input[name=subscribe]").getAttribute("type")).toBe("checkbox");
    expect(await card.locator("input[name=email]").getAttribute("type")).toBe("email");
    expect(await card.locator(".form-label .required").count()).toBe(3);

    // Nothing filled in: the required fields say so and nothing is sent.
    await card.locator("[data-action=accept]").click();
    expect(await card.locator(".field-error:not([hidden])").evaluateAll((errors) => errors.map((error) => `${(error as HTMLElement).dataset.errorFor}: ${error.textContent}`))).toEqual([
      "name: Required.",
      "color: Required.",
      "age: Required.",
    ]);
    await card.locator("input[name=name]").fill("A");
    await card.locator("input[name=age]").fill("200");
    await card.locator("input[name=email]").fill("not an address");
    await card.locator("[data-action=accept]").click();
    expect(await card.locator("[data-error-for=name]").textContent()).toBe("At least 2 characters.");
    expect(await card.locator("[data-error-for=age]").textContent()).toBe("At most 150.");
    expect(await card.locator("[data-error-for=email]").textContent()).toBe("An email address, please.");
    await shot(page, "elicitation");
    expect(await card.getAttribute("data-answered")).toBeNull();

    await card.locator("input[name=name]").fill("Ada");
    await card.locator("select[name=color]").selectOption("blue");
    await card.locator("input[name=age]").fill("36");
    await card.locator("input[name=email]").fill("");
    await card.locator("input[name=subscribe]").check();
    await card.locator("[data-action=accept]").click();
    await assistantText(page, "You are signed up.");
    await page.waitForSelector(".request-card.elicitation[data-answered=true]");
    expect(requestText(lastRequestBody())).toContain('signed up: {\\"name\\":\\"Ada\\",\\"color\\":\\"blue\\",\\"age\\":36,\\"subscribe\\":true}');
  });

  it("fork from a turn: a new session with the history up to that turn, which goes on by itself", async () => {
    const page = await harness.openConsole();
    const sourceId = await newSession(page);
    await sendPrompt(page, "fork turn one");
    await assistantText(page, "Answer one.");
    await idle(page);
    await sendPrompt(page, "fork turn two");
    await assistantText(page, "Second reply.");
    await idle(page);
    await page.locator(".message.user:has-text('fork turn one') .fork").click();
    await page.waitForFunction((id) => /^#\/s\/./.test(location.hash) && location.hash.slice(4) !== id && document.body.dataset.sessionReady === location.hash.slice(4), sourceId);
    const forkId = await page.evaluate(() => location.hash.slice(4));
    await assistantText(page, "Answer one.");
    expect(await page.locator(".message.user").allTextContents()).toEqual([expect.stringContaining("fork turn one")]);
    await page.waitForSelector(`.session[data-session-id="${forkId}"]`);
    await page.waitForSelector(`.session[data-session-id="${sourceId}"]`);
    await sendPrompt(page, "after the fork");
    await assistantText(page, "Second reply.");
    const sent = requestText(lastRequestBody());
    expect(sent).toContain("fork turn one");
    expect(sent).toContain("after the fork");
    expect(sent).not.toContain("fork turn two");
  });

  it("slash commands: a completion menu from session.commands.list; /plan and /model act on the session without a model call", async () => {
    const page = await harness.openConsole();
    await newSession(page);
    const requestsBefore = harness.world.model.requests.length;
    await page.fill("[data-testid=prompt]", "/");
    const menu = page.locator("[data-testid=slash-menu]");
    await menu.waitFor();
    const listed = await menu.locator(".slash-item").evaluateAll((items) => items.map((item) => (item as HTMLElement).dataset.command));
    expect(listed).toEqual(expect.arrayContaining(["compact", "plan", "fleet", "model", "agent"]));
    await page.locator("[data-testid=prompt]").pressSequentially("pl");
    expect(await menu.locator(".slash-item").evaluateAll((items) => items.map((item) => (item as HTMLElement).dataset.command))).toEqual(["plan"]);
    await shot(page, "slash-commands");
    await page.press("[data-testid=prompt]", "Tab");
    expect(await page.inputValue("[data-testid=prompt]")).toBe("/plan ");
    expect(await menu.isVisible()).toBe(false);
    await page.press("[data-testid=prompt]", "Enter");
    await page.waitForSelector("[data-testid=mode-label][data-mode=plan]");

    await page.fill("[data-testid=prompt]", "");
    await page.locator("[data-testid=prompt]").pressSequentially("/mod");
    await page.press("[data-testid=prompt]", "Enter");
    expect(await page.inputValue("[data-testid=prompt]")).toBe("/model ");
    await page.locator("[data-testid=prompt]").pressSequentially("claude-sonnet-4");
    await page.press("[data-testid=prompt]", "Enter");
    await page.waitForSelector("[data-testid=model-label]:has-text('claude-sonnet-4')");
    expect(harness.world.model.requests.length).toBe(requestsBefore);
    // Esc closes the menu without stopping anything.
    await page.fill("[data-testid=prompt]", "/");
    await menu.waitFor();
    await page.press("[data-testid=prompt]", "Escape");
    expect(await menu.isVisible()).toBe(false);
  });

  it("worktree isolation: the session works on its own branch; the view shows the branch and its diff, the user's checkout is untouched", async () => {
    const page = await harness.openConsole();
    await page.check("[data-testid=worktree-isolation]");
    const sessionId = await newSession(page);
    await sendPrompt(page, "isolated write");
    await page.locator("[data-tool-call-id=call_console_isolated] [data-decision=approve-once]").click();
    await assistantText(page, "Written in the worktree.");
    await idle(page);
    const panel = page.locator("[data-testid=workspace-panel]");
    await panel.waitFor();
    expect(await panel.locator("[data-testid=workspace-branch]").textContent()).toBe(`tandem/${sessionId}`);
    expect(await panel.locator(".workspace-base").textContent()).toBe("main");
    await panel.locator("summary").click();
    await panel.locator(".workspace-change[data-path='isolated.txt'] .diff-add:has-text('+isolated')").waitFor();
    expect(await panel.locator(".workspace-change[data-path='tracked.txt'] .diff-add").allTextContents()).toEqual(["+changed"]);
    expect(await panel.locator("summary").textContent()).toContain("2 files changed");
    await shot(page, "worktree");
    expect(existsSync(harness.inWorkdir("isolated.txt"))).toBe(false);
    expect(readFileSync(harness.inWorkdir("tracked.txt"), "utf8")).toBe("alpha\n");
    // A session without isolation shows no worktree view.
    await page.uncheck("[data-testid=worktree-isolation]");
    const plainId = await newSession(page);
    await page.waitForFunction(() => document.querySelector<HTMLElement>("[data-testid=workspace-panel]")?.hidden === true);
    // Nor is the user's working tree diffed for it.
    const plain = await page.evaluate(async (id) => {
      const token = document.querySelector<HTMLMetaElement>('meta[name="tandem-token"]')?.content ?? "";
      return (await fetch(`/api/sessions/${id}/workspace`, { headers: { "x-tandem-token": token } })).json();
    }, plainId);
    expect(plain).toMatchObject({ workspace: { branch: "main" }, diff: null });
  });

  it("permission views per kind: every shell sub-command, the write's diff, the URL; the intent line says what the tool does", async () => {
    const page = await harness.openConsole();
    await newSession(page);
    await sendPrompt(page, "show every kind");
    const shell = page.locator("[data-tool-call-id=call_kind_shell]");
    await shell.locator("[data-decision=approve-once]").waitFor();
    expect(await page.textContent(".intent")).toBe("Write one.txt and list");
    expect(await shell.locator(".permission-commands li").evaluateAll((items) => items.map((item) => (item as HTMLElement).dataset.command))).toEqual(["echo one > one.txt", "ls -a"]);
    await shell.locator("[data-decision=approve-once]").click();

    const write = page.locator("[data-tool-call-id=call_kind_write]");
    await write.locator("[data-decision=approve-once]").waitFor();
    expect(await write.locator(".permission-title").textContent()).toContain("created.txt");
    expect(await write.locator(".permission-diff .diff-add").allTextContents()).toEqual(["+hello", "+world"]);
    await shot(page, "permission-write");
    await write.locator("[data-decision=approve-once]").click();

    const url = page.locator("[data-tool-call-id=call_kind_url]");
    await url.locator("[data-decision=reject]").waitFor();
    expect(await url.locator(".permission-title").textContent()).toBe("Fetch https://example.invalid/page?");
    expect(await url.locator(".permission-field code").textContent()).toBe("https://example.invalid/page");
    await url.locator("[data-decision=reject]").click();
    await assistantText(page, "Every kind was asked.");
    expect(readFileSync(harness.inWorkdir("created.txt"), "utf8")).toBe("hello\nworld\n");
    expect(await url.getAttribute("data-status")).toBe("denied");
    await idle(page);
    expect(await page.textContent(".intent")).toBe("");
  });

  it("delete: asks to confirm, then the session leaves the list and the page", async () => {
    const page = await harness.openConsole();
    const sessionId = await newSession(page);
    await sendPrompt(page, "delete me later");
    await assistantText(page, "Noted.");
    await idle(page);
    const row = page.locator(`.session[data-session-id="${sessionId}"]`);
    await row.locator("[data-testid=delete-session]").click();
    expect(await row.locator("[data-testid=delete-session]").textContent()).toBe("Confirm delete");
    await row.locator("[data-testid=delete-session]").click();
    await row.waitFor({ state: "detached" });
    await page.waitForFunction(() => location.hash === "");
    await page.reload();
    await page.waitForSelector("body[data-ready=true]");
    expect(await page.locator(`.session[data-session-id="${sessionId}"]`).count()).toBe(0);
  });
});
