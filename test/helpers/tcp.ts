import { spawn, type ChildProcess } from "node:child_process";
import { connect, type Socket } from "node:net";
import { FramedClient } from "./framed-client.js";
import { tandemBin } from "./harness.js";
import { residentBytes } from "./proc.js";

/** How to start a TCP runtime. */
export interface TcpRuntimeOptions {
  /** Flags after `--port 0`, e.g. `["--log-level", "warning"]`. */
  args?: string[];
  /** A command to run the runtime through, e.g. `["setpriv", "--reuid=65534", …]`. */
  wrapper?: string[];
  /** How long to wait for its `listening on port N` line (default 10 s). */
  startTimeoutMs?: number;
}

/**
 * Starts `tandem --port 0 <args>` (through `wrapper` if given) and waits for its
 * `listening on port N` line; fails with its log if it exits or stays silent.
 *
 * @example
 * const runtime = await startTcpRuntime(world.env, { args: ["--log-level", "warning"] });
 * const client = await runtime.connect();
 */
export async function startTcpRuntime(env: Record<string, string>, options: TcpRuntimeOptions = {}): Promise<TcpRuntime> {
  const command = [...(options.wrapper ?? []), process.execPath, tandemBin, "--port", "0", ...(options.args ?? [])];
  const child = spawn(command[0] as string, command.slice(1), { env, stdio: ["ignore", "pipe", "pipe"] });
  const startTimeoutMs = options.startTimeoutMs ?? 10_000;
  const log = { stderr: "" };
  child.stderr.on("data", (chunk: Buffer) => (log.stderr += chunk.toString()));
  let stdout: string | undefined = "";
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`tandem printed no listening line within ${startTimeoutMs} ms; stderr:\n${log.stderr}`));
    }, startTimeoutMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`tandem exited (${code ?? signal}) before listening; stderr:\n${log.stderr}`));
    });
    // Read on after the line too, so the pipe never fills.
    child.stdout.on("data", (chunk: Buffer) => {
      if (stdout === undefined) return;
      stdout += chunk.toString();
      const match = /listening on port (\d+)/.exec(stdout);
      if (!match) return;
      clearTimeout(timer);
      stdout = undefined;
      resolve(Number(match[1]));
    });
  });
  return new TcpRuntime(child, port, log);
}

/** A running `tandem --port 0`: its port, its log (stderr) and its memory. Made by {@link startTcpRuntime}. */
export class TcpRuntime {
  constructor(
    readonly child: ChildProcess,
    readonly port: number,
    private readonly log: { stderr: string },
  ) {}

  /** Everything the runtime wrote to stderr so far (its log). */
  get stderr(): string {
    return this.log.stderr;
  }

  /** `127.0.0.1:<port>`, the `cliUrl` for an SDK client. */
  get cliUrl(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** Resident memory of the runtime process in bytes. */
  rssBytes(): number {
    const bytes = residentBytes(this.child.pid as number);
    if (bytes === undefined) throw new Error(`the runtime (pid ${this.child.pid}) is not running`);
    return bytes;
  }

  /** Opens a raw client connection to the runtime. */
  async connect(): Promise<RawTcpClient> {
    return RawTcpClient.connect(this.port, () => this.log.stderr);
  }

  /** Stops the runtime with `signal` (SIGTERM lets it shut down cleanly) and waits for it to exit. */
  async stop(signal: NodeJS.Signals = "SIGKILL"): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once("exit", resolve));
    this.child.kill(signal);
    await exited;
  }
}

/**
 * Content-Length framed JSON-RPC over one TCP socket, byte by byte: every message received is
 * kept, and so is the close. `pause()` stops reading (a stalled client), `resume()` reads on.
 */
export class RawTcpClient extends FramedClient {
  private constructor(
    /** The socket itself, for tests that drive its flow control. */
    readonly socket: Socket,
    private readonly runtimeLog: () => string,
  ) {
    super();
    // Tiny writes go out as they are written, not coalesced.
    socket.setNoDelay(true);
    socket.on("data", (chunk: Buffer) => this.receive(chunk));
    // Writes after the runtime hung up fail (EPIPE, ECONNRESET): that is what some tests expect.
    socket.on("error", () => undefined);
    socket.once("close", () => this.markClosed());
  }

  /** Connects to `127.0.0.1:port`; `runtimeLog` (the runtime's stderr) is quoted when a wait fails. */
  static async connect(port: number, runtimeLog: () => string = () => ""): Promise<RawTcpClient> {
    const socket = connect(port, "127.0.0.1");
    await new Promise<void>((resolve, reject) => {
      socket.once("connect", resolve);
      socket.once("error", reject);
    });
    return new RawTcpClient(socket, runtimeLog);
  }

  /** Stops reading the socket: the runtime's writes pile up in the kernel buffers, then in its own. */
  pause(): void {
    this.socket.pause();
  }

  /** Reads the socket again. */
  resume(): void {
    this.socket.resume();
  }

  /** Closes the socket at once. */
  close(): void {
    this.socket.destroy();
  }

  protected write(bytes: string | Buffer): void {
    this.socket.write(bytes);
  }

  protected diagnostics(): string {
    const log = this.runtimeLog();
    return log ? `; the runtime's stderr:\n${log}` : "";
  }
}
