/**
 * Rounds of parallel tool calls compared as sets: a scenario whose runtimes may ask, run and answer
 * the calls of one round in any order (`unorderedRounds` on the scenario, with its reason) has each
 * round put in one canonical order on both sides before they are compared — each call's events
 * together, the calls in the order the model asked for them; the tool results of a model request
 * likewise. What each call asked, got and answered is still compared, only not the interleaving.
 * @module
 */

/** Event types that belong to one call of a round. */
const callEventTypes = new Set([
  "tool.execution_start",
  "tool.execution_partial_result",
  "tool.execution_progress",
  "tool.execution_complete",
  "permission.requested",
  "permission.completed",
  "external_tool.requested",
  "external_tool.completed",
]);

/**
 * The recorded events with each round of several tool calls in canonical order: from the
 * `assistant.message` that asked for them to its turn's `assistant.turn_end`, the events of each
 * call together (in their own order), the calls in the order asked; the round's other events
 * follow in their order. A `permission.completed` without a `toolCallId` belongs to the call of
 * its request (`requestId`).
 * @param {Array<{ session: string, event: any }>} recorded
 * @returns {Array<{ session: string, event: any }>}
 * @example
 * const canonical = roundsInCallOrder(run.events);
 */
export function roundsInCallOrder(recorded) {
  const out = [];
  for (let index = 0; index < recorded.length; index++) {
    const item = recorded[index];
    out.push(item);
    const calls = item.event.type === "assistant.message" ? (item.event.data?.toolRequests ?? []).map((request) => request.toolCallId) : [];
    if (calls.length < 2) continue;
    let end = index + 1;
    while (end < recorded.length && !(recorded[end].session === item.session && recorded[end].event.type === "assistant.turn_end")) end++;
    out.push(...inCallOrder(recorded.slice(index + 1, end), calls));
    index = end - 1;
  }
  return out;
}

/**
 * @param {Array<{ session: string, event: any }>} round
 * @param {string[]} calls
 */
function inCallOrder(round, calls) {
  /** @type {Map<string, string>} */
  const callOfRequest = new Map();
  for (const { event } of round) {
    const callId = event.data?.permissionRequest?.toolCallId ?? event.data?.toolCallId;
    if (event.data?.requestId && callId) callOfRequest.set(event.data.requestId, callId);
  }
  const rank = ({ event }) => {
    if (!callEventTypes.has(event.type)) return calls.length;
    const callId = event.data?.toolCallId ?? event.data?.permissionRequest?.toolCallId ?? callOfRequest.get(event.data?.requestId);
    const position = calls.indexOf(callId);
    return position === -1 ? calls.length : position;
  };
  return round
    .map((item, position) => ({ item, position, rank: rank(item) }))
    .sort((a, b) => a.rank - b.rank || a.position - b.position)
    .map(({ item }) => item);
}

/**
 * A model request body with each run of tool results in the order of the calls of the assistant
 * message before it.
 * @param {any} body
 * @returns {any}
 */
export function toolResultsInCallOrder(body) {
  if (!Array.isArray(body?.messages)) return body;
  const messages = [...body.messages];
  for (let index = 0; index < messages.length; index++) {
    const calls = (messages[index]?.tool_calls ?? []).map((call) => call.id);
    if (messages[index]?.role !== "assistant" || calls.length < 2) continue;
    let end = index + 1;
    while (end < messages.length && messages[end]?.role === "tool") end++;
    const run = messages.slice(index + 1, end);
    const results = [...run].sort((a, b) => calls.indexOf(a.tool_call_id) - calls.indexOf(b.tool_call_id));
    // A cache mark belongs to a place in the conversation (e.g. its last message), not to a call.
    const marks = run.map((message) => message.copilot_cache_control);
    const placed = results.map(({ copilot_cache_control: _mark, ...message }, position) => (marks[position] === undefined ? message : { ...message, copilot_cache_control: marks[position] }));
    messages.splice(index + 1, placed.length, ...placed);
    index = end - 1;
  }
  return { ...body, messages };
}
