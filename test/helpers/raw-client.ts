import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { tandemBin } from "./harness.js";

/** A JSON-RPC message as read off the wire. */
export interface WireMessage {
  jsonrpc: string;
  id?: number | string | null;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

/**
 * Speaks Content-Length framed JSON-RPC to a `tandem --stdio` process byte by byte, so tests can
 * send malformed frames and see exactly what comes back.
 */
export class RawClient {
  readonly child: ChildProcessWithoutNullStreams;
  readonly received: WireMessage[] = [];
  stderr = "";
  private buffer = Buffer.alloc(0);
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Bytes the frame being received needs in all (0: not known yet). */
  private needed = 0;
  private waiters: Array<() => void> = [];
  private nextId = 1;

  constructor(env: Record<string, string>, args: string[] = []) {
    this.child = spawn(process.execPath, [tandemBin, "--stdio", "--log-level", "warning", ...args], { env, stdio: ["pipe", "pipe", "pipe"] });
    this.child.stdout.on("data", (chunk: Buffer) => this.onData(chunk));
    this.child.stderr.on("data", (chunk: Buffer) => (this.stderr += chunk.toString()));
  }

  /** Writes raw bytes. */
  writeRaw(text: string): void {
    this.child.stdin.write(text);
  }

  /** Writes one framed message body (any text, valid JSON or not). */
  writeFrame(body: string): void {
    this.writeRaw(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  }

  /** Sends a request and waits for its response. */
  async request(method: string, params?: unknown): Promise<WireMessage> {
    const id = this.nextId++;
    this.writeFrame(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    return this.waitFor((message) => message.id === id && message.method === undefined);
  }

  /** Waits for a message matching `predicate` (already received or future). */
  async waitFor(predicate: (message: WireMessage) => boolean, timeoutMs = 10_000): Promise<WireMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.received.find(predicate);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no matching message; stderr:\n${this.stderr}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }

  /** Stops the process (SIGKILL with `hard`). */
  async close(hard = false): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once("exit", resolve));
    if (hard) this.child.kill("SIGKILL");
    else this.child.stdin.end();
    await exited;
  }

  private onData(chunk: Buffer): void {
    // A big frame arrives in many chunks: they are joined once it is complete, not chunk by chunk.
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    if (this.buffer.length + this.pendingBytes < this.needed) return;
    this.buffer = Buffer.concat([this.buffer, ...this.pending]);
    this.pending = [];
    this.pendingBytes = 0;
    for (;;) {
      const headerEnd = this.buffer.indexOf("\r\n\r\n");
      if (headerEnd === -1) break;
      const header = this.buffer.subarray(0, headerEnd).toString("ascii");
      const length = Number(/Content-Length: (\d+)/i.exec(header)?.[1]);
      this.needed = headerEnd + 4 + length;
      if (this.buffer.length < this.needed) break;
      this.needed = 0;
      const body = this.buffer.subarray(headerEnd + 4, headerEnd + 4 + length).toString("utf8");
      this.buffer = this.buffer.subarray(headerEnd + 4 + length);
      this.received.push(JSON.parse(body) as WireMessage);
    }
    for (const waiter of this.waiters.splice(0)) waiter();
  }
}
