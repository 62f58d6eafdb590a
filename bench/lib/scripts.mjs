/**
 * The fake model's scripts. A conversation picks its script by the `[tag:<kind>-<n>]` marker in
 * its first prompt; step i answers the request whose history holds i assistant turns.
 * @module
 */

/** The custom tool every loop calls. */
export const toolName = "bench_echo";

/** One line of reply text. */
export const oneLine = "Hello from the benchmark model.";

/** Size of one streamed delta and number of deltas (1 KiB x 1024 = 1 MiB). */
export const streamChunk = 1024;
export const streamChunks = 1024;

/**
 * A loop of `turns` assistant turns: `turns - 1` tool calls, then a final one-line answer.
 * @param {string} name
 * @param {number} turns
 */
function toolLoop(name, turns) {
  const steps = [];
  for (let step = 0; step < turns - 1; step++) {
    steps.push({ reply: { toolCalls: [{ name: toolName, arguments: { step, text: `step ${step} of the benchmark loop` } }] } });
  }
  steps.push({ reply: { content: oneLine } });
  return { name, match: `[tag:${name}-`, steps };
}

/** Turns of the long session (scenario 9) and the prompt limit it runs under. */
export const longSessionTurns = 1000;
export const longSessionWindow = 8000;

/**
 * Scenario 9: `turns - 1` tool calls served in order (the runtime compacts, so the history does
 * not count turns), then a one-line answer, and one more for the turn after the resume; summary
 * requests are answered by content.
 * @param {number} turns
 */
function longSession(turns) {
  return {
    name: "long",
    match: "[tag:long-",
    sequential: true,
    byContent: [{ contains: "Write a detailed summary of the conversation so far", reply: { content: "Summary {{hit}}. Task: call bench_echo once per step until the last step, then answer. Done: the steps so far. Left: the remaining steps." } }],
    steps: [
      { times: turns - 1, reply: { toolCalls: [{ name: toolName, arguments: { step: 1, text: "one step of the long benchmark session, with a few more words of output to read" } }] } },
      { reply: { content: oneLine } },
      // The turn after the resume.
      { reply: { content: oneLine } },
    ],
  };
}

/** A 1 KiB line of printable ASCII (ends with a newline). */
function kilobyteLine() {
  const alphabet = "abcdefghijklmnopqrstuvwxyz ";
  let line = "";
  while (line.length < streamChunk - 1) line += alphabet[line.length % alphabet.length];
  return `${line}\n`;
}

/** Every script the benchmarks use (served together by one model server). */
export function allScripts() {
  return [
    { name: "plain", steps: [{ reply: { content: oneLine } }] },
    toolLoop("loop20", 20),
    toolLoop("loop5", 5),
    toolLoop("loop2", 2),
    longSession(longSessionTurns),
    {
      name: "stream1m",
      match: "[tag:stream1m-",
      steps: [{ reply: { content: kilobyteLine(), repeat: streamChunks, chunkSize: streamChunk } }],
    },
  ];
}

/**
 * A prompt that selects a script and marks the conversation.
 * @param {string} kind script name: plain, loop20, loop5, loop2, stream1m
 * @param {string | number} id unique within a run
 */
export function prompt(kind, id) {
  return `[tag:${kind}-${id}] Please run the ${kind} benchmark step.`;
}

/**
 * The tag a prompt carries (what the model server reports per request).
 * @param {string} kind
 * @param {string | number} id
 */
export function tagOf(kind, id) {
  return `${kind}-${id}`;
}
