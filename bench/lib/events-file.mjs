/**
 * Builds a large persisted session for the resume benchmark: `session-state/<id>/events.jsonl`
 * with a realistic mix of events (user messages, assistant turns with tool calls and results,
 * one `parentId` chain) and a `workspace.yaml` like the one the runtime writes.
 * @module
 */
import { randomUUID } from "node:crypto";
import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { toolName } from "./scripts.mjs";

const words = "the runtime reads files runs tests edits code and reports what changed in each step of the plan before moving on".split(" ");

/** A deterministic pseudo-random source (so every run resumes the same file). */
function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/**
 * Writes the session and returns its id and size.
 * @param {string} home the state folder (`COPILOT_HOME`)
 * @param {{ events: number, cwd: string, model: string }} options
 * @returns {{ sessionId: string, events: number, bytes: number, userMessages: number }}
 */
export function writeLargeSession(home, options) {
  const sessionId = randomUUID();
  const dir = join(home, "session-state", sessionId);
  mkdirSync(join(dir, "files"), { recursive: true });
  const next = random(42);
  const text = (min, max) => {
    const length = min + Math.floor(next() * (max - min));
    let out = "";
    while (out.length < length) out += `${words[Math.floor(next() * words.length)]} `;
    return out.trim();
  };
  const startTime = Date.parse("2025-01-01T00:00:00.000Z");
  let clock = startTime;
  let parentId = null;
  let count = 0;
  let bytes = 0;
  let userMessages = 0;
  let buffer = [];
  const fd = openSync(join(dir, "events.jsonl"), "w");
  const emit = (type, data) => {
    clock += 1 + Math.floor(next() * 40);
    const id = randomUUID();
    const line = JSON.stringify({ type, data, id, timestamp: new Date(clock).toISOString(), parentId });
    parentId = id;
    count++;
    bytes += line.length + 1;
    buffer.push(line);
    if (buffer.length >= 2000) flush();
  };
  const flush = () => {
    if (buffer.length === 0) return;
    writeSync(fd, `${buffer.join("\n")}\n`);
    buffer = [];
  };

  emit("session.start", {
    sessionId,
    version: 1,
    producer: "bench",
    copilotVersion: "0.0.0",
    startTime: new Date(startTime).toISOString(),
    selectedModel: options.model,
    context: { cwd: options.cwd },
    alreadyInUse: false,
  });
  let firstPrompt;
  while (count < options.events) {
    const interactionId = randomUUID();
    const content = text(40, 240);
    firstPrompt ??= content;
    userMessages++;
    emit("user.message", {
      content,
      transformedContent: `<current_datetime>${new Date(clock).toISOString()}</current_datetime>\n\n${content}`,
      attachments: [],
      interactionId,
    });
    const toolRounds = Math.floor(next() * 3);
    for (let turn = 0; turn <= toolRounds && count < options.events; turn++) {
      emit("assistant.turn_start", { turnId: String(turn), interactionId });
      const last = turn === toolRounds;
      const calls = last ? [] : Array.from({ length: 1 + Math.floor(next() * 2) }, (_, index) => ({
        toolCallId: `call_${randomUUID().replace(/-/g, "").slice(0, 24)}`,
        name: toolName,
        arguments: { step: turn * 10 + index, text: text(10, 60) },
        type: "function",
      }));
      emit("assistant.message", { messageId: randomUUID(), content: last ? text(80, 600) : "", toolRequests: calls, interactionId, outputTokens: 20 + Math.floor(next() * 200) });
      for (const call of calls) emit("tool.execution_start", { toolCallId: call.toolCallId, toolName: call.name, arguments: call.arguments });
      for (const call of calls) {
        emit("tool.execution_complete", { toolCallId: call.toolCallId, success: true, model: options.model, interactionId, result: { content: text(60, 400) } });
      }
      emit("assistant.turn_end", { turnId: String(turn) });
    }
  }
  flush();
  closeSync(fd);
  const iso = (ms) => JSON.stringify(new Date(ms).toISOString());
  writeFileSync(
    join(dir, "workspace.yaml"),
    [
      `id: ${JSON.stringify(sessionId)}`,
      `cwd: ${JSON.stringify(options.cwd)}`,
      "summary_count: 0",
      `created_at: ${iso(startTime)}`,
      `updated_at: ${iso(clock)}`,
      `summary: ${JSON.stringify(firstPrompt ?? "")}`,
      "",
    ].join("\n"),
  );
  return { sessionId, events: count, bytes, userMessages };
}
