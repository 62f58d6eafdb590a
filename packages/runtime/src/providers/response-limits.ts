import { ProviderError } from "./errors.js";
import type { ModelResponse, ModelStreamPart } from "./types.js";

/**
 * How much one model call may bring back. A provider (or something posing as one) that sends
 * more fails that call with {@link ResponseTooLarge} (`session.error`); the runtime, its clients
 * and the session go on, and the next send works. One place for every wire format the runtime
 * speaks: chat completions (`chat-completions/`), the responses API and Anthropic's messages API
 * (through `ai-sdk-client.ts`).
 */
export interface ResponseLimits {
  /** Bytes of one response body (as received, after decompression): a stream or a JSON body. */
  maxResponseBytes: number;
  /** Bytes of one server-sent event (its lines up to the blank line that ends it). */
  maxSseEventBytes: number;
  /** Characters of the answer's text plus its reasoning, as they accumulate. */
  maxContentChars: number;
  /** Characters of one tool call's arguments (the JSON text the model wrote). */
  maxToolArgumentChars: number;
}

const MiB = 1024 * 1024;

/**
 * 64 MiB per response and 32 Mi characters of text: far more than any model writes in one step
 * (output limits are ~100k tokens, well under 1 MiB), while a message of this size still reaches a
 * client that reads within its outbound budget (`TANDEM_CLIENT_DISCONNECT_BYTES`, 128 MiB: the deltas
 * and the whole message both fit). 16 MiB per SSE event and per tool call's arguments.
 */
export const defaultResponseLimits: ResponseLimits = {
  maxResponseBytes: 64 * MiB,
  maxSseEventBytes: 16 * MiB,
  maxContentChars: 32 * MiB,
  maxToolArgumentChars: 16 * MiB,
};

/** The environment variable of each limit. */
const limitVariables: Record<keyof ResponseLimits, string> = {
  maxResponseBytes: "TANDEM_MAX_RESPONSE_BYTES",
  maxSseEventBytes: "TANDEM_MAX_SSE_EVENT_BYTES",
  maxContentChars: "TANDEM_MAX_RESPONSE_CONTENT_CHARS",
  maxToolArgumentChars: "TANDEM_MAX_TOOL_ARGUMENT_CHARS",
};

const limitWords: Record<keyof ResponseLimits, string> = {
  maxResponseBytes: "the response body exceeded",
  maxSseEventBytes: "one server-sent event exceeded",
  maxContentChars: "the message's text and reasoning exceeded",
  maxToolArgumentChars: "one tool call's arguments exceeded",
};

/**
 * The limits from `TANDEM_MAX_RESPONSE_BYTES`, `TANDEM_MAX_SSE_EVENT_BYTES`,
 * `TANDEM_MAX_RESPONSE_CONTENT_CHARS` and `TANDEM_MAX_TOOL_ARGUMENT_CHARS` (positive numbers), else
 * the defaults.
 *
 * @example
 * responseLimitsFromEnv({ TANDEM_MAX_SSE_EVENT_BYTES: "1048576" }).maxSseEventBytes; // 1048576
 */
export function responseLimitsFromEnv(env: NodeJS.ProcessEnv): ResponseLimits {
  const limits = { ...defaultResponseLimits };
  for (const key of Object.keys(limitVariables) as Array<keyof ResponseLimits>) {
    const value = Number(env[limitVariables[key]]);
    if (Number.isFinite(value) && value > 0) limits[key] = value;
  }
  return limits;
}

/**
 * A model call brought back more than a {@link ResponseLimits} limit allows; the call was stopped
 * (its connection closed). Not retried: the same request would most likely bring the same answer.
 * `data` names the limit, its size and its environment variable.
 */
export class ResponseTooLarge extends ProviderError {
  constructor(
    readonly limit: keyof ResponseLimits,
    readonly limitSize: number,
    providerCallId?: string,
  ) {
    const unit = limit.endsWith("Bytes") ? "bytes" : "characters";
    super(
      `Model response too large: ${limitWords[limit]} the limit of ${limitSize} ${unit} (${limitVariables[limit]}); the call was stopped.`,
      "provider",
      undefined,
      providerCallId,
      false,
      undefined,
    );
    this.name = "ResponseTooLarge";
    Object.assign(this.data ?? {}, { limit: limitVariables[limit], limitSize });
  }
}

