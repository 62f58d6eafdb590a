/**
 * The framing of peer links (`peer-links.ts`): each frame is a 4-byte big-endian length followed by
 * that many bytes of UTF-8 JSON. A frame announcing more than the reader's limit is refused before
 * any of it is buffered.
 */

/** The largest frame a peer link accepts once authenticated (64 MiB). */
export const maxPeerFrameBytes = 64 * 1024 * 1024;

/** The largest frame accepted before the peer proved who it is (the handshake's frames are small). */
export const maxHandshakeFrameBytes = 64 * 1024;

/** A frame whose announced length is over the reader's limit (the connection cannot be read on). */
export class FrameTooLarge extends Error {
  constructor(
    readonly bytes: number,
    readonly limit: number,
  ) {
    super(`a frame of ${bytes} bytes exceeds the limit of ${limit} bytes`);
    this.name = "FrameTooLarge";
  }
}

/**
 * Encodes one value as a frame.
 *
 * @example
 * socket.write(encodeFrame({ t: "ack", seq: 12 }));
 */
export function encodeFrame(value: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(value), "utf8");
  const header = Buffer.allocUnsafe(4);
  header.writeUInt32BE(body.length, 0);
  return Buffer.concat([header, body]);
}

/**
 * Cuts a byte stream into frames. `push` returns the complete frames' bodies, parsed; it throws
 * {@link FrameTooLarge} for a frame over `limit` and a `SyntaxError` for a body that is not JSON.
 *
 * @example
 * const reader = new FrameReader(maxHandshakeFrameBytes);
 * socket.on("data", (chunk) => { for (const frame of reader.push(chunk)) handle(frame); });
 */
export class FrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** The body length of the frame being read, once its header is in. */
  private pending: number | undefined;

  constructor(public limit: number) {}

  push(chunk: Buffer): unknown[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const frames: unknown[] = [];
    for (;;) {
      if (this.pending === undefined) {
        if (this.buffered < 4) return frames;
        const length = this.flatten().readUInt32BE(0);
        if (length > this.limit) throw new FrameTooLarge(length, this.limit);
        this.pending = length;
      }
      // A large frame arrives in many chunks: they are joined once, when it is complete.
      if (this.buffered < 4 + this.pending) return frames;
      const all = this.flatten();
      frames.push(JSON.parse(all.subarray(4, 4 + this.pending).toString("utf8")));
      const rest = all.subarray(4 + this.pending);
      this.pending = undefined;
      this.chunks = rest.length > 0 ? [rest] : [];
      this.buffered = rest.length;
    }
  }

  private flatten(): Buffer {
    if (this.chunks.length === 1) return this.chunks[0]!;
    const all = Buffer.concat(this.chunks, this.buffered);
    this.chunks = [all];
    return all;
  }
}
