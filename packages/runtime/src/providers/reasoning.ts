import type { ReasoningData } from "../ports/conversation.js";

/**
 * The wire format a reasoning block came from, which is also the only one that can take it back:
 * Anthropic thinking blocks (with their signature, or redacted) and OpenAI responses reasoning
 * items (with their encrypted content, from OpenAI or Azure). Chat-completions reasoning is plain
 * text and has no origin.
 */
export type ReasoningOrigin = "anthropic" | "openai-responses";

/** One reasoning block as the provider produced it. */
export interface ReasoningBlock {
  text: string;
  /**
   * The provider package's metadata of the block, without the provider key: Anthropic
   * `{ signature }` or `{ redactedData }`; OpenAI responses `{ itemId, reasoningEncryptedContent }`.
   */
  data: Record<string, unknown>;
}

/** What `assistant.message` carries about the reasoning of a response. */
export interface ReasoningEventFields {
  /** The readable reasoning (thinking text or reasoning summary). */
  reasoningText?: string;
  /** Anthropic: the signature of the thinking block, or a JSON array when there are several blocks or redacted ones. */
  reasoningOpaque?: string;
  /** OpenAI responses: the reasoning item's `encrypted_content`, or a JSON array when there are several items. */
  encryptedContent?: string;
}

/**
 * Builds the {@link ReasoningData} of a response from its blocks. Blocks of a provider with an
 * origin are kept under `providerMetadata[origin].blocks`, so that the data says where it came from.
 *
 * @example
 * reasoningFromBlocks([{ text: "Hmm.", data: { signature: "sig" } }], "anthropic");
 * // { text: "Hmm.", providerMetadata: { anthropic: { blocks: [{ text: "Hmm.", data: { signature: "sig" } }] } } }
 */
export function reasoningFromBlocks(blocks: readonly ReasoningBlock[], origin: ReasoningOrigin | undefined): ReasoningData | undefined {
  const kept = blocks.filter((block) => block.text !== "" || (origin !== undefined && Object.keys(block.data).length > 0));
  if (kept.length === 0) return undefined;
  const texts = kept.map((block) => block.text).filter((text) => text !== "");
  const text = texts.length > 0 ? texts.join("\n\n") : undefined;
  if (!origin) return text === undefined ? undefined : { text };
  return { ...(text !== undefined ? { text } : {}), providerMetadata: { [origin]: { blocks: kept.map((block) => ({ text: block.text, data: { ...block.data } })) } } };
}

/**
 * The origin recorded in reasoning data (undefined for plain-text reasoning).
 *
 * @example
 * reasoningOrigin(response.reasoning); // "anthropic"
 */
export function reasoningOrigin(reasoning: ReasoningData | undefined): ReasoningOrigin | undefined {
  const keys = Object.keys(reasoning?.providerMetadata ?? {});
  return keys.find((key): key is ReasoningOrigin => key === "anthropic" || key === "openai-responses");
}

/**
 * The blocks recorded in reasoning data (one text block for plain-text reasoning).
 *
 * @example
 * reasoningBlocks({ text: "Hmm." }); // [{ text: "Hmm.", data: {} }]
 */
export function reasoningBlocks(reasoning: ReasoningData | undefined): ReasoningBlock[] {
  if (!reasoning) return [];
  const origin = reasoningOrigin(reasoning);
  if (!origin) return reasoning.text ? [{ text: reasoning.text, data: {} }] : [];
  const blocks = reasoning.providerMetadata?.[origin]?.blocks;
  if (!Array.isArray(blocks)) return [];
  return blocks.flatMap((block: unknown) => {
    const candidate = block as Partial<ReasoningBlock> | null;
    if (!candidate || typeof candidate !== "object") return [];
    return [{ text: typeof candidate.text === "string" ? candidate.text : "", data: isRecord(candidate.data) ? candidate.data : {} }];
  });
}

/**
 * The reasoning fields of `assistant.message` for a response's reasoning.
 *
 * @example
 * emitter.emit("assistant.message", { messageId, content, toolRequests, ...reasoningEventFields(response.reasoning) });
 */
