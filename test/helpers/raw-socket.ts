import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { readFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tandemBin } from "./harness.js";
import type { WireMessage } from "./raw-client.js";

/** A `tandem --port 0` process: its port, its stderr (the log) and its memory. */
export class TcpRuntime {
  readonly child: ChildProcessWithoutNullStreams;
  readonly port: Promise<number>;
  stderr = "";

  constructor(env: Record<string, string>) {
    this.child = spawn(process.execPath, [tandemBin, "--port", "0", "--log-level", "warning"], { env, stdio: ["pipe", "pipe", "pipe"] });
    this.child.stderr.on("data", (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.port = new Promise((resolve, reject) => {
      let stdout = "";
      this.child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
        const match = /listening on port (\d+)/.exec(stdout);
        if (match) resolve(Number(match[1]));
      });
      this.child.once("exit", (code) => reject(new Error(`runtime exited (${code}) before listening; stderr:\n${this.stderr}`)));
    });
  }

  /** Resident memory of the runtime process in bytes (VmRSS from /proc). */
  rssBytes(): number {
    const status = readFileSync(`/proc/${this.child.pid}/status`, "utf8");
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]) * 1024;
  }

  /** Opens a raw socket to the runtime. */
  async connect(): Promise<RawSocketClient> {
    const socket = connect(await this.port, "127.0.0.1");
    await new Promise<void>((resolve, reject) => {
      socket.once("connect", resolve);
      socket.once("error", reject);
    });
    return new RawSocketClient(socket);
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once("exit", resolve));
    this.child.kill("SIGKILL");
    await exited;
  }
}

/** Content-Length framed JSON-RPC over a raw TCP socket, byte by byte. */
export class RawSocketClient {
  readonly received: WireMessage[] = [];
  /** Resolves when the runtime closes the socket. */
  readonly closed: Promise<void>;
  isClosed = false;
  private buffer = Buffer.alloc(0);
  private nextId = 1;

  constructor(readonly socket: Socket) {
    socket.setNoDelay(true);
    socket.on("data", (chunk: Buffer) => this.onData(chunk));
    // Writes after the runtime hung up fail (EPIPE, ECONNRESET): that is what some tests expect.
    socket.on("error", () => undefined);
    this.closed = new Promise((resolve) =>
      socket.once("close", () => {
        this.isClosed = true;
        resolve();
      }),
    );
  }

  writeRaw(bytes: string | Buffer): void {
    this.socket.write(bytes);
  }

  writeFrame(body: string): void {
    this.writeRaw(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  }

  /** Sends a request and waits for its response. */
  async request(method: string, params?: unknown): Promise<WireMessage> {
    const id = this.nextId++;
    this.writeFrame(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    return this.waitFor((message) => message.id === id && message.method === undefined);
  }

  async waitFor(predicate: (message: WireMessage) => boolean, timeoutMs = 10_000): Promise<WireMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.received.find(predicate);
      if (found) return found;
      if (Date.now() > deadline) throw new Error("no matching message");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  close(): void {
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const headerEnd = this.buffer.indexOf("\r\n\r\n");
      if (headerEnd === -1) return;
      const length = Number(/Content-Length: (\d+)/i.exec(this.buffer.subarray(0, headerEnd).toString("ascii"))?.[1]);
      if (this.buffer.length < headerEnd + 4 + length) return;
      this.received.push(JSON.parse(this.buffer.subarray(headerEnd + 4, headerEnd + 4 + length).toString("utf8")) as WireMessage);
      this.buffer = this.buffer.subarray(headerEnd + 4 + length);
    }
  }
}
