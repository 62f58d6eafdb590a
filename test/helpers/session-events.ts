/**
 * Session events as plain records, for tests that compare them field by field whichever SDK
 * (official 0.2.0, official 1.0.x, ours) delivered them: their typed unions differ.
 */
export type AnyEvent = { type: string; data: Record<string, unknown>; ephemeral?: boolean };

/** Every event `session` emits from now on, in order. */
export function recordEvents(session: { on(handler: (event: unknown) => void): unknown }): AnyEvent[] {
  const events: AnyEvent[] = [];
  session.on((event) => events.push(event as AnyEvent));
  return events;
}

/** An application tool answering "72 and sunny" (the `custom-tool` script calls it). */
export const weatherTool = {
  name: "get_weather",
  description: "Weather of a city",
  parameters: { type: "object", properties: { city: { type: "string" } } },
  handler: () => "72 and sunny",
};

/**
 * The sub-agent run an event belongs to, as each generation says it: 1.0.x clients (the official
 * 1.0.x SDK and ours) get it in the envelope's `agentId`, 0.2.0 ones in the data's `parentToolCallId`.
 */
export function subAgentOf(event: unknown): string | undefined {
  const { agentId, data } = event as { agentId?: unknown; data?: { parentToolCallId?: unknown } };
  if (typeof agentId === "string") return agentId;
  return typeof data?.parentToolCallId === "string" ? data.parentToolCallId : undefined;
}
