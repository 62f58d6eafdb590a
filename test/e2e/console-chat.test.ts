/// <reference lib="dom" />
/**
 * Tandem Console as a chat app, in a real browser (system Chromium, the real console and runtime,
 * the scripted model): a first message starts a session, a message typed while "New session" is
 * being created goes to the new session, tool output and a write's diff are shown once, the header
 * names the open session (from the list, after undo, after a fork, which is told apart from its
 * source), markdown tables, quotes and code blocks (language, copy), paths relative to the
 * session's folder, and a layout that holds from 1280 px down to 360 px.
 */
import { mkdirSync, readFileSync } from "node:fs";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { assistantText, ConsoleHarness, idle, newSession, sendPrompt, shot } from "../helpers/console-browser.js";

let harness: ConsoleHarness;

beforeAll(async () => {
  harness = await ConsoleHarness.start({ scripts: ["console-chat"] });
}, 60_000);

afterEach(() => harness.closePages());

/** A tab with the console, failing a wait sooner than the test's own timeout (to say which one). */
async function openConsole(hash = ""): Promise<Page> {
  const page = await harness.openConsole(hash);
  page.setDefaultTimeout(15_000);
  return page;
}
afterAll(() => harness?.dispose());

const openSessionId = (page: Page) => page.evaluate(() => location.hash.slice(4));
const waitForOpenSession = (page: Page, sessionId: string) => page.waitForFunction((id) => document.body.dataset.sessionReady === id && location.hash.slice(4) === id, sessionId);

/** Where the composer ends, the viewport's height and the page's scroll width. */
const layoutOf = (page: Page) =>
  page.evaluate(() => ({
    composerBottom: document.querySelector(".composer")?.getBoundingClientRect().bottom ?? -1,
    viewportHeight: window.innerHeight,
    scrollWidth: document.documentElement.scrollWidth,
  }));

