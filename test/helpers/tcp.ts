import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { connect, type Socket } from "node:net";
import type { WireMessage } from "./raw-client.js";
import { tandemBin, waitFor } from "./harness.js";

/** A `tandem` process serving TCP. */
export interface TcpRuntime {
  child: ChildProcess;
  port: number;
  stderr(): string;
  stop(): Promise<void>;
}

/**
 * Starts `tandem --port 0 <args>` (optionally through a wrapper command such as `setpriv …`) and
 * waits for its `listening on port N` line.
 */
export async function startTcpRuntime(env: Record<string, string>, args: string[] = [], wrapper: string[] = []): Promise<TcpRuntime> {
  const command = [...wrapper, process.execPath, tandemBin, "--port", "0", ...args];
  const child = spawn(command[0] as string, command.slice(1), { env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  await waitFor(() => /listening on port \d+/.test(stdout) || child.exitCode !== null, "the listening line");
  const port = Number(/listening on port (\d+)/.exec(stdout)?.[1]);
  if (!port) throw new Error(`tandem did not start (exit ${child.exitCode}): ${stderr}`);
  return {
    child,
    port,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGKILL");
      await exited;
    },
  };
}

/** Frames one JSON-RPC message with Content-Length. */
export function frame(message: unknown): string {
  const body = JSON.stringify(message);
  return `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

/** A raw JSON-RPC client over one TCP socket: every message received is kept, and so is the close. */
export class TcpRawClient {
  readonly received: WireMessage[] = [];
  closed = false;
  private buffer = Buffer.alloc(0);
  private nextId = 1;

  private constructor(readonly socket: Socket) {
    socket.on("data", (chunk: Buffer) => this.onData(chunk));
    socket.on("close", () => (this.closed = true));
    socket.on("error", () => undefined);
  }

  /** Connects to `127.0.0.1:port`. */
  static async open(port: number): Promise<TcpRawClient> {
    const socket = connect(port, "127.0.0.1");
    await new Promise<void>((resolve, reject) => {
      socket.once("connect", resolve);
      socket.once("error", reject);
    });
    return new TcpRawClient(socket);
  }

  /** Sends requests in one write; returns their ids. */
  send(...requests: Array<{ method: string; params?: unknown }>): number[] {
    const ids = requests.map(() => this.nextId++);
    this.socket.write(requests.map((request, index) => frame({ jsonrpc: "2.0", id: ids[index], ...request })).join(""));
    return ids;
  }

  /** Sends one request and waits for its response. */
  async request(method: string, params?: unknown): Promise<WireMessage> {
    const [id] = this.send({ method, params });
    return this.response(id as number);
  }

  /** Waits for the response with this id. */
  async response(id: number): Promise<WireMessage> {
    await waitFor(() => this.find(id) !== undefined || this.closed, `the response to request ${id}`);
    const found = this.find(id);
    if (!found) throw new Error(`connection closed before the response to request ${id}`);
    return found;
  }

  /** Waits until the runtime closes the connection. */
  async waitClosed(): Promise<void> {
    await waitFor(() => this.closed, "the runtime to close the connection");
  }

  close(): void {
    this.socket.destroy();
  }

  private find(id: number): WireMessage | undefined {
    return this.received.find((message) => message.id === id && message.method === undefined);
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

/** The pids of this process's children whose command line mentions `text` (Linux /proc). */
export function childPidsRunning(text: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (parent !== process.pid) continue;
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(text)) pids.push(Number(entry));
    } catch {
      // The process went away while we looked.
    }
  }
  return pids;
}

/** The TCP ports a process listens on, from its socket inodes and /proc/net/tcp (Linux). */
export function listeningPorts(pid: number): number[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match?.[1]) inodes.add(match[1]);
    } catch {
      // Closed while we looked.
    }
  }
  const ports: number[] = [];
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text = "";
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields[3] !== "0A" || !inodes.has(fields[9] ?? "")) continue;
      ports.push(Number.parseInt(fields[1]?.split(":")[1] ?? "", 16));
    }
  }
  return ports;
}

/** Whether the process has exited (gone, or a zombie nobody reaped yet). */
export function hasExited(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}
