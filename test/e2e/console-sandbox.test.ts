/// <reference lib="dom" />
/**
 * Tandem Console in a real browser with the runtime's sandbox on (bubblewrap): a bash card says
 * where its command will run when it asks, and whether it ran sandboxed when it ends; a bypass
 * request is shown as such, with the model's reason. Real console, real runtime, real bwrap.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { assistantText, ConsoleHarness, newSession, sendPrompt } from "../helpers/console-browser.js";

let harness: ConsoleHarness;

beforeAll(async () => {
  harness = await ConsoleHarness.start({ scripts: ["console-sandbox"], runtimeEnv: { TANDEM_SANDBOX: JSON.stringify({ enabled: true, allowBypass: true }) } });
}, 60_000);

afterEach(() => harness.closePages());
afterAll(() => harness?.dispose());

describe("Tandem Console in Chromium: the sandbox", () => {
  it("bash cards show the sandbox when asking and when done, and a bypass request with its reason", async () => {
    const page = await harness.openConsole();
    await newSession(page);
    await sendPrompt(page, "use the sandbox");
    const inside = page.locator("[data-tool-call-id=call_sandbox_inside]");
    await inside.locator("[data-decision=approve-once]").waitFor();
    expect(await inside.locator(".permission-sandbox").textContent()).toBe("Runs in the session's sandbox");
    expect(await inside.locator(".sandbox-bypass").count()).toBe(0);
    await inside.locator("[data-decision=approve-once]").click();
    await page.waitForSelector("[data-tool-call-id=call_sandbox_inside][data-sandboxed=true]");
    expect(await inside.locator(".tool-sandbox").textContent()).toBe("sandboxed");

    const bypass = page.locator("[data-tool-call-id=call_sandbox_bypass]");
    await bypass.locator("[data-decision=approve-once]").waitFor();
    expect(await bypass.locator(".sandbox-bypass").textContent()).toBe("Runs OUTSIDE the sandbox if you approve: needs the host's docker socket");
    await bypass.locator("[data-decision=approve-once]").click();
    await page.waitForSelector("[data-tool-call-id=call_sandbox_bypass][data-sandboxed=false]");
    expect(await bypass.locator(".tool-sandbox").textContent()).toBe("not sandboxed");
    await assistantText(page, "Both ran.");
  });
});
