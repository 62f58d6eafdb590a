import { LlmInferenceHttpResponseChunk, LlmInferenceHttpResponseStart, LlmInferenceSetProvider } from "@tandem/protocol/methods/llm-inference";
import type { InferenceClient, ResponseChunkFrame, ResponseStartFrame } from "../../providers/client-inference/transport.js";
import type { MethodTable } from "../method-table.js";

/** What the `llmInference.*` methods need: the transport of client-performed model requests. */
export interface InferenceRelay {
  setProvider(client: InferenceClient): void;
  responseStart(frame: ResponseStartFrame): boolean;
  responseChunk(frame: ResponseChunkFrame): boolean;
}

/** `llmInference.setProvider` / `httpResponseStart` / `httpResponseChunk` (SDK 1.0.x `requestHandler`). */
export function registerLlmInferenceMethods(table: MethodTable, relay: InferenceRelay): void {
  table.on(LlmInferenceSetProvider, (_params, client) => {
    relay.setProvider(client);
    return { success: true };
  });
  table.on(LlmInferenceHttpResponseStart, (params) => ({ accepted: relay.responseStart(params) }));
  table.on(LlmInferenceHttpResponseChunk, (params) => ({ accepted: relay.responseChunk(params) }));
}
