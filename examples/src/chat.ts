/**
 * The chat sample: a REPL on top of Tandem through our SDK. Uses whatever provider the runtime is
 * configured with (COPILOT_API_URL + GH_TOKEN, OPENAI_BASE_URL / OPENAI_API_KEY, …).
 *
 *   node examples/dist/chat.js
 */
import { createInterface } from "node:readline/promises";
import { CopilotClient, approveAll, type SessionEvent } from "@tandem/sdk";
import { getWeather } from "./demo-tools.js";

async function main(): Promise<void> {
  const client = new CopilotClient();
  const session = await client.createSession({ onPermissionRequest: approveAll, tools: [getWeather] });
  session.on((event: SessionEvent) => {
    let output: string | null = null;
    if (event.type === "assistant.reasoning") output = `[reasoning: ${event.data.content}]`;
    else if (event.type === "tool.execution_start") output = `[tool: ${event.data.toolName}]`;
    if (output) console.log(`\x1b[34m${output}\x1b[0m`);
  });
  const terminal = createInterface({ input: process.stdin, output: process.stdout });
  try {
    for (;;) {
      const input = await terminal.question("You: ").catch(() => "/exit");
      if (input.trim() === "/exit") break;
      if (!input.trim()) continue;
      const reply = await session.sendAndWait({ prompt: input }, 300_000);
      console.log(`\nAssistant: ${reply?.data.content ?? "(no reply)"}\n`);
    }
  } finally {
    terminal.close();
    await client.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