describe("Tandem Console as a chat app", () => {
  it("a first message with no session open starts a session and is answered", async () => {
    const page = await openConsole();
    expect(await page.textContent("[data-testid=title]")).toBe("Tandem Console");
    await sendPrompt(page, "first words");
    await page.waitForFunction(() => /^#\/s\/./.test(location.hash) && document.body.dataset.sessionReady === location.hash.slice(4));
    await page.waitForSelector(".message.user:has-text('first words')");
    await assistantText(page, "Started by the first message.");
    // Once: the stream opened while the answer was streaming, and its deltas must not add to the finished text.
    expect((await page.locator(".message.assistant").allTextContents()).map((text) => text.trim())).toEqual(["Started by the first message."]);
    expect(await page.inputValue("[data-testid=prompt]")).toBe("");
  });

  it("a message typed right after pressing New session goes to the new session, not the one open before", async () => {
    const page = await openConsole();
    const oldId = await newSession(page);
    await sendPrompt(page, "the old session");
    await assistantText(page, "Old session answered.");
    await idle(page);
    // The creation is held (a slow network) until the message was typed and sent.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route("**/api/sessions", async (route) => {
      if (route.request().method() === "POST") await held;
      await route.continue();
    });
    await page.click("[data-testid=create-session]");
    await sendPrompt(page, "right after new");
    release();
    await assistantText(page, "Sent to the new session.");
    const newId = await openSessionId(page);
    expect(newId).not.toBe(oldId);
    expect(await page.locator(".message.user").allTextContents()).toEqual([expect.stringContaining("right after new")]);
    await page.click(`.session[data-session-id="${oldId}"]`);
    await waitForOpenSession(page, oldId);
    expect(await page.locator(".message.user").allTextContents()).toEqual([expect.stringContaining("the old session")]);
  });

  it("shows a shell command's output once (the streamed output gives way to the result)", async () => {
    const page = await openConsole();
    await newSession(page);
    await sendPrompt(page, "print two lines");
    const card = page.locator("[data-tool-call-id=call_chat_print]");
    await card.locator("[data-decision=approve-once]").click();
    await assistantText(page, "Printed.");
    await page.waitForSelector("[data-tool-call-id=call_chat_print][data-status=done]");
    const shown = await card.evaluate((element) => Array.from(element.querySelectorAll<HTMLElement>(".tool-output, .tool-result")).filter((part) => part.offsetParent !== null).map((part) => part.textContent ?? "").join("\n"));
    expect(shown.split("out-first").length - 1).toBe(1);
    expect(shown.split("out-second").length - 1).toBe(1);
  });

  it("shows a write's diff once on its permission card, its path relative to the session's folder (the full path on hover)", async () => {
    const page = await openConsole();
    mkdirSync(harness.inWorkdir("notes"), { recursive: true });
    await newSession(page);
    await sendPrompt(page, "write a file once");
    const card = page.locator("[data-tool-call-id=call_chat_write]");
    await card.locator("[data-decision=approve-once]").waitFor();
    expect(await card.locator(".diff").count()).toBe(1);
    expect(await card.locator(".diff .diff-add").allTextContents()).toEqual(["+one", "+two"]);
    expect(await card.locator(".permission-title").textContent()).toBe("Write notes/once.txt?");
    expect(await card.locator(".diff-path").textContent()).toBe("notes/once.txt");
    expect(await card.locator(".diff-path").getAttribute("title")).toBe(harness.inWorkdir("notes/once.txt"));
    expect(await card.locator(".tool-args summary").textContent()).toBe("create: notes/once.txt");
    expect(await card.locator(".tool-args summary").getAttribute("title")).toBe(`create: ${harness.inWorkdir("notes/once.txt")}`);
    await card.locator("[data-decision=approve-once]").click();
    await assistantText(page, "Written once.");
    expect(readFileSync(harness.inWorkdir("notes/once.txt"), "utf8")).toBe("one\ntwo\n");
    expect(await card.locator(".diff").count()).toBe(1);
    // The tool's message names the file relative to the folder too.
    expect(await card.locator(".tool-result").textContent()).toContain("notes/once.txt");
    expect(await card.locator(".tool-result").textContent()).not.toContain(harness.workdir);
  });

  it("a read's card shows its path relative to the session's folder", async () => {
    const page = await openConsole();
    await newSession(page);
    await sendPrompt(page, "view by path");
    const card = page.locator("[data-tool-call-id=call_chat_view]");
    await card.waitFor();
    expect(await card.locator(".tool-args summary").textContent()).toBe("view: tracked.txt");
    const approve = card.locator("[data-decision=approve-once]");
    await approve.waitFor();
    expect(await card.locator(".permission-title").textContent()).toBe("Read tracked.txt?");
    expect(await card.locator(".permission-field code").textContent()).toBe("tracked.txt");
    expect(await card.locator(".permission-field code").getAttribute("title")).toBe(harness.inWorkdir("tracked.txt"));
    await approve.click();
    await assistantText(page, "Viewed.");
  });

  it("the header names the session: opened from the list, after undo and after a fork, which is named apart and shows its model", async () => {
    let page = await openConsole();
    const sourceId = await newSession(page);
    await sendPrompt(page, "titled chat");
    await assistantText(page, "Reply one.");
    await idle(page);
    await page.waitForSelector("[data-testid=title]:has-text('titled chat')");
    await sendPrompt(page, "second turn");
    await assistantText(page, "Reply two.");
    await idle(page);
    await page.close();

    // A tab opened later, opening the session from the list.
    page = await openConsole();
    await page.click(`.session[data-session-id="${sourceId}"]`);
    await waitForOpenSession(page, sourceId);
    await assistantText(page, "Reply two.");
    expect(await page.textContent("[data-testid=title]")).toBe("titled chat");
    const sourceModel = await page.textContent("[data-testid=model-label]");
    expect(sourceModel).toBeTruthy();

    // Undo the second turn: the conversation is reopened, and still named.
    await page.click(".message.user:has-text('second turn') .undo");
    await page.click("[data-testid=confirm-undo]");
    await page.waitForSelector(".message.user:has-text('second turn')", { state: "detached" });
    await page.waitForFunction((id) => document.body.dataset.sessionReady === id, sourceId);
    expect(await page.textContent("[data-testid=title]")).toBe("titled chat");

    // Fork: a new session named after its source, with its model shown.
    await page.locator(".message.user:has-text('titled chat') .fork").click();
    await page.waitForFunction((id) => /^#\/s\/./.test(location.hash) && location.hash.slice(4) !== id && document.body.dataset.sessionReady === location.hash.slice(4), sourceId);
    const forkId = await openSessionId(page);
    await assistantText(page, "Reply one.");
    await page.waitForSelector("[data-testid=title]:has-text('titled chat (fork)')");
    expect(await page.textContent("[data-testid=model-label]")).toBe(sourceModel);
    await page.waitForSelector(`.session[data-session-id="${forkId}"] .session-title:has-text('titled chat (fork)')`);
    expect(await page.textContent(`.session[data-session-id="${sourceId}"] .session-title`)).toBe("titled chat");
  });

  it("renders tables and quotes styled, and code blocks with their language and a Copy button", async () => {
    const page = await openConsole();
    await harness.browser.grantPermissions(["clipboard-read", "clipboard-write"], { origin: new URL(harness.running.url).origin });
    await newSession(page);
    await sendPrompt(page, "markdown extras");
    await assistantText(page, "End of extras.");
    const answer = page.locator(".message.assistant[data-complete=true]");
    expect(await answer.locator("table th").allTextContents()).toEqual(["Name", "Size"]);
    const cellBorder = await answer.locator("table td").first().evaluate((cell) => getComputedStyle(cell).borderTopWidth);
    expect(cellBorder).not.toBe("0px");
    const quoteBorder = await answer.locator("blockquote").evaluate((quote) => getComputedStyle(quote).borderLeftWidth);
    expect(quoteBorder).not.toBe("0px");
    expect(await answer.locator(".code-block .code-lang").textContent()).toBe("ts");
    await answer.locator(".code-block .copy-code").click();
    await answer.locator(".code-block .copy-code[data-copied=true]").waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe("const answer = 42;\n");
  });

  it("follows a long answer to its end while the reader is at the end", async () => {
    const page = await openConsole();
    await page.setViewportSize({ width: 800, height: 500 });
    await newSession(page);
    await sendPrompt(page, "a long answer");
    await assistantText(page, "The last line.");
    await page.waitForFunction(() => {
      const scroller = document.querySelector<HTMLElement>(".main");
      const last = Array.from(document.querySelectorAll(".message.assistant p")).at(-1)?.getBoundingClientRect();
      return scroller !== null && scroller.scrollHeight > scroller.clientHeight && last !== undefined && last.bottom <= scroller.getBoundingClientRect().bottom;
    });
  });

  it("at 360 px the sidebar is a drawer behind a button and the message box stays at the bottom; at 1280 px too", async () => {
    const page = await openConsole();
    await page.setViewportSize({ width: 360, height: 740 });
    const sidebar = page.locator("[data-testid=sidebar]");
    await sidebar.waitFor({ state: "hidden" });
    expect((await layoutOf(page)).scrollWidth).toBeLessThanOrEqual(360);
    await page.click("[data-testid=sidebar-toggle]");
    await page.waitForFunction(() => {
      const box = document.querySelector("[data-testid=sidebar]")?.getBoundingClientRect();
      return box !== undefined && box.left >= 0 && box.width > 200;
    });
    expect(await page.isVisible("[data-testid=create-session]")).toBe(true);
    await page.click("[data-testid=create-session]");
    await page.waitForFunction(() => /^#\/s\/./.test(location.hash) && document.body.dataset.sessionReady === location.hash.slice(4));
    await sidebar.waitFor({ state: "hidden" });
    await sendPrompt(page, "short talk");
    await assistantText(page, "Short.");
    await idle(page);
    let layout = await layoutOf(page);
    expect(Math.abs(layout.composerBottom - layout.viewportHeight)).toBeLessThanOrEqual(1);
    expect(layout.scrollWidth).toBeLessThanOrEqual(360);
    expect(await page.isVisible("[data-testid=prompt]")).toBe(true);
    await shot(page, "narrow");

    await page.setViewportSize({ width: 1280, height: 800 });
    expect(await sidebar.isVisible()).toBe(true);
    expect(await page.isVisible("[data-testid=sidebar-toggle]")).toBe(false);
    layout = await layoutOf(page);
    expect(Math.abs(layout.composerBottom - layout.viewportHeight)).toBeLessThanOrEqual(1);
  });
});
