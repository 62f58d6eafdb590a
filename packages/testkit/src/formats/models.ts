/**
 * The Copilot API model list (`GET /models`).
 */

/** A model advertised by `GET /models`; rendered in the Copilot API shape. */
export interface ModelSpec {
  /** Model id, e.g. `gpt-4.1`. */
  id: string;
  /** Display name (default: the id). */
  name?: string;
  /** Vendor (default: `Anthropic` for ids starting with `claude`, else `OpenAI`). */
  vendor?: string;
  /** Version string (default: the id). */
  version?: string;
  /** Model family (default: the id). */
  family?: string;
  /** Context window (default 128000). */
  maxContextWindowTokens?: number;
  /** Max output tokens (default 16384). */
  maxOutputTokens?: number;
  /** Max prompt tokens (default: context window minus output tokens). */
  maxPromptTokens?: number;
  /** Whether the model accepts images (default false). */
  vision?: boolean;
  /** Supported reasoning efforts, e.g. `["low", "medium", "high"]`; omitted = no reasoning effort support. */
  reasoningEfforts?: string[];
}

/** The default model list: `gpt-4.1` and `claude-sonnet-4` (a fresh array on every call). */
export function defaultModels(): ModelSpec[] {
  return [
    { id: "gpt-4.1", name: "GPT-4.1", vendor: "Azure OpenAI", version: "gpt-4.1-2025-04-14", maxContextWindowTokens: 128000, maxOutputTokens: 16384 },
    { id: "claude-sonnet-4", name: "Claude Sonnet 4", vendor: "Anthropic", version: "claude-sonnet-4", maxContextWindowTokens: 216000, maxOutputTokens: 16000 },
  ];
}

function renderModel(model: ModelSpec): unknown {
  const contextWindow = model.maxContextWindowTokens ?? 128000;
  const maxOutput = model.maxOutputTokens ?? 16384;
  const supports: Record<string, unknown> = { streaming: true, tool_calls: true, vision: model.vision ?? false };
  if (model.reasoningEfforts) supports.reasoning_effort = model.reasoningEfforts;
  return {
    id: model.id,
    name: model.name ?? model.id,
    object: "model",
    vendor: model.vendor ?? (model.id.startsWith("claude") ? "Anthropic" : "OpenAI"),
    version: model.version ?? model.id,
    model_picker_enabled: true,
    preview: false,
    capabilities: {
      family: model.family ?? model.id,
      type: "chat",
      object: "model_capabilities",
      limits: {
        max_context_window_tokens: contextWindow,
        max_output_tokens: maxOutput,
        max_prompt_tokens: model.maxPromptTokens ?? contextWindow - maxOutput,
      },
      supports,
    },
    policy: { state: "enabled" },
    billing: { is_premium: false, multiplier: 1 },
  };
}

/** The `GET /models` response body. */
export function renderModelList(models: readonly ModelSpec[]): unknown {
  return { object: "list", data: models.map(renderModel) };
}
