import { connect, type Socket } from "node:net";
import type { WireMessage } from "./raw-client.js";

/**
 * Speaks Content-Length framed JSON-RPC to a `tandem` TCP server over a real socket; `pause()`
 * stops reading it (a stalled client), `resume()` reads on.
 */
export class SocketClient {
  readonly received: WireMessage[] = [];
  readonly closed: Promise<void>;
  private readonly socket: Socket;
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** Bytes the frame being received needs in all (0: not known yet), so big frames are joined once. */
  private needed = 0;
  private nextId = 1;

  constructor(port: number) {
    this.socket = connect(port, "127.0.0.1");
    this.socket.on("data", (chunk: Buffer) => this.onData(chunk));
    this.socket.on("error", () => undefined);
    this.closed = new Promise((resolve) => this.socket.once("close", () => resolve()));
  }

  /** Sends a request without waiting; returns its id. */
  send(method: string, params?: unknown): number {
    const id = this.nextId++;
    const body = JSON.stringify({ jsonrpc: "2.0", id, method, params });
    this.socket.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    return id;
  }

  /** Sends a request and waits for its response. */
  async request(method: string, params?: unknown): Promise<WireMessage> {
    const id = this.send(method, params);
    return this.waitFor((message) => message.id === id && message.method === undefined);
  }

  /** Waits for a message matching `predicate` (already received or future). */
  async waitFor(predicate: (message: WireMessage) => boolean, timeoutMs = 15_000): Promise<WireMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.received.find(predicate);
      if (found) return found;
      if (Date.now() > deadline) throw new Error("no matching message");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  pause(): void {
    this.socket.pause();
  }

  resume(): void {
    this.socket.resume();
  }

  close(): void {
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    if (this.buffered < this.needed) return;
    let buffer = this.chunks.length === 1 ? chunk : Buffer.concat(this.chunks, this.buffered);
    for (;;) {
      const headerEnd = buffer.indexOf("\r\n\r\n");
      if (headerEnd === -1) break;
      const length = Number(/Content-Length: (\d+)/i.exec(buffer.subarray(0, headerEnd).toString("ascii"))?.[1]);
      if (buffer.length < headerEnd + 4 + length) {
        this.needed = headerEnd + 4 + length;
        break;
      }
      this.needed = 0;
      this.received.push(JSON.parse(buffer.subarray(headerEnd + 4, headerEnd + 4 + length).toString("utf8")) as WireMessage);
      buffer = buffer.subarray(headerEnd + 4 + length);
    }
    this.chunks = buffer.length > 0 ? [buffer] : [];
    this.buffered = buffer.length;
  }
}
