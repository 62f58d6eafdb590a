// Hand-written byte scanner: every incoming message passes through it, and a pass over the raw
// bytes (strings skipped with a native indexOf) costs far less than parsing or walking the value.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/**
 * Whether the JSON text in `bytes` nests arrays/objects deeper than `limit` (the top-level value
 * counts as depth 1). Brackets inside strings do not count. Works on UTF-8 bytes directly: the
 * bytes it looks at are ASCII, which never occur inside a multi-byte UTF-8 sequence. Text that is
 * not valid JSON gives some answer; the JSON parser rejects it afterwards anyway.
 *
 * @example
 * nestsDeeperThan(Buffer.from('{"a":[1]}'), 1) // true: the array is at depth 2
 */
export function nestsDeeperThan(bytes: Uint8Array, limit: number): boolean {
  // Each level needs at least one byte.
  if (bytes.length <= limit) return false;
  const length = bytes.length;
  let depth = 0;
  for (let index = 0; index < length; index++) {
    const byte = bytes[index];
    if (byte === QUOTE) {
      index = closingQuote(bytes, index);
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      if (++depth > limit) return true;
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}

/**
 * The JSON text with every array/object nested inside the top-level value replaced by `{}`: cheap
 * to parse however deep the original was, and it keeps the top-level scalars (`jsonrpc`, `id`,
 * `method`) that an error answer needs. Only used for messages {@link nestsDeeperThan} refused.
 */
export function shallowCopy(bytes: Uint8Array): string {
  const parts: string[] = [];
  const decoder = new TextDecoder();
  const length = bytes.length;
  let depth = 0;
  let keptFrom = 0;
  for (let index = 0; index < length; index++) {
    const byte = bytes[index];
    if (byte === QUOTE) {
      index = closingQuote(bytes, index);
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      depth++;
      if (depth === 2) parts.push(decoder.decode(bytes.subarray(keptFrom, index)), "{}");
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      if (depth === 2) keptFrom = index + 1;
      depth--;
    }
  }
  // An unterminated nested value leaves nothing more to keep: the parser reports it as invalid.
  if (depth < 2) parts.push(decoder.decode(bytes.subarray(keptFrom)));
  return parts.join("");
}

/** Strings shorter than this are scanned byte by byte; longer ones with a native search. */
const INLINE_STRING_SCAN = 48;

/** The index of the quote closing the string opened at `opening` (or the last index if none). */
function closingQuote(bytes: Uint8Array, opening: number): number {
  const length = bytes.length;
  const inlineEnd = Math.min(length, opening + INLINE_STRING_SCAN);
  let at = opening + 1;
  for (; at < inlineEnd; at++) {
    const byte = bytes[at];
    if (byte === BACKSLASH) at++;
    else if (byte === QUOTE) return at;
  }
  at--;
  for (;;) {
    at = bytes.indexOf(QUOTE, at + 1);
    if (at === -1) return length - 1;
    let backslashes = 0;
    while (bytes[at - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
}
