/**
 * Logs for machines: `--log-format json` writes one JSON object per line, and at `info` every model
 * call is logged with provider, model, status, latency and tokens, never the prompt or a secret.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CopilotClient, approveAll } from "@github/copilot-sdk";
import { ModelServer } from "@tandem/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { scriptsDir, startWorld, tandemBin, waitFor, type TestWorld } from "../helpers/harness.js";

let world: TestWorld | undefined;
let client: CopilotClient | undefined;
let failingModel: ModelServer | undefined;

afterEach(async () => {
  await client?.stop();
  await failingModel?.stop();
  await world?.dispose();
});

describe("--log-format json", () => {
  it("logs every model call at info as a JSON line with provider, model, status, latency and tokens", async () => {
    world = await startWorld(["plain-reply"]);
    failingModel = new ModelServer();
    failingModel.loadScriptFile(join(scriptsDir, "server-error.yaml"));
    const failing500 = await failingModel.start();
    const logFile = join(world.home, "tandem.log");
    client = new CopilotClient({
      cliPath: tandemBin,
      cliArgs: ["--log-format", "json", "--log-file", logFile],
      logLevel: "info",
      env: { ...world.env, TANDEM_MAX_RETRIES: "0" },
    });
    const session = await client.createSession({ onPermissionRequest: approveAll, model: "gpt-test" });
    await session.sendAndWait({ prompt: "a secret-looking prompt: hunter2" });
    const failing = await client.createSession({
      onPermissionRequest: approveAll,
      model: "byok-model",
      provider: { type: "openai", baseUrl: failing500.url, apiKey: "sk-never-logged" },
    });
    await expect(failing.sendAndWait({ prompt: "fail please" })).rejects.toThrow(/upstream exploded/);

    const lines = () => (existsSync(logFile) ? readFileSync(logFile, "utf8").split("\n").filter((line) => line !== "") : []);
    await waitFor(() => lines().filter((line) => line.includes('"model call"')).length === 2, "two model call lines");
    const records = lines().map((line) => JSON.parse(line) as Record<string, unknown>);
    for (const record of records) {
      expect(typeof record.time).toBe("string");
      expect(["error", "warning", "info", "debug"]).toContain(record.level);
      expect(typeof record.message).toBe("string");
    }
    const calls = records.filter((record) => record.message === "model call");
    expect(calls[0]).toMatchObject({ level: "info", provider: "copilot", model: "gpt-test", status: "ok", inputTokens: 12, outputTokens: 6, finishReason: "stop" });
    expect(calls[1]).toMatchObject({ level: "info", status: "error", errorType: "provider", httpStatus: 500 });
    expect(calls[1]).toMatchObject({ provider: "openai", model: "byok-model" });
    for (const call of calls) expect(call.latencyMs).toBeGreaterThanOrEqual(0);
    const text = lines().join("\n");
    expect(text).not.toContain("hunter2");
    expect(text).not.toContain("test-token");
    expect(text).not.toContain("sk-never-logged");
  });

  it("refuses an unknown format", async () => {
    world = await startWorld(["plain-reply"]);
    client = new CopilotClient({ cliPath: tandemBin, cliArgs: ["--log-format", "xml"], env: world.env, autoRestart: false });
    await expect(client.start()).rejects.toThrow(/--log-format must be one of text, json/);
  });
});
