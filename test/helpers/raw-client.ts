import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { FramedClient } from "./framed-client.js";
import { tandemBin } from "./harness.js";

export type { WireMessage } from "./frames.js";

/**
 * Speaks Content-Length framed JSON-RPC to a `tandem --stdio` process byte by byte, so tests can
 * send malformed frames and see exactly what comes back.
 */
export class RawClient extends FramedClient {
  readonly child: ChildProcessWithoutNullStreams;
  stderr = "";

  /** `user` runs the runtime as another user (uid and gid; the test must be root). */
  constructor(env: Record<string, string>, args: string[] = [], user?: { uid: number; gid: number }) {
    super();
    this.child = spawn(process.execPath, [tandemBin, "--stdio", "--log-level", "warning", ...args], { env, stdio: ["pipe", "pipe", "pipe"], ...(user ?? {}) });
    this.child.stdout.on("data", (chunk: Buffer) => this.receive(chunk));
    this.child.stdout.once("close", () => this.markClosed());
    this.child.stderr.on("data", (chunk: Buffer) => (this.stderr += chunk.toString()));
  }

  /** Stops the process (SIGKILL with `hard`). */
  async close(hard = false): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once("exit", resolve));
    if (hard) this.child.kill("SIGKILL");
    else this.child.stdin.end();
    await exited;
  }

  protected write(bytes: string | Buffer): void {
    this.child.stdin.write(bytes);
  }

  protected diagnostics(): string {
    return `; stderr:\n${this.stderr}`;
  }
}
