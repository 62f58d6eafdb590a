/// <reference lib="dom" />
/**
 * Tandem Console in a real browser: the system's headless Chromium driven by playwright-core,
 * against the real console server (a child process) driving the real runtime through @tandem/sdk,
 * with the scripted model. Without Chromium these tests fail and say why (never a silent pass).
 */
import { get as httpGet } from "node:http";
import { existsSync, readFileSync } from "node:fs";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { assistantText, ConsoleHarness, idle, newSession, sendPrompt, shot } from "../helpers/console-browser.js";

let harness: ConsoleHarness;
const openConsole = (hash = "") => harness.openConsole(hash);
const inWorkdir = (name: string) => harness.inWorkdir(name);

/** A GET with a forged Host header (fetch does not let one set it): DNS rebinding. */
function statusWithHost(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpGet(url, { headers: { host } }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on("error", reject);
  });
}

beforeAll(async () => {
  harness = await ConsoleHarness.start({ scripts: ["console-browser"] });
}, 60_000);

// A failed test leaves no tab behind.
afterEach(() => harness.closePages());
afterAll(() => harness?.dispose());

describe("Tandem Console in Chromium", () => {
  it("needs the access token for the page, the assets, the API and the event stream (401 without, 403 with a wrong one)", async () => {
    const base = harness.running.url.replace(/\?token=.*$/, "");
    const token = new URL(harness.running.url).searchParams.get("token") ?? "";
    expect(token.length).toBeGreaterThanOrEqual(40);
    for (const path of ["", "app.js", "api/sessions", "api/models", "api/sessions/x/stream"]) {
      expect((await fetch(base + path)).status, path).toBe(401);
      expect((await fetch(`${base}${path}?token=${token.slice(0, -1)}x`)).status, path).toBe(403);
    }
    expect((await fetch(`${base}api/sessions`, { method: "POST", body: "{}" })).status).toBe(401);
    expect(await statusWithHost(`${base}api/sessions?token=${token}`, "evil.example")).toBe(403);
    const page = await harness.browser.newPage();
    expect((await page.goto(base))?.status()).toBe(401);
    expect((await page.goto(harness.running.url))?.status()).toBe(200);
    await page.close();
  });

  it("streams a markdown answer, sanitized", async () => {
    const page = await openConsole();
    await newSession(page);
    // Record every text the answer shows while it streams.
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { seen: string[] }).seen = seen;
      new MutationObserver(() => {
        const text = document.querySelector(".message.assistant")?.textContent;
        if (text && seen.at(-1) !== text) seen.push(text);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    await sendPrompt(page, "stream please");
    await assistantText(page, "The end.");
    await page.waitForSelector("[data-testid=context-meter]:not([hidden])");
    expect(await page.textContent("[data-testid=context-meter] .meter-text")).toMatch(/^[\d,]+ \/ [\d,]+ tokens$/);
    await shot(page, "streamed-answer");
    const seen = await page.evaluate(() => (window as unknown as { seen: string[] }).seen);
    expect(seen.length).toBeGreaterThan(2);
    expect(await page.textContent(".message.assistant strong")).toBe("bold");
    expect(await page.locator(".message.assistant img").count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    await page.close();
  });

  it("holds a shell tool card at 'Waiting for permission' (never 'Running' first); approve runs it", async () => {
    const page = await openConsole();
    await newSession(page);
    await page.evaluate(() => {
      const statuses: string[] = [];
      (window as unknown as { statuses: string[] }).statuses = statuses;
      new MutationObserver(() => {
        const status = document.querySelector<HTMLElement>("[data-tool-call-id=call_approve]")?.dataset.status;
        if (status && statuses.at(-1) !== status) statuses.push(status);
      }).observe(document.body, { subtree: true, childList: true, attributes: true });
    });
    await sendPrompt(page, "approve the shell");
    const card = page.locator("[data-tool-call-id=call_approve]");
    await card.locator("[data-decision=approve-once]").waitFor();
    expect(await card.locator(".permission-command").textContent()).toBe("echo approved > approved.txt");
    expect(await card.locator(".tool-status").textContent()).toBe("Waiting for permission");
    await shot(page, "permission");
    await card.locator("[data-decision=approve-once]").click();
    await assistantText(page, "Approved and written.");
    expect(await card.getAttribute("data-status")).toBe("done");
    expect(readFileSync(inWorkdir("approved.txt"), "utf8")).toBe("approved\n");
    const statuses = await page.evaluate(() => (window as unknown as { statuses: string[] }).statuses);
    expect(statuses.indexOf("waiting")).toBeGreaterThanOrEqual(0);
    expect(statuses.slice(0, statuses.indexOf("waiting"))).not.toContain("running");
    await page.close();
  });

  it("deny: the tool card says Denied and the command did not run (no file on disk)", async () => {
    const page = await openConsole();
    await newSession(page);
    await sendPrompt(page, "deny the shell");
    const card = page.locator("[data-tool-call-id=call_deny]");
    await card.locator("[data-decision=reject]").click();
    await assistantText(page, "Understood, I did not write it.");
    expect(await card.getAttribute("data-status")).toBe("denied");
    expect(existsSync(inWorkdir("denied.txt"))).toBe(false);
    await page.close();
  });

  it("approve for session: the same command again runs without asking", async () => {
    const page = await openConsole();
    await newSession(page);
    await sendPrompt(page, "approve for the session");
    await page.locator("[data-tool-call-id=call_session_1] [data-decision=approve-for-session]").click();
    await assistantText(page, "Both echoes ran.");
    expect(await page.locator("[data-tool-call-id=call_session_2]").getAttribute("data-status")).toBe("done");
    expect(await page.locator("[data-tool-call-id=call_session_2]").getAttribute("data-request-id")).toBeNull();
    expect(await page.locator("[data-tool-call-id=call_session_2] .tool-result").textContent()).toContain("again");
    await page.close();
  });

  it("ask_user: the question with its choices; the picked answer reaches the model", async () => {
    const page = await openConsole();
    await newSession(page);
    await sendPrompt(page, "ask me");
    const ask = page.locator(".ask-card");
    await ask.locator(".ask-question:has-text('Which color?')").waitFor();
    expect(await ask.locator(".ask-choice").allTextContents()).toEqual(["red", "blue"]);
    expect(await page.textContent("[data-tool-call-id=call_ask] .tool-status")).toBe("Waiting for your answer");
    await shot(page, "ask-user");
    await ask.locator(".ask-choice:has-text('blue')").click();
    await assistantText(page, "You picked blue.");
    expect(await ask.locator(".ask-answer").textContent()).toBe("Answered: blue");
    await page.close();
  });

  it("steering while busy: the input stays enabled, a steer reaches the running turn, a queued message waits in the pending list", async () => {
    const page = await openConsole();
    await newSession(page);
    await sendPrompt(page, "long job");
    const card = page.locator("[data-tool-call-id=call_steer]");
    await card.locator("[data-decision=approve-once]").waitFor();
    await page.waitForSelector("body[data-busy=true]");
    expect(await page.isEnabled("[data-testid=prompt]")).toBe(true);
    await page.fill("[data-testid=prompt]", "queued follow-up");
    await page.click("[data-testid=enqueue]");
    await page.waitForSelector(".queue .queued:has-text('queued follow-up')");
    await page.fill("[data-testid=prompt]", "drop me");
    await page.click("[data-testid=enqueue]");
    await page.click(".queue .queued:has-text('drop me') .remove");
    await page.waitForSelector(".queue .queued:has-text('drop me')", { state: "detached" });
    await shot(page, "steering-queue");
    await page.fill("[data-testid=prompt]", "please use metric units");
    await page.click("[data-testid=send]");
    await card.locator("[data-decision=approve-once]").click();
    await assistantText(page, "Switched to metric units.");
    await assistantText(page, "Queued follow-up answered.");
    expect(await page.locator(".message.user:has-text('drop me')").count()).toBe(0);
    await page.waitForSelector(".queue .queued", { state: "detached" });
    expect(harness.world.model.requests.every((request) => request.expectationError === undefined)).toBe(true);
    await page.close();
  });

  it("shows a model error with its type", async () => {
    const page = await openConsole();
    await newSession(page);
    await sendPrompt(page, "fail please");
    const error = page.locator(".conversation .error");
    await error.waitFor();
    expect(await error.getAttribute("data-error-type")).toBeTruthy();
    expect(await error.locator("strong").textContent()).toBe(await error.getAttribute("data-error-type"));
    expect(await error.textContent()).toContain("the model refused this request");
    await idle(page);
    await page.close();
  });

  it("Esc stops a busy turn; the session is usable afterwards", async () => {
    const page = await openConsole();
    await newSession(page);
    await sendPrompt(page, "hang forever");
    await page.waitForSelector("[data-testid=stop]:not([disabled])");
    await page.keyboard.press("Escape");
    await page.waitForSelector(".notice.aborted");
    await idle(page);
    await sendPrompt(page, "and now?");
    await assistantText(page, "Back after the stop.");
    await page.close();
  });

  it("two tabs on one session both see the permission request; the first answer wins and the other tab updates", async () => {
    const first = await openConsole();
    const sessionId = await newSession(first);
    const second = await openConsole(`#/s/${sessionId}`);
    await sendPrompt(first, "two tabs");
    const cardIn = (page: Page) => page.locator("[data-tool-call-id=call_two_tabs]");
    await cardIn(first).locator("[data-decision=approve-once]").waitFor();
    await cardIn(second).locator("[data-decision=approve-once]").waitFor();
    const requestId = await cardIn(second).getAttribute("data-request-id");
    await cardIn(second).locator("[data-decision=approve-once]").click();
    await assistantText(first, "Both tabs saw it.");
    await assistantText(second, "Both tabs saw it.");
    expect(await cardIn(first).locator("[data-decision]").count()).toBe(0);
    expect(await cardIn(first).getAttribute("data-status")).toBe("done");
    expect(readFileSync(inWorkdir("twotabs.txt"), "utf8")).toBe("both\n");
    // A late answer from the other tab finds nothing waiting.
    const late = await first.evaluate(
      async ({ id, request }) => {
        const token = document.querySelector<HTMLMetaElement>('meta[name="tandem-token"]')?.content ?? "";
        const response = await fetch(`/api/sessions/${id}/permission`, { method: "POST", headers: { "x-tandem-token": token, "content-type": "application/json" }, body: JSON.stringify({ requestId: request, decision: "reject" }) });
        return response.status;
      },
      { id: sessionId, request: requestId },
    );
    expect(late).toBe(409);
    await first.close();
    await second.close();
  });

  it("undo to here: the confirmation lists the file, and confirming restores it on disk and rewinds the conversation", async () => {
    const page = await openConsole();
    await newSession(page);
    await sendPrompt(page, "undo edit");
    const card = page.locator("[data-tool-call-id=call_undo_edit]");
    await card.locator(".diff-add:has-text('ALPHA')").waitFor();
    await card.locator("[data-decision=approve-once]").click();
    await assistantText(page, "Edited tracked.txt.");
    await idle(page);
    expect(readFileSync(inWorkdir("tracked.txt"), "utf8")).toBe("ALPHA\n");
    await page.click(".message.user .undo");
    await page.waitForSelector("[data-testid=undo-dialog]:not([hidden]) .undo-files li[data-path]");
    expect(await page.textContent("[data-testid=undo-dialog] .undo-files")).toContain("tracked.txt");
    await shot(page, "undo-confirm");
    await page.click("[data-testid=confirm-undo]");
    await page.waitForSelector(".message.user", { state: "detached" });
    expect(readFileSync(inWorkdir("tracked.txt"), "utf8")).toBe("alpha\n");
    // After a reload the rewound turn stays gone (the runtime's log keeps it, behind the rewind marker).
    await page.reload();
    await page.waitForFunction(() => document.body.dataset.sessionReady === location.hash.slice(4));
    expect(await page.locator(".message").count()).toBe(0);
    await page.close();
  });

  it("resumes a session after the console and its runtime restart: the history is shown and the conversation goes on", async () => {
    let page = await openConsole();
    const sessionId = await newSession(page);
    await sendPrompt(page, "remember me");
    await assistantText(page, "First answer before the restart.");
    await idle(page);
    await page.close();

    await harness.restartConsole();
    page = await openConsole();
    await page.waitForSelector(`.session[data-session-id="${sessionId}"] .session-title:has-text("remember me")`).catch(() => undefined);
    await shot(page, "sessions");
    await page.click(`.session[data-session-id="${sessionId}"]`);
    await page.waitForFunction((id) => document.body.dataset.sessionReady === id, sessionId);
    await page.waitForSelector(".message.user:has-text('remember me')");
    await assistantText(page, "First answer before the restart.");
    await sendPrompt(page, "still there?");
    await assistantText(page, "Second answer after the restart.");
    await page.close();
  });
});
