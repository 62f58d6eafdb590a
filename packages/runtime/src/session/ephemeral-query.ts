import type { LoopHost } from "../loop/agent-loop.js";

/** What a one-off question needs of a session's loop port: its model, client, system prompt and usage totals. */
export type EphemeralQueryHost = Pick<LoopHost, "model" | "reasoningEffort" | "modelClient" | "systemPrompt" | "recordModelCall">;

/** How long a one-off question may take. */
export const ephemeralQueryTimeoutMs = 120_000;

/**
 * `session.ui.ephemeralQuery`: asks the session's model one question with the session's system
 * prompt and no tools, outside the conversation: nothing is added to the history and no event is
 * emitted; the call counts in the session's usage. Answers the model's text.
 *
 * @example
 * const answer = await askOnce(session.loop, "In one word, what colour is the sky?");
 */
export async function askOnce(host: EphemeralQueryHost, question: string): Promise<string> {
  const started = performance.now();
  const response = await host.modelClient().generate(
    {
      model: host.model,
      system: await host.systemPrompt(),
      messages: [{ role: "user", content: question }],
      tools: [],
      stream: false,
      ...(host.reasoningEffort ? { reasoningEffort: host.reasoningEffort } : {}),
      signal: AbortSignal.timeout(ephemeralQueryTimeoutMs),
    },
    () => undefined,
  );
  host.recordModelCall(host.model, response, performance.now() - started);
  return response.text;
}
