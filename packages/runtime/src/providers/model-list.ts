import type { ModelInfo } from "@tandem/protocol";
import { providerErrorFromStatus } from "./error-mapping.js";
import { ProviderError } from "./errors.js";

/** Defaults for what a model list does not say. */
export interface ModelListDefaults {
  /** Context window when the list gives none (128 000 for OpenAI-style lists, 200 000 for Anthropic). */
  contextWindowTokens: number;
  /** Whether models accept a reasoning effort when the list does not say. */
  reasoningEffort: boolean;
}

/**
 * GETs a model list and maps it to the protocol's {@link ModelInfo}. HTTP failures become
 * {@link ProviderError}s; a failure to connect is thrown as is (the caller classifies it).
 *
 * @example
 * await fetchModelList(`${baseUrl}/models`, { Authorization: `Bearer ${token}` }, fetch, { contextWindowTokens: 128_000, reasoningEffort: false });
 */
export async function fetchModelList(url: string, headers: Record<string, string>, fetchImpl: typeof fetch, defaults: ModelListDefaults): Promise<ModelInfo[]> {
  const response = await fetchImpl(url, { headers });
  const text = await response.text();
  if (!response.ok) throw providerErrorFromStatus(response.status, text, response.headers, response.statusText);
  return modelListFromText(url, response.status, text, defaults);
}

/**
 * Maps the body text of a successful model-list response (see {@link parseModelList}); a body
 * that is not JSON fails with a {@link ProviderError}.
 *
 * @example
 * modelListFromText(url, 200, '{"data":[{"id":"llama3.2"}]}', { contextWindowTokens: 128_000, reasoningEffort: false });
 */
export function modelListFromText(url: string, status: number, text: string, defaults: ModelListDefaults): ModelInfo[] {
  try {
    return parseModelList(JSON.parse(text) as unknown, defaults);
  } catch (error) {
    throw new ProviderError(`The model list at ${url} is not valid JSON: ${String(error)}`, "provider", status, undefined, false, undefined);
  }
}

/**
 * Maps a model list body to {@link ModelInfo}s. Understands the Copilot API (`{data: [{id, name,
 * capabilities: {limits, supports}, policy, billing}]}`, non-chat models left out), OpenAI and
 * OpenAI-compatible servers (`{data: [{id}]}`) and Anthropic (`{data: [{id, display_name,
 * max_input_tokens?}]}`).
 *
 * @example
 * parseModelList({ data: [{ id: "claude-sonnet-4-5", display_name: "Claude Sonnet 4.5" }] }, { contextWindowTokens: 200_000, reasoningEffort: true });
 */
export function parseModelList(body: unknown, defaults: ModelListDefaults): ModelInfo[] {
  const list = body as { data?: unknown; models?: unknown } | null;
  const items = Array.isArray(list?.data) ? list.data : Array.isArray(list?.models) ? list.models : [];
  return (items as Array<Record<string, unknown>>).filter(isChatModel).map((item) => toModelInfo(item, defaults));
}

function isChatModel(item: Record<string, unknown>): boolean {
  if (typeof item?.id !== "string") return false;
  const type = (item.capabilities as { type?: unknown } | undefined)?.type;
  return type === undefined || type === "chat";
}

function toModelInfo(item: Record<string, unknown>, defaults: ModelListDefaults): ModelInfo {
  const id = item.id as string;
  const capabilities = (item.capabilities ?? {}) as { limits?: Record<string, number | undefined>; supports?: Record<string, unknown> };
  const limits = capabilities.limits ?? {};
  const supports = capabilities.supports ?? {};
  const efforts = supports.reasoning_effort ?? supports.reasoningEffort;
  const policy = item.policy as { state?: string; terms?: string } | undefined;
  const billing = item.billing as { multiplier?: number } | undefined;
  const name = [item.name, item.display_name].find((value): value is string => typeof value === "string") ?? id;
  return {
    id,
    name,
    capabilities: {
      supports: { vision: Boolean(supports.vision), reasoningEffort: efforts === undefined ? defaults.reasoningEffort : Boolean(efforts) },
      limits: {
        ...(limits.max_prompt_tokens !== undefined ? { max_prompt_tokens: limits.max_prompt_tokens } : {}),
        ...(outputLimit(limits, item) !== undefined ? { max_output_tokens: outputLimit(limits, item) } : {}),
        max_context_window_tokens: limits.max_context_window_tokens ?? numberOr(item.max_input_tokens) ?? defaults.contextWindowTokens,
      },
    },
    ...(Array.isArray(efforts) ? { supportedReasoningEfforts: efforts.filter((effort): effort is string => typeof effort === "string") } : {}),
    ...(policy?.state ? { policy: { state: policy.state, terms: policy.terms ?? "" } } : {}),
    ...(billing?.multiplier !== undefined ? { billing: { multiplier: billing.multiplier } } : {}),
  };
}

function outputLimit(limits: Record<string, number | undefined>, item: Record<string, unknown>): number | undefined {
  return limits.max_output_tokens ?? numberOr(item.max_tokens);
}

function numberOr(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}
