/** How partial output is coalesced and capped. */
export interface PartialOutputLimits {
  /** Pending output waits at most this long before it is sent. */
  intervalMs: number;
  /** Pending output this long is sent at once, without waiting for the interval. */
  chunkChars: number;
  /** Output streamed per command, at most; the rest is only counted. */
  totalChars: number;
}

/**
 * Per command: one event per 100 ms keeps a live view fluid; 64 KiB chunks keep each frame small;
 * 1 MiB in all is more than a person reads live (the tool result keeps the head and tail anyway).
 */
export const defaultPartialOutputLimits: PartialOutputLimits = { intervalMs: 100, chunkChars: 64 * 1024, totalChars: 1024 * 1024 };

/**
 * Streams a command's output as it arrives, bounded: chunks are coalesced (at most one send per
 * `intervalMs`, or per `chunkChars` of output), and once `totalChars` have been sent a marker
 * says so and the rest is only counted; {@link PartialOutputStream.close} sends what is pending
 * and a final marker with the count of characters that were not streamed.
 *
 * @example
 * const stream = new PartialOutputStream((text) => emitter.emit("tool.execution_partial_result", { toolCallId, partialOutput: text }));
 * stream.write("building…\n");
 * stream.close();
 */
export class PartialOutputStream {
  private pending = "";
  private streamed = 0;
  private notStreamed = 0;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly send: (text: string) => void,
    private readonly limits: PartialOutputLimits = defaultPartialOutputLimits,
  ) {}

  /** Takes output as it arrives. */
  write(text: string): void {
    if (this.closed || text === "") return;
    const room = this.limits.totalChars - this.streamed - this.pending.length;
    if (room <= 0) {
      this.notStreamed += text.length;
      return;
    }
    if (text.length >= room) {
      this.pending += text.slice(0, room);
      this.notStreamed += text.length - room;
      this.flush();
      this.send(`\n[Output truncated: streaming stopped after ${this.limits.totalChars} characters; the tool result keeps the head and tail of the output.]\n`);
      return;
    }
    this.pending += text;
    if (this.pending.length >= this.limits.chunkChars) this.flush();
    else this.timer ??= setTimeout(this.flushLater, this.limits.intervalMs).unref();
  }

  /** Sends what is pending and, when output was held back, a marker with how much. */
  close(): void {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    if (this.notStreamed > 0) this.send(`\n[Output truncated: ${this.notStreamed} more characters were not streamed.]\n`);
  }

  private readonly flushLater = (): void => this.flush();

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending === "") return;
    const text = this.pending;
    this.pending = "";
    this.streamed += text.length;
    this.send(text);
  }
}
