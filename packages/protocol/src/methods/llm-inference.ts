/**
 * App-performed model calls (the official SDK 1.0.x `requestHandler`): a client registers itself
 * with `llmInference.setProvider`; from then on the runtime hands each model-layer HTTP request to
 * it (`llmInference.httpRequestStart` / `httpRequestChunk`, runtime → client) and the client
 * answers with the response head and body frames (`httpResponseStart` / `httpResponseChunk`).
 */
import { z } from "zod";
import { defineRequest } from "../method.js";

/** HTTP headers as lists of values per name. */
export const InferenceHeaders = z.lazy(() => z.record(z.string(), z.array(z.string()).optional()));
export type InferenceHeaders = z.infer<typeof InferenceHeaders>;

/** `llmInference.setProvider`: the calling client performs the runtime's model HTTP requests. */
export const LlmInferenceSetProvider = defineRequest(
  "llmInference.setProvider",
  () => z.looseObject({}).nullish(),
  () => z.looseObject({ success: z.boolean() }),
);

/** `llmInference.httpResponseStart`: the response head of a request the runtime handed over. */
export const LlmInferenceHttpResponseStart = defineRequest(
  "llmInference.httpResponseStart",
  () =>
    z.looseObject({
      requestId: z.string().min(1),
      status: z.number().int().min(100).max(999),
      statusText: z.string().optional(),
      headers: InferenceHeaders,
    }),
  () => z.looseObject({ accepted: z.boolean() }),
);

/** `llmInference.httpResponseChunk`: a response body range, its end, or a transport failure. */
export const LlmInferenceHttpResponseChunk = defineRequest(
  "llmInference.httpResponseChunk",
  () =>
    z.looseObject({
      requestId: z.string().min(1),
      data: z.string(),
      binary: z.boolean().optional(),
      end: z.boolean().optional(),
      error: z.looseObject({ message: z.string(), code: z.string().optional() }).optional(),
    }),
  () => z.looseObject({ accepted: z.boolean() }),
);

/** The requests of this file, for `clientToServerRequests`. */
export const llmInferenceRequests = [LlmInferenceSetProvider, LlmInferenceHttpResponseStart, LlmInferenceHttpResponseChunk] as const;
