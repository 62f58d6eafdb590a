import { AbstractMessageWriter, type Message, type MessageWriter } from "vscode-jsonrpc";

/**
 * Params or a result that are already JSON text. Session events are serialised once (for the
 * events file) and that same text is spliced into wire messages.
 */
export class PreSerializedJson {
  constructor(readonly json: string) {}
}

/** Serialises a JSON-RPC message, splicing in pre-serialised params or results. */
export function encodeMessage(message: Message): string {
  const candidate = message as { id?: unknown; method?: string; params?: unknown; result?: unknown };
  if (candidate.params instanceof PreSerializedJson && typeof candidate.method === "string") {
    return `{"jsonrpc":"2.0","method":${JSON.stringify(candidate.method)},"params":${candidate.params.json}}`;
  }
  if (candidate.result instanceof PreSerializedJson) {
    return `{"jsonrpc":"2.0","id":${JSON.stringify(candidate.id ?? null)},"result":${candidate.result.json}}`;
  }
  return JSON.stringify(message);
}

/**
 * A Content-Length framed writer. Frames written in the same event-loop turn go out in one stream
 * write (a stream of deltas costs one syscall per turn, not one per message); the returned promise
 * waits for `drain` only while the stream is backed up.
 */
export class FramedMessageWriter extends AbstractMessageWriter implements MessageWriter {
  private errorCount = 0;
  private queued: string[] = [];
  private flushScheduled = false;
  private drained: Promise<void> | undefined;

  constructor(private readonly stream: NodeJS.WritableStream) {
    super();
    stream.on("error", (error: Error) => this.fireError(error, undefined, ++this.errorCount));
    stream.on("close", () => this.fireClose());
  }

  write(message: Message): Promise<void> {
    this.writeJson(encodeMessage(message));
    return this.drained ?? Promise.resolve();
  }

  /** Queues one message that is already JSON text (a complete JSON-RPC message). */
  writeJson(json: string): void {
    this.queued.push(`Content-Length: ${Buffer.byteLength(json, "utf8")}\r\n\r\n${json}`);
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(this.flushNow);
    }
  }

  private readonly flushNow = (): void => this.flush();

  /** Writes every queued frame in one stream write. */
  flush(): void {
    this.flushScheduled = false;
    if (this.queued.length === 0) return;
    const batch = this.queued.length === 1 ? (this.queued[0] ?? "") : this.queued.join("");
    this.queued = [];
    try {
      if (!this.stream.write(batch, "utf8") && !this.drained) {
        this.drained = new Promise((resolve) =>
          this.stream.once("drain", () => {
            this.drained = undefined;
            resolve();
          }),
        );
      }
    } catch (error) {
      this.fireError(error as Error, undefined, ++this.errorCount);
    }
  }

  end(): void {
    this.flush();
    this.stream.end();
  }
}
