/// <reference lib="dom" />
/**
 * Tandem Console with a provider that lists no models (no `GET /models`, it answers 404), in a real
 * browser: the page loads without an error, offers the default model and says why, and a session
 * starts, answers, and shows the model it runs on.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { assistantText, ConsoleHarness, newSession, sendPrompt } from "../helpers/console-browser.js";

let harness: ConsoleHarness;

beforeAll(async () => {
  harness = await ConsoleHarness.start({ scripts: ["plain-reply"], listsModels: false });
}, 60_000);

afterEach(() => harness.closePages());
afterAll(() => harness?.dispose());

describe("Tandem Console without a model list", () => {
  it("offers the default model, starts a session and shows the session's model", async () => {
    const page = await harness.openConsole();
    page.setDefaultTimeout(15_000);
    expect(await page.isVisible("[data-testid=error-bar]")).toBe(false);
    expect(await page.locator("[data-testid=model-select] option").allTextContents()).toEqual(["Default model"]);
    expect(await page.textContent("[data-testid=model-note]")).toContain("The provider lists no models");
    expect(await page.isVisible("[data-testid=model-note]")).toBe(true);
    await newSession(page);
    expect(await page.isVisible("[data-testid=error-bar]")).toBe(false);
    await page.waitForSelector("[data-testid=model-label]:has-text('gpt-4.1')");
    await sendPrompt(page, "hello");
    await assistantText(page, "Hello from the scripted model.");
    expect(harness.world.model.modelListRequests.length).toBeGreaterThan(0);
  });
});