export function reasoningEventFields(reasoning: ReasoningData | undefined): ReasoningEventFields {
  if (!reasoning) return {};
  const fields: ReasoningEventFields = reasoning.text ? { reasoningText: reasoning.text } : {};
  const origin = reasoningOrigin(reasoning);
  const blocks = reasoningBlocks(reasoning);
  if (origin === "anthropic") {
    const opaque = encodeAnthropicBlocks(blocks);
    if (opaque) fields.reasoningOpaque = opaque;
  }
  if (origin === "openai-responses") {
    const encrypted = encodeEncryptedItems(blocks);
    if (encrypted) fields.encryptedContent = encrypted;
  }
  return fields;
}

/**
 * Rebuilds reasoning data from the fields of a persisted `assistant.message` (when a session is
 * resumed), so the next request can hand the reasoning back to the provider that produced it.
 *
 * @example
 * const reasoning = reasoningFromEventFields(event.data); // undefined when the message had no reasoning
 */
export function reasoningFromEventFields(fields: ReasoningEventFields): ReasoningData | undefined {
  const text = fields.reasoningText ?? "";
  if (fields.reasoningOpaque) return reasoningFromBlocks(decodeAnthropicBlocks(fields.reasoningOpaque, text), "anthropic");
  if (fields.encryptedContent) return reasoningFromBlocks(decodeEncryptedItems(fields.encryptedContent, text), "openai-responses");
  return text ? { text } : undefined;
}

function encodeAnthropicBlocks(blocks: readonly ReasoningBlock[]): string | undefined {
  const only = blocks[0];
  if (blocks.length === 1 && only && typeof only.data.signature === "string") return only.data.signature;
  const encoded = blocks.flatMap((block): Array<Record<string, string>> => {
    if (typeof block.data.signature === "string") return [{ text: block.text, signature: block.data.signature }];
    if (typeof block.data.redactedData === "string") return [{ redactedData: block.data.redactedData }];
    return [];
  });
  return encoded.length > 0 ? JSON.stringify(encoded) : undefined;
}

function decodeAnthropicBlocks(opaque: string, text: string): ReasoningBlock[] {
  if (!opaque.startsWith("[")) return [{ text, data: { signature: opaque } }];
  return parseArray(opaque).flatMap((item): ReasoningBlock[] => {
    if (typeof item.signature === "string") return [{ text: typeof item.text === "string" ? item.text : "", data: { signature: item.signature } }];
    if (typeof item.redactedData === "string") return [{ text: "", data: { redactedData: item.redactedData } }];
    return [];
  });
}

function encodeEncryptedItems(blocks: readonly ReasoningBlock[]): string | undefined {
  const items = groupByEncryptedContent(blocks);
  const only = items[0];
  if (items.length === 1 && only) return only.encryptedContent;
  return items.length > 0 ? JSON.stringify(items) : undefined;
}

function decodeEncryptedItems(encrypted: string, text: string): ReasoningBlock[] {
  if (!encrypted.startsWith("[")) return [{ text, data: { reasoningEncryptedContent: encrypted } }];
  return parseArray(encrypted).flatMap((item) =>
    typeof item.encryptedContent === "string"
      ? [{ text: typeof item.text === "string" ? item.text : "", data: { reasoningEncryptedContent: item.encryptedContent } }]
      : [],
  );
}

/**
 * The reasoning items of an OpenAI responses answer: blocks of one item (several summary parts
 * share its encrypted content) become one item with their texts joined.
 *
 * @example
 * groupByEncryptedContent(reasoningBlocks(reasoning)); // [{ text: "Part one.\n\nPart two.", encryptedContent: "gAAAA…" }]
 */
export function groupByEncryptedContent(blocks: readonly ReasoningBlock[]): Array<{ text: string; encryptedContent: string }> {
  const items: Array<{ text: string; encryptedContent: string }> = [];
  for (const block of blocks) {
    const encryptedContent = block.data.reasoningEncryptedContent;
    if (typeof encryptedContent !== "string" || encryptedContent === "") continue;
    const existing = items.find((item) => item.encryptedContent === encryptedContent);
    if (!existing) items.push({ text: block.text, encryptedContent });
    else if (block.text) existing.text = existing.text ? `${existing.text}\n\n${block.text}` : block.text;
  }
  return items;
}

function parseArray(text: string): Array<Record<string, unknown>> {
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? parsed.filter(isRecord) : [];
  } catch {
    return [];
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
