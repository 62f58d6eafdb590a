/**
 * Every line the runtime logs about a session carries its `sessionId` (and, during a turn, the
 * message's `interactionId`), in text and JSON formats; at `info` the session's lifecycle, each
 * tool call's start and end and each permission decision get a line of names, ids and outcomes,
 * never the prompt, the tool's arguments or its output.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CopilotClient, approveAll } from "@github/copilot-sdk";
import { afterEach, describe, expect, it } from "vitest";
import { startWorld, tandemBin, waitFor, type TestWorld } from "../helpers/harness.js";

let world: TestWorld | undefined;
let client: CopilotClient | undefined;

afterEach(async () => {
  await client?.stop();
  client = undefined;
  await world?.dispose();
  world = undefined;
});

/** Markers the model script and the prompt use: none may reach the log. */
const contentMarkers = ["prompt-marker-5521", "answer-marker-1", "answer-marker-2", "args-marker-3310", "output-marker", "echo "];

/**
 * Runs one session through a turn with a tool call, a destroy and a resume, logging to a file in
 * `format` (the runtime's default level, `info`); returns the log's lines and the session's id.
 */
async function sessionThroughItsLife(format: "text" | "json"): Promise<{ lines: string[]; sessionId: string }> {
  world = await startWorld(["session-log-lines"]);
  const logFile = join(world.home, "tandem.log");
  const env = { ...world.env, TANDEM_LOG_FILE: logFile };
  client = new CopilotClient({ cliPath: tandemBin, cliArgs: ["--log-format", format], env });
  const session = await client.createSession({ onPermissionRequest: approveAll, model: "gpt-test" });
  const { sessionId } = session;
  await session.sendAndWait({ prompt: "please run the tool: prompt-marker-5521" });
  await session.disconnect();
  const resumed = await client.resumeSession(sessionId, { onPermissionRequest: approveAll });
  await resumed.disconnect();
  const lines = () => (existsSync(logFile) ? readFileSync(logFile, "utf8").split("\n").filter((line) => line !== "") : []);
  await waitFor(() => lines().filter((line) => line.includes("session shut down")).length === 2, "two session shut down lines");
  return { lines: lines(), sessionId };
}

describe("session log lines", () => {
  it("JSON: every session line has the sessionId, turn lines the interactionId; lifecycle, tools and permissions are logged without content", async () => {
    const { lines, sessionId } = await sessionThroughItsLife("json");
    const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const about = (message: string) => records.filter((record) => record.message === message);

    for (const message of ["session created", "session idle", "session resumed", "session shut down", "tool started", "tool finished", "permission decided", "model call"]) {
      expect(about(message).length, message).toBeGreaterThan(0);
      for (const record of about(message)) expect(record, message).toMatchObject({ level: "info", sessionId });
    }
    expect(about("session created")[0]).toMatchObject({ model: "gpt-test" });
    expect(about("session resumed")[0]).toMatchObject({ from: "store" });

    // The turn's lines share the message's interaction id; lines outside a turn have none.
    const calls = about("model call");
    expect(calls).toHaveLength(2);
    const interactionId = calls[0]?.interactionId;
    expect(typeof interactionId).toBe("string");
    for (const record of [...calls, ...about("tool started"), ...about("tool finished"), ...about("permission decided")]) {
      expect(record.interactionId).toBe(interactionId);
    }
    for (const message of ["session created", "session resumed", "session shut down"]) expect(about(message)[0]?.interactionId).toBeUndefined();

    expect(about("tool started")[0]).toMatchObject({ toolName: "bash", toolCallId: "call_log_bash" });
    const finished = about("tool finished")[0];
    expect(finished).toMatchObject({ toolName: "bash", toolCallId: "call_log_bash", success: true, resultType: "success" });
    expect(finished?.durationMs).toBeGreaterThanOrEqual(0);
    expect(about("permission decided")[0]).toMatchObject({ kind: "shell", decision: "approved", decidedBy: "client", toolCallId: "call_log_bash" });

    const text = lines.join("\n");
    for (const marker of contentMarkers) expect(text).not.toContain(marker);
  });

  it("text: the session's lines show [sessionId=… interactionId=…] before the message, and no content", async () => {
    const { lines, sessionId } = await sessionThroughItsLife("text");
    const lineOf = (message: string) => lines.find((line) => line.includes(`] ${message}`));
    expect(lineOf("session created")).toMatch(new RegExp(`\\[INFO\\] \\[sessionId=${sessionId}\\] session created`));
    expect(lineOf("model call")).toMatch(new RegExp(`\\[INFO\\] \\[sessionId=${sessionId} interactionId=[0-9a-f-]{36}\\] model call `));
    expect(lineOf("tool finished")).toMatch(/interactionId=[0-9a-f-]{36}\] tool finished \{"toolName":"bash","toolCallId":"call_log_bash","durationMs":[\d.]+,"success":true,"resultType":"success"\}/);
    expect(lineOf("permission decided")).toContain('"decidedBy":"client"');
    const text = lines.join("\n");
    for (const marker of contentMarkers) expect(text).not.toContain(marker);
  });
});
