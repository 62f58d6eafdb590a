// Hand-written, not eventsource-parser 3.1.1: it reports each event's byte position (the `bytes` progress), which the library (strings in) cannot, and parses bench scenario 5's stream (1 MiB in 1 KiB deltas, 16 KiB reads) in 0.33 ms vs 0.84–0.98 ms; with 8–32-byte deltas the two are within noise of each other (5–23 ms per MiB).
const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;

/**
 * An incremental server-sent-events parser working on the bytes of a response: it finds line
 * ends in each Buffer, decodes only complete lines (a line end never falls inside a multi-byte
 * UTF-8 sequence, so characters split across chunks decode correctly) and hands the `data` of
 * each event to `onData`, with the stream position at the end of the event (just past the first
 * byte of its blank line's line end). Lines may end in `\n`, `\r\n` or `\r`; a `data` field spread over
 * several lines is joined with `\n`; comments (`: …`) and the other fields (`event`, `id`,
 * `retry`) are skipped, as are events without data. An event still open when the stream ends is
 * dropped, as in `eventsource-parser`.
 *
 * Per chunk nothing is allocated but the data strings; a line split across chunks is copied into
 * one reused buffer.
 *
 * @example
 * const parser = new SseParser((data) => console.log(data));
 * parser.push(Buffer.from('data: {"a":1}\n\ndata: [DO'));
 * parser.push(Buffer.from("NE]\n\n")); // logs '{"a":1}', then '[DONE]'
 */
export class SseParser {
  private data: string | undefined;
  private pending = Buffer.allocUnsafe(256);
  private pendingLength = 0;
  /** The previous chunk ended with `\r`: a `\n` starting the next one belongs to that line end. */
  private skipLineFeed = false;
  private atStart = true;
  private stopped = false;
  /** Bytes pushed before the current chunk. */
  private consumed = 0;
  /** The stream position just past the line being handled. */
  private lineEnd = 0;

  constructor(private readonly onData: (data: string, position: number) => void) {}

  /** Parses the next bytes of the stream; `onData` is called for each event they complete. */
  push(chunk: Buffer): void {
    const length = chunk.length;
    let start = 0;
    if (length === 0 || this.stopped) return;
    const base = this.consumed;
    this.consumed += length;
    if (this.skipLineFeed) {
      this.skipLineFeed = false;
      if (chunk[0] === LF) start = 1;
    }
    if (this.atStart && this.pendingLength === 0) start = this.skipByteOrderMark(chunk, start);
    let carriageReturn = chunk.indexOf(CR, start);
    while (start < length && !this.stopped) {
      let end = chunk.indexOf(LF, start);
      if (carriageReturn !== -1 && carriageReturn < start) carriageReturn = chunk.indexOf(CR, start);
      if (carriageReturn !== -1 && (end === -1 || carriageReturn < end)) end = carriageReturn;
      if (end === -1) {
        this.keep(chunk, start, length);
        return;
      }
      // Just past the first byte of the line end (the `\n` of a `\r\n` split across chunks is not
      // known yet), so the position is the same however the stream is chunked.
      this.lineEnd = base + end + 1;
      if (this.pendingLength > 0) {
        this.keep(chunk, start, end);
        const lineLength = this.pendingLength;
        this.pendingLength = 0;
        this.line(this.pending, 0, lineLength);
      } else {
        this.line(chunk, start, end);
      }
      if (chunk[end] === CR) {
        if (end + 1 === length) this.skipLineFeed = true;
        else if (chunk[end + 1] === LF) end += 1;
      }
      start = end + 1;
    }
  }

  /** Ignores everything after this call (e.g. once `[DONE]` arrived, or the call was aborted). */
  stop(): void {
    this.stopped = true;
  }

  private line(buffer: Buffer, start: number, end: number): void {
    this.atStart = false;
    if (start === end) {
      const data = this.data;
      if (data === undefined) return;
      this.data = undefined;
      if (data !== "") this.onData(data, this.lineEnd);
      return;
    }
    if (!isDataField(buffer, start, end)) return;
    let valueStart = start + 4;
    if (valueStart < end) valueStart += 1; // the colon
    if (valueStart < end && buffer[valueStart] === SPACE) valueStart += 1;
    const value = buffer.toString("utf8", valueStart, end);
    this.data = this.data === undefined ? value : `${this.data}\n${value}`;
  }

  /** Keeps bytes of a line that is not complete yet. */
  private keep(chunk: Buffer, start: number, end: number): void {
    const needed = this.pendingLength + (end - start);
    if (needed > this.pending.length) {
      const grown = Buffer.allocUnsafe(Math.max(needed, this.pending.length * 2));
      this.pending.copy(grown, 0, 0, this.pendingLength);
      this.pending = grown;
    }
    chunk.copy(this.pending, this.pendingLength, start, end);
    this.pendingLength = needed;
  }

  private skipByteOrderMark(chunk: Buffer, start: number): number {
    this.atStart = false;
    return chunk[start] === 0xef && chunk[start + 1] === 0xbb && chunk[start + 2] === 0xbf ? start + 3 : start;
  }
}

/** `data` followed by `:` or the end of the line (a field name is everything before the first colon). */
function isDataField(buffer: Buffer, start: number, end: number): boolean {
  const length = end - start;
  if (length < 4) return false;
  if (buffer[start] !== 0x64 || buffer[start + 1] !== 0x61 || buffer[start + 2] !== 0x74 || buffer[start + 3] !== 0x61) return false;
  return length === 4 || buffer[start + 4] === COLON;
}
