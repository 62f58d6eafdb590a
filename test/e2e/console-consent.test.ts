/// <reference lib="dom" />
/**
 * Tandem Console (`tandem-console --cwd <folder>`) in a real browser, on a folder that brings an
 * extension: opening a session shows a permission card naming the extension, its file and the
 * folder; denied, the extension is never imported and the conversation shows why and how to allow
 * it; approved, it starts.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { assistantText, ConsoleHarness, newSession, sendPrompt } from "../helpers/console-browser.js";
import { waitFor } from "../helpers/harness.js";

let harness: ConsoleHarness;
let records: string;

beforeAll(async () => {
  harness = await ConsoleHarness.start({ scripts: ["plain-reply"] });
  records = mkdtempSync(join(tmpdir(), "tandem-console-consent-"));
  const entry = harness.inWorkdir(join(".github", "extensions", "hostile", "extension.mjs"));
  mkdirSync(join(entry, ".."), { recursive: true });
  // Writes a file per session the moment it is imported.
  writeFileSync(
    entry,
    `import { writeFileSync } from "node:fs";
writeFileSync(${JSON.stringify(records)} + "/imported-" + process.env.SESSION_ID, "yes");
const { joinSession } = await import("@tandem/sdk/extension");
await joinSession({ tools: [] });
`,
  );
}, 60_000);

afterEach(() => harness.closePages());
afterAll(async () => {
  await harness?.dispose();
  rmSync(records, { recursive: true, force: true });
});

describe("a folder's extension in the console", () => {
  it("is shown as a permission card; denied, it never runs and the conversation says how to allow it", async () => {
    const page = await harness.openConsole();
    const sessionId = await newSession(page);
    const card = page.locator(".permission-title", { hasText: "Start extension hostile from this folder?" });
    await card.waitFor();
    const fields = await page.locator(".permission-field").allTextContents();
    expect(fields).toEqual(["Extensionproject:hostile", "Path.github/extensions/hostile/extension.mjs", `Folder${harness.workdir}`]);
    // The path is shown relative to the session's folder, in full on hover.
    expect(await page.locator(".permission-field code[title]").getAttribute("title")).toBe(harness.inWorkdir(".github/extensions/hostile/extension.mjs"));
    expect(await page.textContent(".permission-warning")).toContain("runs as you");
    await page.click("[data-decision=reject]");
    const notice = await page.waitForSelector(".notice.warning:has-text('project:hostile')");
    expect(await notice.textContent()).toMatch(/was not started: .*the user denied it\. To allow it, .*trustedFolders.*--allow-all/s);
    await sendPrompt(page, "hello");
    await assistantText(page, "Hello from the scripted model.");
    expect(existsSync(join(records, `imported-${sessionId}`))).toBe(false);
    await page.close();
  });

  it("approved from the card, it starts", async () => {
    const page = await harness.openConsole();
    const sessionId = await newSession(page);
    await page.locator(".permission-title", { hasText: "Start extension hostile" }).waitFor();
    await page.click("[data-decision=approve-once]");
    await waitFor(() => existsSync(join(records, `imported-${sessionId}`)), "the approved extension to start", 20_000);
    await page.close();
  });
});
