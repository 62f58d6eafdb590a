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
import { RawClient, type WireMessage } from "../helpers/raw-client.js";

let world: TestWorld | undefined;
let client: CopilotClient | undefined;
let failingModel: ModelServer | undefined;
let raw: RawClient | undefined;

afterEach(async () => {
  await raw?.close(true);
  raw = undefined;
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

const isEvent = (type: string) => (message: WireMessage) =>
  message.method === "session.event" && (message.params as { event: { type: string } }).event.type === type;

describe("stderr", () => {
  /** One good turn and one whose provider fails (a warning), at `--log-level debug`; what reached stderr. */
  async function turnsAtDebug(extraArgs: string[]): Promise<string> {
    world = await startWorld(["plain-reply"]);
    failingModel = new ModelServer();
    failingModel.loadScriptFile(join(scriptsDir, "server-error.yaml"));
    const failing500 = await failingModel.start();
    raw = new RawClient({ ...world.env, TANDEM_MAX_RETRIES: "0" }, [...extraArgs, "--log-level", "debug"]);
    const { sessionId } = (await raw.request("session.create", { requestPermission: false })).result as { sessionId: string };
    await raw.request("session.send", { sessionId, prompt: "hello" });
    await raw.waitFor(isEvent("session.idle"), 30_000);
    const failing = (await raw.request("session.create", { requestPermission: false, provider: { type: "openai", baseUrl: failing500.url, apiKey: "sk-x" } })).result as { sessionId: string };
    await raw.request("session.send", { sessionId: failing.sessionId, prompt: "fail please" });
    await raw.waitFor(isEvent("session.error"), 30_000);
    await waitFor(() => raw!.stderr.includes("model call failed"), "the warning on stderr");
    return raw.stderr;
  }

  it("a runtime an SDK spawned (--headless) writes only warnings and errors there, whatever the level", async () => {
    const stderr = await turnsAtDebug(["--headless"]);
    expect(stderr).toMatch(/\[WARNING\] \[sessionId=\S+ interactionId=\S+\] model call failed/);
    expect(stderr).not.toMatch(/\[(INFO|DEBUG)\]/);
  });

  it("a runtime started by hand writes the level asked for", async () => {
    const stderr = await turnsAtDebug([]);
    expect(stderr).toMatch(/\[INFO\] .*model call/);
    expect(stderr).toMatch(/\[DEBUG\]/);
  });
});
