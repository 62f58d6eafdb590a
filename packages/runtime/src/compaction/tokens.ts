// Hand-written (no tokenizer dependency): a tokenizer would add megabytes of vocabulary and
// start-up time to the runtime, and compaction only needs a safe estimate between provider reports.
import type { ConversationMessage, ToolSpec } from "../ports/conversation.js";

/** Tokens one message costs beyond its text (role and framing), as chat formats count them. */
export const messageOverheadTokens = 4;
/** The JSON framing of one tool definition (`{"name":…,"description":…,"parameters":…}`). */
const toolFramingTokens = 12;
/** Margin on top of the raw estimate: the estimate must rarely fall below the real count. */
const safetyFactor = 1.1;

const enum CharKind {
  Letter,
  Digit,
  Space,
  Newline,
  Punctuation,
  /** Non-ASCII letters and symbols below the CJK range (accents, Cyrillic, Greek…). */
  Other,
  /** CJK and other wide characters. */
  Wide,
}

function kindOf(code: number): CharKind {
  // Accented Latin letters (U+00C0–U+024F) belong to the words they are in.
  if ((code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 0xc0 && code <= 0x24f && code !== 0xd7 && code !== 0xf7)) return CharKind.Letter;
  if (code >= 48 && code <= 57) return CharKind.Digit;
  if (code === 32 || code === 9) return CharKind.Space;
  if (code === 10 || code === 13) return CharKind.Newline;
  if (code < 128) return CharKind.Punctuation;
  return code >= 0x2e80 ? CharKind.Wide : CharKind.Other;
}

/** {@link kindOf} of every code below U+0250 (ASCII and the accented Latin letters), looked up. */
const latinKinds = Uint8Array.from({ length: 0x250 }, (_, code) => kindOf(code));

/**
 * Estimates how many tokens `text` costs with a BPE tokenizer (o200k / cl100k), without one. The
 * text is read as runs: a run of ASCII letters costs one token per 6 letters (rounded up: short
 * words are one token each), digits one per 3 (tokenizers split numbers in groups of three),
 * as does a run of other non-ASCII letters (accents, Cyrillic, Greek), each ASCII punctuation
 * character 0.6, a run of spaces one token unless it is a single space before a word or the
 * indentation after a newline, a newline half a token, CJK and other wide characters one token
 * each. The sum gets a 10 %
 * margin. Measured against o200k and cl100k on prose, code, JSON, shell output, git logs, hex ids,
 * French, Russian, Greek and Chinese (`test/compaction/tokens.test.ts`), it stays between 0.85 and
 * 1.6 of the real count (Cyrillic and Greek, which the two tokenizers count 2–2.5× apart, land
 * between them): it errs on the high side, so compaction starts a little early rather than too
 * late, and the provider's reported usage corrects it after each call.
 * A text over 1 Mi characters is estimated from evenly spaced slices, scaled to its length.
 *
 * @example
 * estimateTextTokens("Hello, world"); // 4 (the real count is 3)
 */
export function estimateTextTokens(text: string): number {
  if (text.length > exactEstimateMaxChars) return sampledEstimate(text);
  return Math.ceil(rawTokens(text, 0, text.length) * safetyFactor);
}

/**
 * Up to this many characters a text is read whole; a longer one (a multi-megabyte prompt or tool
 * result) is estimated from {@link estimateSamples} evenly spaced slices, scaled to its length:
 * reading 4 Mi characters took 60-90 ms of the runtime's one thread on the shared 2-core test
 * machine, the samples 1-10 ms, within 0.1 % of the whole reading on mixed prose and code. Cutting
 * runs at the slices' edges counts a little high, the safe side.
 */
const exactEstimateMaxChars = 1024 * 1024;
/** How many slices of how many characters a long text is estimated from (256 Ki characters in all). */
const estimateSamples = { count: 64, chars: 4096 };

function sampledEstimate(text: string): number {
  const { count, chars } = estimateSamples;
  const stride = Math.floor((text.length - chars) / (count - 1));
  let tokens = 0;
  for (let sample = 0; sample < count; sample++) tokens += rawTokens(text, sample * stride, sample * stride + chars);
  return Math.ceil(((tokens * text.length) / (count * chars)) * safetyFactor);
}