/**
 * Counts the bytes of one response body as chunks arrive: the whole body and, for an event stream,
 * each event (bytes since the blank line that ended the previous one). `push` throws
 * {@link ResponseTooLarge} as soon as a limit is passed, before the bytes are parsed.
 *
 * @example
 * const meter = new ResponseMeter(limits, { eventStream: true });
 * for await (const chunk of body) { meter.push(chunk); parser.push(chunk); }
 */
export class ResponseMeter {
  private totalBytes = 0;
  private eventBytes = 0;
  /** Bytes of the line being read (0 just after a line end). */
  private lineBytes = 0;
  /** The previous byte was `\r`: a `\n` right after it belongs to the same line end. */
  private afterCarriageReturn = false;
  /** The error `push` threw, once a limit was passed (a library reading the body may wrap or drop it). */
  exceeded: ResponseTooLarge | undefined;

  constructor(
    private readonly limits: ResponseLimits,
    private readonly options: { eventStream: boolean },
  ) {}

  push(chunk: Uint8Array): void {
    if (this.exceeded) throw this.exceeded;
    this.totalBytes += chunk.byteLength;
    if (this.totalBytes > this.limits.maxResponseBytes) throw (this.exceeded = new ResponseTooLarge("maxResponseBytes", this.limits.maxResponseBytes));
    if (this.options.eventStream) this.countEvents(chunk);
  }

  private countEvents(chunk: Uint8Array): void {
    let start = 0;
    while (start < chunk.length) {
      const end = nextLineEnd(chunk, start);
      if (end === -1) {
        this.lineBytes += chunk.length - start;
        this.afterCarriageReturn = false;
        break;
      }
      const isLineFeedOfCrLf = end === start && chunk[end] === LF && this.afterCarriageReturn;
      this.afterCarriageReturn = chunk[end] === CR;
      if (!isLineFeedOfCrLf) {
        this.lineBytes += end - start;
        // A blank line ends the event.
        if (this.lineBytes === 0) this.eventBytes = 0;
        else this.eventBytes += this.lineBytes + 1;
        this.lineBytes = 0;
        this.checkEvent();
      }
      start = end + 1;
    }
    this.checkEvent();
  }

  /** Throws when the event read so far (complete lines and the line being read) is past the limit. */
  private checkEvent(): void {
    if (this.eventBytes + this.lineBytes > this.limits.maxSseEventBytes) throw (this.exceeded = new ResponseTooLarge("maxSseEventBytes", this.limits.maxSseEventBytes));
  }
}

const LF = 0x0a;
const CR = 0x0d;

function nextLineEnd(chunk: Uint8Array, from: number): number {
  const lineFeed = chunk.indexOf(LF, from);
  const carriageReturn = chunk.indexOf(CR, from);
  if (carriageReturn === -1) return lineFeed;
  if (lineFeed === -1) return carriageReturn;
  return Math.min(lineFeed, carriageReturn);
}

/**
 * Wraps a call's `onPart` so that text and reasoning deltas count against `maxContentChars`:
 * past it, the delta is not forwarded and {@link ResponseTooLarge} is thrown (from inside the
 * stream's parsing, which stops the call).
 *
 * @example
 * const limited = limitContent(onPart, limits);
 */
export function limitContent(onPart: (part: ModelStreamPart) => void, limits: ResponseLimits): (part: ModelStreamPart) => void {
  let chars = 0;
  return (part) => {
    if (part.type === "text-delta" || part.type === "reasoning-delta") {
      chars += part.delta.length;
      if (chars > limits.maxContentChars) throw new ResponseTooLarge("maxContentChars", limits.maxContentChars);
    }
    onPart(part);
  };
}

/**
 * Checks a complete answer (streamed or not) against `maxContentChars` and `maxToolArgumentChars`;
 * throws {@link ResponseTooLarge} for the first limit it passes.
 *
 * @example
 * return assertResponseWithinLimits(completionResponse(text, id), limits);
 */
export function assertResponseWithinLimits(response: ModelResponse, limits: ResponseLimits): ModelResponse {
  const reasoningChars = response.reasoning?.text?.length ?? 0;
  if (response.text.length + reasoningChars > limits.maxContentChars) throw new ResponseTooLarge("maxContentChars", limits.maxContentChars, response.providerCallId);
  for (const call of response.toolCalls) {
    if (call.rawArguments.length > limits.maxToolArgumentChars) throw new ResponseTooLarge("maxToolArgumentChars", limits.maxToolArgumentChars, response.providerCallId);
  }
  return response;
}
