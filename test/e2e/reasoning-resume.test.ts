/**
 * Reasoning survives persistence: Anthropic's signed thinking block is stored on the
 * `assistant.message` event (`reasoningText`, `reasoningOpaque`) and, after a resume from disk,
 * handed back to Anthropic with its signature.
 */
import { join } from "node:path";
import { CopilotClient, type SessionEvent } from "@github/copilot-sdk";
import { ModelServer } from "@tandem/testkit";
import { afterEach, expect, it } from "vitest";
import { eventsOf, scriptsDir, startWorld, tandemBin, type TestWorld } from "../helpers/harness.js";

let world: TestWorld | undefined;
let model: ModelServer | undefined;
const clients: CopilotClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) await client.stop();
  await model?.stop();
  await world?.dispose();
});

type AnthropicBody = { messages: Array<{ role: string; content: Array<{ type: string; thinking?: string; signature?: string }> | string }> };

it("hands a persisted thinking signature back to Anthropic after resuming from disk", async () => {
  world = await startWorld([]);
  model = new ModelServer();
  model.loadScriptFile(join(scriptsDir, "reasoning-resume.yaml"));
  const { url } = await model.start();
  const config = {
    model: "claude-sonnet-4-5",
    provider: { type: "anthropic" as const, baseUrl: url, apiKey: "sk-ant" },
    reasoningEffort: "medium" as const,
    onPermissionRequest: () => ({ kind: "approved" as const }),
    tools: [{ name: "get_weather", description: "Weather for a city", handler: async () => ({ temperature: 72 }) }],
  };
  const first = new CopilotClient({ cliPath: tandemBin, env: world.env, logLevel: "error" });
  clients.push(first);
  const session = await first.createSession(config);
  const events: SessionEvent[] = [];
  session.on((event) => events.push(event));
  await session.sendAndWait({ prompt: "What is the weather in Paris?" });
  const message = eventsOf(events, "assistant.message")[0];
  expect(message?.data.reasoningText).toBe("The user wants the weather in Paris; the tool knows it.");
  expect(message?.data.reasoningOpaque).toEqual(expect.any(String));
  await first.stop();

  const second = new CopilotClient({ cliPath: tandemBin, env: world.env, logLevel: "error" });
  clients.push(second);
  const resumed = await second.resumeSession(session.sessionId, config);
  const reply = await resumed.sendAndWait({ prompt: "And tomorrow?" });
  expect(reply?.data.content).toBe("Tomorrow looks similar.");
  const body = model.requests.at(-1)?.body as AnthropicBody;
  const assistant = body.messages[1]?.content;
  expect(Array.isArray(assistant)).toBe(true);
  const thinking = (assistant as Array<{ type: string; thinking?: string; signature?: string }>)[0];
  expect(thinking).toMatchObject({ type: "thinking", thinking: "The user wants the weather in Paris; the tool knows it." });
  expect(thinking?.signature).toBe(message?.data.reasoningOpaque);
});