/** The estimate of `text[start, end)` before the safety margin. */
function rawTokens(text: string, start: number, end: number): number {
  // Hand-written as one loop with the run's end inlined (no closure over the counters) and a table
  // for Latin characters: 11 M characters of a 100k-event history took ~95 ms, now ~25 ms. The
  // additions happen in the same order as in the plain form, so the sums are identical.
  let tokens = 0;
  let kind = -1;
  let run = 0;
  let afterNewline = false;
  for (let index = start; index < end; index++) {
    const code = text.charCodeAt(index);
    const next = code < 0x250 ? (latinKinds[code] as CharKind) : code >= 0x2e80 ? CharKind.Wide : CharKind.Other;
    if (next !== kind) {
      if (kind === CharKind.Letter) tokens += Math.ceil(run / 6);
      else if (kind === CharKind.Digit || kind === CharKind.Other) tokens += Math.ceil(run / 3);
      else if (kind === CharKind.Space && !afterNewline && (run > 1 || next !== CharKind.Letter)) tokens += 1;
      afterNewline = kind === CharKind.Newline;
      run = 0;
      kind = next;
    }
    if (next === CharKind.Letter || next === CharKind.Digit || next === CharKind.Space || next === CharKind.Other) run++;
    else if (next === CharKind.Newline) tokens += 0.5;
    else if (next === CharKind.Punctuation) tokens += 0.6;
    // The second half of a surrogate pair was counted with the first.
    else if (code < 0xdc00 || code > 0xdfff) tokens += 1;
  }
  if (kind === CharKind.Letter) tokens += Math.ceil(run / 6);
  else if (kind === CharKind.Digit || kind === CharKind.Other) tokens += Math.ceil(run / 3);
  else if (kind === CharKind.Space && !afterNewline) tokens += 1;
  return tokens;
}

/**
 * Token estimates of tool names, descriptions and parameter schemas, shared by every session of a
 * runtime: the built-in tools' texts and schemas are the same objects in every session, and each
 * new session estimating all of them again was ~0.2 ms of its first turn (bench scenario 3).
 * Schemas are remembered per object (weakly); texts in a bounded map (applications' own tools
 * come and go), cleared when full.
 */
export class ToolTokenCache {
  private readonly schemas = new WeakMap<object, number>();
  private readonly texts = new Map<string, number>();

  constructor(private readonly maxTexts = 4096) {}

  /** A tool's name or description. */
  text(value: string): number {
    let tokens = this.texts.get(value);
    if (tokens === undefined) {
      tokens = estimateTextTokens(value);
      if (this.texts.size >= this.maxTexts) this.texts.clear();
      this.texts.set(value, tokens);
    }
    return tokens;
  }

  /** A parameter schema's serialised size. */
  schema(parameters: unknown): number {
    if (typeof parameters !== "object" || parameters === null) return 0;
    let tokens = this.schemas.get(parameters);
    if (tokens === undefined) {
      tokens = estimateTextTokens(JSON.stringify(parameters));
      this.schemas.set(parameters, tokens);
    }
    return tokens;
  }
}

/**
 * Token estimates of messages, remembered per message object (messages are never edited in
 * place), so estimating a history again before each model call only reads the new messages.
 */
export class TokenEstimator {
  private readonly cache = new WeakMap<ConversationMessage, number>();
  private systemKey: string | undefined;
  private systemTokens = 0;
  private lastTools: readonly ToolSpec[] | undefined;
  private lastToolsTokens = 0;

  /** @param toolTokens tool estimates shared with the runtime's other sessions (a private cache when absent) */
  constructor(private readonly toolTokens: ToolTokenCache = new ToolTokenCache()) {}

  /** One message: its text, tool calls, and images (a flat 1,000 tokens each, a typical tile count). */
  message(message: ConversationMessage): number {
    const known = this.cache.get(message);
    if (known !== undefined) return known;
    let tokens = messageOverheadTokens + estimateTextTokens(message.content);
    if (message.role === "assistant") {
      for (const call of message.toolCalls) tokens += messageOverheadTokens + estimateTextTokens(call.name) + estimateTextTokens(call.rawArguments);
      if (message.reasoning?.text) tokens += estimateTextTokens(message.reasoning.text);
    }
    if (message.role === "tool") tokens += estimateTextTokens(message.toolName) + (message.images?.length ?? 0) * 1000;
    this.cache.set(message, tokens);
    return tokens;
  }

  /** The messages from `from` up to (not including) `to`. */
  messages(messages: readonly ConversationMessage[], from = 0, to = messages.length): number {
    let total = 0;
    for (let index = from; index < to; index++) total += this.message(messages[index] as ConversationMessage);
    return total;
  }

  /** The system prompt (the last one is remembered). */
  system(text: string): number {
    if (text !== this.systemKey) {
      this.systemKey = text;
      this.systemTokens = messageOverheadTokens + estimateTextTokens(text);
    }
    return this.systemTokens;
  }

  /**
   * The tool definitions sent with every request: name and description, plus each parameter
   * schema's serialised size (see {@link ToolTokenCache}).
   */
  tools(tools: readonly ToolSpec[]): number {
    // Asked three or four times per model call for the same array (see Session.toolSpecs).
    if (tools === this.lastTools) return this.lastToolsTokens;
    let total = 0;
    for (const tool of tools) total += toolFramingTokens + this.toolTokens.text(tool.name) + this.toolTokens.text(tool.description) + this.toolTokens.schema(tool.parameters);
    this.lastTools = tools;
    this.lastToolsTokens = total;
    return total;
  }
}
