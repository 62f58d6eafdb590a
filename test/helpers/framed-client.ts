import { FrameDecoder, frame, type WireMessage } from "./frames.js";

/** One JSON-RPC request for {@link FramedClient.send}. */
export interface OutgoingRequest {
  method: string;
  params?: unknown;
}

/**
 * A raw Content-Length framed JSON-RPC peer of a runtime, for tests that need to see and write the
 * exact bytes: every message received is kept in `received`, in order. Subclasses bring the
 * transport (a child's pipes, a TCP socket) and report its close with {@link markClosed}.
 */
export abstract class FramedClient {
  readonly received: WireMessage[] = [];
  /** Resolves once the runtime's side is gone: nothing more will arrive. */
  readonly closed: Promise<void>;
  private readonly decoder = new FrameDecoder();
  private readonly wakeUps = new Set<() => void>();
  private resolveClosed: () => void = () => undefined;
  private closedNow = false;
  private nextId = 1;

  constructor() {
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve));
  }

  /** Whether the runtime's side is gone. */
  get isClosed(): boolean {
    return this.closedNow;
  }

  /** Writes raw bytes. */
  writeRaw(bytes: string | Buffer): void {
    this.write(bytes);
  }

  /** Writes one framed message body (any text, valid JSON or not). */
  writeFrame(body: string): void {
    this.write(frame(body));
  }

  /** Sends requests in one write (pipelined); returns their ids. */
  send(...requests: OutgoingRequest[]): number[] {
    const ids = requests.map(() => this.nextId++);
    this.write(requests.map((request, index) => frame(JSON.stringify({ jsonrpc: "2.0", id: ids[index], method: request.method, params: request.params }))).join(""));
    return ids;
  }

  /** Sends a request and waits for its response. */
  async request(method: string, params?: unknown): Promise<WireMessage> {
    const [id] = this.send({ method, params });
    return this.response(id as number);
  }

  /** Waits for the response to request `id`. */
  async response(id: number, timeoutMs?: number): Promise<WireMessage> {
    return this.waitFor((message) => message.id === id && message.method === undefined, timeoutMs);
  }

  /**
   * Waits for a message matching `predicate` (already received or future); fails after `timeoutMs`,
   * or at once when the connection closes without one.
   */
  async waitFor(predicate: (message: WireMessage) => boolean, timeoutMs = 15_000): Promise<WireMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.received.find(predicate);
      if (found) return found;
      if (this.closedNow) throw new Error(`the connection closed before a matching message${this.diagnostics()}`);
      if (Date.now() > deadline) throw new Error(`no matching message within ${timeoutMs} ms${this.diagnostics()}`);
      // Woken by the next message; the timer covers predicates that look at more than the messages.
      await new Promise<void>((resolve) => {
        const wakeUp = () => {
          clearTimeout(timer);
          this.wakeUps.delete(wakeUp);
          resolve();
        };
        const timer = setTimeout(wakeUp, 20);
        this.wakeUps.add(wakeUp);
      });
    }
  }

  /** Waits until the runtime closes the connection; fails after `timeoutMs`. */
  async waitClosed(timeoutMs = 10_000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the runtime kept the connection open for ${timeoutMs} ms${this.diagnostics()}`)), timeoutMs);
    });
    await Promise.race([this.closed, timeout]).finally(() => clearTimeout(timer));
  }

  /** Writes bytes to the runtime. */
  protected abstract write(bytes: string | Buffer): void;

  /** Text added to a failed wait's message, e.g. the runtime's log. */
  protected abstract diagnostics(): string;

  /** Feeds bytes read from the runtime. */
  protected receive(chunk: Buffer): void {
    const messages = this.decoder.push(chunk);
    if (messages.length === 0) return;
    this.received.push(...messages);
    this.wakeWaiters();
  }

  /** Records that the runtime's side is gone. */
  protected markClosed(): void {
    this.closedNow = true;
    this.resolveClosed();
    this.wakeWaiters();
  }

  private wakeWaiters(): void {
    for (const wakeUp of [...this.wakeUps]) wakeUp();
  }
}
