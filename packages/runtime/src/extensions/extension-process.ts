import { spawn, type ChildProcess } from "node:child_process";
import type { Logger } from "../log.js";
import type { ExtensionSpec } from "./discovery.js";

/** Where an extension is in its life (1.0.x's `session.extensions_loaded` statuses, plus `stopped`). */
export type ExtensionStatus = "starting" | "running" | "failed" | "stopped";

/** The runtime's end of an extension's stdio: a client connection like any other. */
export interface ExtensionLink {
  /** Closes the connection (the extension's stdin ends). */
  dispose(): void;
}

/** What starting one extension needs. */
export interface ExtensionProcessOptions {
  spec: ExtensionSpec;
  /** The node binary and the arguments before the entry (the SDK preload). */
  execPath: string;
  execArgs: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** How long it may take to call `joinSession()` before it is reported and stopped. */
  joinTimeoutMs: number;
  /** How long `stop` waits after SIGTERM before SIGKILL. */
  killGraceMs: number;
  logger: Logger;
  /** Connects the runtime to the child's stdout (requests in) and stdin (answers out). */
  connect(input: NodeJS.ReadableStream, output: NodeJS.WritableStream): ExtensionLink;
  /** Called once when the extension failed: crashed, exited early, could not start, or did not join in time. */
  onFailed(message: string): void;
}

/** The most stderr kept to explain a crash. */
const stderrTailBytes = 2000;

/**
 * One running extension: a Node child process speaking JSON-RPC on its stdio. It is `running`
 * once it joined the session (`markJoined`); a crash, an early exit or a missed join deadline makes
 * it `failed` and is reported once through `onFailed`. `stop` ends it: SIGTERM, then SIGKILL after
 * the grace period.
 */
export class ExtensionProcess {
  private state: ExtensionStatus = "starting";
  private readonly child: ChildProcess;
  private readonly link: ExtensionLink;
  private stderrTail = "";
  private stopping = false;
  private readonly exited: Promise<void>;
  private readonly joinTimer: NodeJS.Timeout;
  private settle: () => void = () => undefined;
  /** Resolves once the extension joined, failed or was stopped: the session need not wait longer. */
  readonly settled: Promise<void>;

  constructor(private readonly options: ExtensionProcessOptions) {
    this.settled = new Promise((resolve) => (this.settle = resolve));
    const { spec } = options;
    this.child = spawn(options.execPath, [...options.execArgs, spec.entry], { cwd: options.cwd, env: options.env, stdio: ["pipe", "pipe", "pipe"], windowsHide: true });
    this.exited = new Promise((resolve) => this.child.once("close", () => resolve()));
    this.child.stderr!.setEncoding("utf8");
    this.child.stderr!.on("data", (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-stderrTailBytes);
      options.logger.debug(`extension ${spec.id}: ${chunk.trimEnd()}`);
    });
    // A child that is gone must not turn our writes into uncaught EPIPE errors.
    this.child.stdin!.on("error", () => undefined);
    this.child.once("error", (error) => this.fail(`could not start: ${error.message}`));
    this.child.once("exit", (code, signal) => this.onExit(code, signal));
    this.link = options.connect(this.child.stdout!, this.child.stdin!);
    this.joinTimer = setTimeout(() => {
      if (this.state !== "starting") return;
      this.fail(`did not call joinSession() within ${options.joinTimeoutMs} ms; stopping it`);
      void this.stop();
    }, options.joinTimeoutMs);
    this.joinTimer.unref();
  }

  get spec(): ExtensionSpec {
    return this.options.spec;
  }

  get status(): ExtensionStatus {
    return this.state;
  }

  /** The child's process id (undefined if it could not be started). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** The extension joined the session (its `session.resume` succeeded). */
  markJoined(): void {
    if (this.state !== "starting") return;
    this.state = "running";
    clearTimeout(this.joinTimer);
    this.settle();
  }

  /** Ends the extension: SIGTERM, SIGKILL after the grace period; resolves once the process is gone. */
  async stop(): Promise<void> {
    clearTimeout(this.joinTimer);
    this.stopping = true;
    if (this.state !== "failed") this.state = "stopped";
    this.settle();
    if (this.child.exitCode !== null || this.child.signalCode !== null || this.child.pid === undefined) {
      this.link.dispose();
      return;
    }
    this.child.kill("SIGTERM");
    const forced = setTimeout(() => this.child.kill("SIGKILL"), this.options.killGraceMs);
    await this.exited;
    clearTimeout(forced);
    this.link.dispose();
  }

  /** Kills the process at once (the runtime is exiting now). */
  killNow(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGKILL");
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null): void {
    clearTimeout(this.joinTimer);
    if (this.stopping) return;
    if (code === 0) {
      // Done on its own terms: nothing to report.
      this.options.logger.info(`extension ${this.options.spec.id} exited`);
      this.state = "stopped";
      this.settle();
      this.link.dispose();
      return;
    }
    const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
    const stderr = this.stderrTail.trim();
    this.fail(`${how}${stderr ? `: ${stderr}` : ""}`);
    this.link.dispose();
  }

  private fail(message: string): void {
    if (this.state === "failed" || this.stopping) return;
    this.state = "failed";
    this.settle();
    this.options.onFailed(message);
  }
}
