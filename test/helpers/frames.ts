/** A JSON-RPC message as read off the wire. */
export interface WireMessage {
  jsonrpc: string;
  id?: number | string | null;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

/** Frames one message body (any text, valid JSON or not) with a Content-Length header. */
export function frame(body: string): string {
  return `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

/**
 * Turns the bytes a runtime writes into the JSON-RPC messages it framed. Chunks are kept until the
 * frame they belong to is complete and joined once then, so a 50 MB frame arriving in thousands of
 * chunks costs one copy, not one per chunk.
 *
 * @example
 * const decoder = new FrameDecoder();
 * stream.on("data", (chunk: Buffer) => received.push(...decoder.push(chunk)));
 */
export class FrameDecoder {
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** Bytes the frame being received needs in all (0: not known yet). */
  private needed = 0;

  /** Takes the next chunk; returns the messages it completed (often none). */
  push(chunk: Buffer): WireMessage[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    if (this.buffered < this.needed) return [];
    const messages: WireMessage[] = [];
    let buffer = this.chunks.length === 1 ? chunk : Buffer.concat(this.chunks, this.buffered);
    for (;;) {
      const headerEnd = buffer.indexOf("\r\n\r\n");
      if (headerEnd === -1) break;
      const header = buffer.subarray(0, headerEnd).toString("ascii");
      const length = Number(/Content-Length: (\d+)/i.exec(header)?.[1]);
      if (!Number.isInteger(length)) throw new Error(`frame header without a Content-Length: ${JSON.stringify(header)}`);
      const end = headerEnd + 4 + length;
      if (buffer.length < end) {
        this.needed = end;
        break;
      }
      this.needed = 0;
      messages.push(JSON.parse(buffer.subarray(headerEnd + 4, end).toString("utf8")) as WireMessage);
      buffer = buffer.subarray(end);
    }
    this.chunks = buffer.length > 0 ? [buffer] : [];
    this.buffered = buffer.length;
    return messages;
  }
}
