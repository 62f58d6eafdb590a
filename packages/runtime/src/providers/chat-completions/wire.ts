/**
 * The OpenAI chat-completions wire format, as far as Tandem sends and reads it. Answers are
 * untrusted JSON: every field is optional here and is checked where it is read.
 */

/** A message of the request's `messages`. */
export type ChatMessage =
  | ({ role: "system"; content: string } & CacheMark)
  | { role: "user"; content: string | ChatUserPart[] }
  | ({ role: "assistant"; content: string | null; reasoning_content: string | undefined; tool_calls: ChatToolCall[] | undefined } & CacheMark)
  | ({ role: "tool"; tool_call_id: string; content: string } & CacheMark);

/** The Copilot API's prompt-cache breakpoint on a message or tool. */
export interface CacheMark {
  copilot_cache_control?: { type: "ephemeral" };
}

/** A part of a user message with several parts (text, then an image). */
export type ChatUserPart = { type: "text"; text: string } | { type: "image_url"; image_url: { url: string } };

/** A tool call of an assistant message sent back to the model. */
export interface ChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** A tool offered to the model. */
export interface ChatTool extends CacheMark {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** The request body (`undefined` fields are left out by `JSON.stringify`). */
export interface ChatRequestBody {
  model: string;
  reasoning_effort: string | undefined;
  messages: ChatMessage[];
  /** The Copilot API's extended-thinking budget (tokens). */
  thinking_budget: number | undefined;
  tools: ChatTool[] | undefined;
  stream: true | undefined;
  stream_options: { include_usage: true } | undefined;
}

/** Token counts (`usage`), in a JSON answer or the last chunk of a stream. */
export interface WireUsage {
  prompt_tokens?: unknown;
  completion_tokens?: unknown;
  prompt_tokens_details?: { cached_tokens?: unknown } | null;
}

/** `content` of a message or delta: a string, or parts (`text`, or `thinking` with text chunks). */
export type WireContent = string | Array<{ type?: unknown; text?: unknown; thinking?: unknown }> | null | undefined;

/** One entry of a delta's `tool_calls`. */
export interface WireToolCallDelta {
  index?: unknown;
  id?: unknown;
  function?: { name?: unknown; arguments?: unknown } | null;
}

/** One `data:` object of a stream. */
export interface WireChunk {
  id?: unknown;
  choices?: Array<{
    /** Which choice the delta belongs to: one answer may be split over several (see `completion.ts`). */
    index?: unknown;
    delta?: { content?: WireContent; reasoning_content?: unknown; reasoning?: unknown; tool_calls?: WireToolCallDelta[] | null } | null;
    finish_reason?: unknown;
  }> | null;
  usage?: WireUsage | null;
  error?: unknown;
}

/** A non-streaming answer. */
export interface WireCompletion {
  id?: unknown;
  choices?: Array<{
    index?: unknown;
    message?: {
      content?: WireContent;
      reasoning_content?: unknown;
      reasoning?: unknown;
      tool_calls?: Array<{ id?: unknown; function?: { name?: unknown; arguments?: unknown } | null }> | null;
    } | null;
    finish_reason?: unknown;
  }> | null;
  usage?: WireUsage | null;
}
