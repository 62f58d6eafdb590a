/**
 * The contract between the HTTP server and each provider wire format.
 */

/** The three model-calling wire formats the server speaks. */
export type WireFormatName = "chat-completions" | "responses" | "anthropic";

/** A message reduced to role + text, in a format-neutral way. */
export interface MessageSummary {
  /** `user`, `assistant`, `system`, `developer` or `tool` (tool results in every format). */
  role: string;
  /** All text of the message (text parts, tool-result content, tool-call arguments). */
  text: string;
}

/** What the server needs to know about a model request, whatever its wire format. */
export interface ConversationView {
  /** Text of the first user message, used for script `match`. */
  firstUserText: string | undefined;
  /** Number of model turns already in the history = the step index to serve. */
  modelTurns: number;
  /** The last message of the history, used for step `expect`. */
  lastMessage: MessageSummary | undefined;
  /** Whether the client asked for SSE streaming. */
  stream: boolean;
  /** The `model` field of the request. */
  model: string | undefined;
  /** Chat completions: `stream_options.include_usage`. */
  includeUsage: boolean;
  /** Responses API: `include` contains `reasoning.encrypted_content`. */
  includeEncryptedReasoning: boolean;
}

/** A tool call with its id and argument string fixed. */
export interface ResolvedToolCall {
  id: string;
  name: string;
  /** Argument JSON text (or a deliberately invalid raw string). */
  arguments: string;
}

/** Token usage with every number known. */
export interface ResolvedUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
}

/** A reply ready to be rendered in any wire format. */
export interface ResolvedReply {
  /** Response id suffix shared by all ids of the response. */
  responseId: string;
  /** Model name to echo. */
  model: string;
  content: string;
  reasoning: string;
  toolCalls: ResolvedToolCall[];
  usage: ResolvedUsage;
  /** Unix seconds. */
  created: number;
  /** Characters per streamed text delta; undefined = split on words. */
  chunkSize: number | undefined;
  /** Chat completions: split the turn over several choices, as the Copilot API does for Claude. */
  splitChoices: boolean;
}

/** One server-sent event; `data` is JSON-encoded unless it is a string. */
export interface SseEvent {
  event?: string;
  data: unknown;
}

/** Thrown by `inspect` when the request body has the wrong shape (answered with HTTP 400). */
export class BadRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BadRequestError";
  }
}

/** A provider wire format: how to read a request and how to write replies and errors. */
export interface WireFormat {
  readonly name: WireFormatName;
  /** Prefix of generated tool-call ids (`call_`, `toolu_`). */
  readonly toolCallIdPrefix: string;
  /** Reads the request body; throws {@link BadRequestError} on a wrong shape. */
  inspect(body: Record<string, unknown>): ConversationView;
  /** The non-streaming JSON response body. */
  renderJson(reply: ResolvedReply, view: ConversationView): unknown;
  /** The streaming response as SSE events (including any terminator such as `[DONE]`). */
  renderStream(reply: ResolvedReply, view: ConversationView): Iterable<SseEvent>;
  /** The provider's error JSON body. */
  renderError(status: number, message: string, type: string | undefined, code?: string): unknown;
}
