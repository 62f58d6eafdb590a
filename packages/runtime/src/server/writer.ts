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
 * A Content-Length framed writer that emits header and body in one stream write and does not wait
 * for each write's callback (Node buffers; backpressure resolves on `drain`).
 */
export class FramedMessageWriter extends AbstractMessageWriter implements MessageWriter {
  private errorCount = 0;

  constructor(private readonly stream: NodeJS.WritableStream) {
    super();
    stream.on("error", (error: Error) => this.fireError(error, undefined, ++this.errorCount));
    stream.on("close", () => this.fireClose());
  }

  write(message: Message): Promise<void> {
    const json = encodeMessage(message);
    const frame = `Content-Length: ${Buffer.byteLength(json, "utf8")}\r\n\r\n${json}`;
    try {
      const flushed = this.stream.write(frame, "utf8");
      if (flushed) return Promise.resolve();
      return new Promise((resolve) => this.stream.once("drain", () => resolve()));
    } catch (error) {
      this.fireError(error as Error, message, ++this.errorCount);
      return Promise.reject(error);
    }
  }

  end(): void {
    this.stream.end();
  }
}
