/** systemMessage in append, replace and customize modes (with a client-side transform). */
import { CopilotClient, approveAll } from "@github/copilot-sdk";
import { afterEach, describe, expect, it } from "vitest";
import { startWorld, type TestWorld } from "../helpers/harness.js";
import { clientVariants } from "../helpers/official-client.js";

let world: TestWorld | undefined;
let copilot: CopilotClient | undefined;

afterEach(async () => {
  await copilot?.stop();
  await world?.dispose();
});

describe.each(clientVariants)("$sdk", ({ make }) => {
  async function systemPromptFor(systemMessage: Parameters<CopilotClient["createSession"]>[0]["systemMessage"]): Promise<string> {
    world = await startWorld(["plain-reply"]);
    copilot = make(world.env);
    const session = await copilot.createSession({ onPermissionRequest: approveAll, systemMessage });
    await session.sendAndWait({ prompt: "hi" });
    const body = world.model.requests[0]?.body as { messages: Array<{ role: string; content: string }> };
    expect(body.messages[0]?.role).toBe("system");
    return body.messages[0]?.content ?? "";
  }

  it("appends the application's content to Tandem's prompt by default", async () => {
    const prompt = await systemPromptFor({ content: "Always answer in French." });
    expect(prompt).toContain("autonomous software agent");
    expect(prompt).toContain("Always answer in French.");
    expect(prompt.indexOf("Always answer in French.")).toBeGreaterThan(prompt.indexOf("autonomous software agent"));
  });

  it("replaces the whole prompt in replace mode", async () => {
    expect(await systemPromptFor({ mode: "replace", content: "You are a pirate." })).toBe("You are a pirate.");
  });

  it("customizes sections: replace, remove, prepend and a client-side transform", async () => {
    const prompt = await systemPromptFor({
      mode: "customize",
      sections: {
        tone: { action: "replace", content: "Speak like a lighthouse keeper." },
        safety: { action: "remove" },
        guidelines: { action: "prepend", content: "FIRST GUIDELINE." },
        identity: { action: (current: string) => current.replace("autonomous software agent", "careful release engineer") },
      },
      content: "Extra instructions at the end.",
    });
    expect(prompt).toContain("Speak like a lighthouse keeper.");
    expect(prompt).not.toContain("Respect permission denials");
    expect(prompt).toMatch(/FIRST GUIDELINE\.\nWhen something is unclear/);
    expect(prompt).toContain("careful release engineer");
    expect(prompt).not.toContain("autonomous software agent");
    expect(prompt.trim().endsWith("When the task is complete, answer with a concise summary.")).toBe(true);
    expect(prompt).toContain("Extra instructions at the end.");
  });
});
