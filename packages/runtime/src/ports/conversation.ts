/** A tool call as the model made it. `rawArguments` is the exact text the model produced. */
export interface ModelToolCall {
  id: string;
  name: string;
  rawArguments: string;
}

/** Provider-specific reasoning data to hand back to the provider that produced it. */
export interface ReasoningData {
  text?: string;
  /** Opaque provider payload (signatures, encrypted content) keyed by provider. */
  providerMetadata?: Record<string, Record<string, unknown>>;
}

/** One message of the conversation, provider-neutral. */
export type ConversationMessage =
  | { role: "user"; content: string; images?: UserImage[] }
  | { role: "assistant"; content: string; toolCalls: ModelToolCall[]; reasoning?: ReasoningData }
  | {
      role: "tool";
      toolCallId: string;
      toolName: string;
      content: string;
      images?: ToolImage[];
      /** The "interrupted" result of a call the log holds no `tool.execution_complete` for (a crash cut it short, or it never started). */
      unrecorded?: true;
    };

/**
 * An image (or, for a provider that reads documents, a PDF) attached to a user message: shown to
 * the model after the text, after its label.
 */
export interface UserImage {
  label: string;
  mimeType: string;
  /** Base64, no `data:` prefix. */
  data: string;
}

/** An image a tool returned for the model (base64 data). */
export interface ToolImage {
  mimeType: string;
  data: string;
  /** What the image is (e.g. the file it was read from); default: the tool call it came from. */
  caption?: string;
}

/** A tool as offered to the model. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  /**
   * What `parameters` is built from when it is built on first read (see `Tool.parametersSource`):
   * two specs with the same source have the same parameters, known without building them.
   */
  readonly parametersSource?: object;
}

/**
 * The arguments of a tool call as the model wrote them, parsed: empty text is `{}`, and so is text
 * that is not JSON (which is what the model is told when its arguments could not be read).
 *
 * @example
 * parseToolArguments('{"city":"Paris"}'); // { city: "Paris" }
 * parseToolArguments("{oops"); // {}
 */
export function parseToolArguments(raw: string): unknown {
  if (raw.trim() === "") return {};
  try {
    return JSON.parse(raw);
  } catch {
    return {};
  }
}
