/**
 * `npm run demo`: a short conversation through Tandem with a custom tool, streamed.
 * With a real provider configured (COPILOT_API_URL, OPENAI_BASE_URL or OPENAI_API_KEY in the
 * environment) it talks to that; otherwise it starts the testkit's scripted model and says so.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CopilotClient, approveAll } from "@tandem/sdk";
import { ModelServer } from "@tandem/testkit";
import { getWeather } from "./demo-tools.js";

const prompts = ["What's the weather in Lisbon?", "Summarize what you did in one sentence."];

async function main(): Promise<void> {
  const realProvider = process.env.COPILOT_API_URL ?? process.env.OPENAI_BASE_URL ?? (process.env.OPENAI_API_KEY ? "https://api.openai.com/v1" : undefined);
  let model: ModelServer | undefined;
  let home: string | undefined;
  const env: Record<string, string | undefined> = { ...process.env };
  if (realProvider) {
    console.log(`Using the configured model provider at ${realProvider}.`);
  } else {
    model = new ModelServer();
    model.loadScriptFile(fileURLToPath(new URL("../scripts/demo.yaml", import.meta.url)));
    const { url } = await model.start();
    home = mkdtempSync(join(tmpdir(), "tandem-demo-"));
    Object.assign(env, { COPILOT_API_URL: url, GH_TOKEN: "demo-token", COPILOT_HOME: home });
    console.log(`No model provider configured: using the testkit's scripted model at ${url}.`);
    console.log("(Set COPILOT_API_URL + GH_TOKEN, or OPENAI_BASE_URL / OPENAI_API_KEY, to talk to a real model.)\n");
  }

  const started = performance.now();
  const client = new CopilotClient({ env, logLevel: "error" });
  try {
    const session = await client.createSession({ onPermissionRequest: approveAll, tools: [getWeather], streaming: true });
    console.log(`Session ${session.sessionId} ready in ${Math.round(performance.now() - started)} ms.\n`);
    session.on("assistant.message_delta", (event) => process.stdout.write(event.data.deltaContent));
    session.on("assistant.message", () => process.stdout.write("\n"));
    session.on("tool.execution_start", (event) => console.log(`\x1b[34m[tool: ${event.data.toolName} ${JSON.stringify(event.data.arguments)}]\x1b[0m`));
    session.on("permission.requested", (event) => console.log(`\x1b[33m[permission: ${event.data.permissionRequest.kind} — approved]\x1b[0m`));
    for (const prompt of prompts) {
      console.log(`\x1b[1mYou:\x1b[0m ${prompt}`);
      process.stdout.write("\x1b[1mAssistant:\x1b[0m ");
      await session.sendAndWait({ prompt }, 120_000);
      console.log();
    }
    const turns = (await session.getMessages()).filter((event) => event.type === "assistant.turn_start").length;
    console.log(`Done: ${turns} model calls, events saved under ${session.workspacePath ?? "the session folder"}.`);
  } finally {
    await client.stop();
    await model?.stop();
    if (home) rmSync(home, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
