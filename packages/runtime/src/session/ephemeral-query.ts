import type { ModelClient, ModelResponse } from "../providers/types.js";

/** What a one-off question needs of a session. */
export interface EphemeralQueryHost {
  readonly model: string;
  readonly reasoningEffort: string | undefined;
  modelClient(): ModelClient;
  /** The session's system prompt (the question is asked as the session's agent). */
  systemPrompt(): Promise<string>;
  recordModelCall(model: string, response: ModelResponse, durationMs: number): void;
}

/** How long a one-off question may take. */
export const ephemeralQueryTimeoutMs = 120_000;

/**
 * `session.ui.ephemeralQuery`: asks the session's model one question with the session's system
 * prompt and no tools, outside the conversation: nothing is added to the history and no event is
 * emitted; the call counts in the session's usage. Answers the model's text.
 *
 * @example
 * const answer = await askOnce(session, "In one word, what colour is the sky?");
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
