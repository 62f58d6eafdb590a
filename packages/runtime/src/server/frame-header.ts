/** The largest header block accepted (`Content-Length` plus an optional `Content-Type`). */
export const MAX_HEADER_BYTES = 8192;

/** A header block that frames a message. */
export interface FrameHeader {
  /** Body length in bytes. */
  length: number;
  /** Set when `Content-Type` names a charset other than UTF-8 (the only one read). */
  unsupportedCharset?: string;
}

/** The header block parsed, or why it breaks the framing. */
export type HeaderResult = { ok: true; header: FrameHeader } | { ok: false; reason: string };

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const DIGITS = /^[0-9]+$/;
const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)"?/i;

/**
 * Parses a header block (the text before `\r\n\r\n`, as latin1). The frame is broken unless there
 * is exactly one `Content-Length`, made of digits, between 1 and `maxMessageBytes`, and every line
 * is `Name: value` with a token name (a body whose declared length was too small leaves its tail
 * where the next header should be, and that tail fails here).
 *
 * @example
 * parseFrameHeader("Content-Length: 12", 1024) // { ok: true, header: { length: 12 } }
 */
export function parseFrameHeader(text: string, maxMessageBytes: number, limitName = "TANDEM_MAX_MESSAGE_BYTES"): HeaderResult {
  let length: number | undefined;
  let unsupportedCharset: string | undefined;
  for (const line of text.split("\r\n")) {
    const colon = line.indexOf(":");
    const name = colon === -1 ? "" : line.slice(0, colon);
    if (!HEADER_NAME.test(name)) return broken(`malformed header line ${preview(line)}`);
    const value = line.slice(colon + 1).trim();
    const lowerName = name.toLowerCase();
    if (lowerName === "content-length") {
      if (length !== undefined) return broken("more than one Content-Length header");
      if (!DIGITS.test(value)) return broken(`Content-Length must be a non-negative integer, got ${preview(value)}`);
      length = Number(value);
      if (length === 0) return broken("Content-Length is 0: a JSON-RPC message cannot be empty");
      if (length > maxMessageBytes) return broken(`Content-Length ${value} is over the limit of ${maxMessageBytes} bytes (${limitName})`);
    } else if (lowerName === "content-type") {
      const charset = CHARSET.exec(value)?.[1]?.toLowerCase();
      if (charset !== undefined && charset !== "utf-8" && charset !== "utf8") unsupportedCharset = charset;
    }
  }
  if (length === undefined) return broken("no Content-Length header");
  return { ok: true, header: unsupportedCharset === undefined ? { length } : { length, unsupportedCharset } };
}

function broken(reason: string): HeaderResult {
  return { ok: false, reason };
}

function preview(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);
}
