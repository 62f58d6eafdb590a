import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { closeSync, openSync, readSync } from "node:fs";
import type { Socket } from "node:net";
import type { Writable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import type { LaunchPlan } from "../../../sandbox/launcher.js";
import { LIFELINE_FD, lifelineCommand } from "./lifeline.js";

/** The arguments every shell starts with (no profile, no rc file: the same shell every time). */
export const SHELL_ARGS: readonly string[] = ["--noprofile", "--norc"];

/** How to start a shell. */
export interface ShellProcessOptions {
  shellPath: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /**
   * Send output to this file instead of a pipe (it is read back by polling), so the shell and its
   * command keep running after the runtime lets go of it (`detach`).
   */
  logFile?: string;
  /**
   * Let the shell's process group live on if the runtime dies (`detach`). By default a watchdog in
   * the group kills it when the runtime dies, even by SIGKILL (see lifeline.ts).
   */
  outlivesRuntime?: boolean;
  /** The command line that starts the shell (the session's sandbox wraps it); default `shellPath` with {@link SHELL_ARGS}. */
  launch?: LaunchPlan;
}

/** How a command ended: its exit code (null when killed by a signal) and whether the shell exited too. */
export interface CommandEnd {
  exitCode: number | null;
  shellExited: boolean;
}

interface RunningCommand {
  marker: RegExp;
  /** The marker up to its exit code; output ending in a prefix of it is held back. */
  markerStart: string;
  pending: string;
  onOutput: (text: string) => void;
  finish: (end: CommandEnd) => void;
}

// The marker is framed by ASCII record separators, which ordinary output never contains.
const SEPARATOR = "\x1e";
/**
 * The descriptor of the commands' input. The shell reads its command lines from its stdin, which
 * only the runtime writes to; each command's stdin is this other channel (what `write_bash` sends),
 * so input that a command did not read is never run as a command line.
 */
const INPUT_FD = 4;
const POLL_INTERVAL_MS = 25;

/**
 * One long-lived `bash` process in its own process group. Commands are written to its stdin one
 * at a time (each reads its own input from another channel, see INPUT_FD), each followed on the
 * same line by a `printf` of a unique marker carrying `$?` (framed by ASCII record separators), so
 * state (cd, export, functions) carries over between commands and each command's output and exit
 * code can be cut out of the stream. stderr is merged into stdout inside the shell, so the two
 * stay interleaved as they were written. Unless it `outlivesRuntime`, the group dies with the
 * runtime (see lifeline.ts), and when the shell exits on its own what it left running is killed.
 *
 * @example
 * const shell = new ShellProcess({ shellPath: "bash", cwd: "/work", env: process.env });
 * const end = await shell.run("cd src && pwd", (text) => process.stdout.write(text));
 * shell.kill();
 */
export class ShellProcess {
  readonly pid: number | undefined;
  /** The shell runs in the session's OS sandbox. */
  readonly sandboxed: boolean;
  private readonly child: ChildProcess;
  /** The commands' input channel (see INPUT_FD). */
  private readonly input: Writable | null;
  private current: RunningCommand | undefined;
  private exited = false;
  private exitCode: number | null = null;
  private pollTimer: NodeJS.Timeout | undefined;
  private logDescriptor: number | undefined;
  /** Our end of the watchdog's pipe; undefined when the shell outlives the runtime. */
  private readonly lifeline: Socket | undefined;

  constructor(options: ShellProcessOptions) {
    const output = options.logFile ? openSync(options.logFile, "a") : "pipe";
    const program = options.launch ?? { command: options.shellPath, args: [...SHELL_ARGS], sandboxed: false };
    this.sandboxed = program.sandboxed;
    const tethered = options.outlivesRuntime !== true;
    const launch = tethered ? lifelineCommand(program.command, program.args) : { command: program.command, args: program.args };
    this.child = spawn(launch.command, launch.args, {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ["pipe", output, output, tethered ? "pipe" : "ignore", "pipe"],
    });
    if (typeof output === "number") closeSync(output);
    this.pid = this.child.pid;
    if (tethered) {
      this.lifeline = (this.child.stdio[LIFELINE_FD] ?? undefined) as Socket | undefined;
      this.lifeline?.on("error", () => undefined);
      // It must not keep the runtime running; it only has to stay open while the runtime does.
      this.lifeline?.unref();
    }
    this.input = this.child.stdio[INPUT_FD] as Writable | null;
    this.input?.on("error", () => undefined);
    this.child.stdin?.on("error", () => undefined);
    this.child.on("error", () => this.onExit(null));
    this.child.on("exit", (code) => this.onExit(code));
    if (options.logFile) {
      this.startPolling(options.logFile);
    } else {
      const stdout = new StringDecoder("utf8");
      const stderr = new StringDecoder("utf8");
      this.child.stdout?.on("data", (chunk: Buffer) => this.onData(stdout.write(chunk)));
      this.child.stderr?.on("data", (chunk: Buffer) => this.onData(stderr.write(chunk)));
      this.child.stdin?.write("exec 2>&1\n");
    }
  }

  /** Whether the shell is still running. */
  get alive(): boolean {
    return !this.exited && this.pid !== undefined;
  }

  /** Whether a command is running. */
  get busy(): boolean {
    return this.current !== undefined;
  }

  /**
   * Runs one command; `onOutput` receives its output as it arrives (without the marker). Resolves
   * when the command ends or the shell exits. With `closedStdin` the command reads from
   * `/dev/null` (nobody can answer it) instead of waiting for `write`.
   */
  run(command: string, onOutput: (text: string) => void, options: { closedStdin?: boolean } = {}): Promise<CommandEnd> {
    if (this.current) return Promise.reject(new Error("The shell is already running a command."));
    if (!this.alive) return Promise.resolve({ exitCode: this.exitCode, shellExited: true });
    const nonce = randomUUID().replaceAll("-", "");
    return new Promise<CommandEnd>((resolve) => {
      this.current = {
        marker: new RegExp(`${SEPARATOR}__TANDEM_${nonce}_(\\d+)__${SEPARATOR}`),
        markerStart: `${SEPARATOR}__TANDEM_${nonce}_`,
        pending: "",
        onOutput,
        finish: (end) => {
          this.current = undefined;
          resolve(end);
        },
      };
      const input = options.closedStdin ? " </dev/null" : ` <&${INPUT_FD}`;
      this.child.stdin?.write(`eval ${shellQuote(command)}${input}; printf '\\036__TANDEM_%s_%d__\\036' '${nonce}' "$?"\n`);
    });
  }

  /** Writes to the running command's input (never read by the shell as a command line). */
  write(text: string): void {
    if (this.alive) this.input?.write(text);
  }

  /** Kills the shell's whole process group (the command and everything it started). */
  kill(): void {
    this.stopPolling();
    this.killGroup();
  }

  /** Lets the shell run on without us: stdin closed (it exits after its command), no more reading. */
  release(): void {
    this.stopPolling();
    this.child.stdin?.end();
    this.input?.end();
    this.child.unref();
  }

  private onData(text: string): void {
    const current = this.current;
    // Output between commands (e.g. from a job left in the background) belongs to no command.
    if (!current || text === "") return;
    current.pending += text;
    const match = current.marker.exec(current.pending);
    if (match) {
      const before = current.pending.slice(0, match.index);
      if (before) current.onOutput(before);
      current.finish({ exitCode: Number(match[1]), shellExited: false });
      return;
    }
    // Hold back only a tail that may be the start of the marker.
    let keepFrom = current.pending.length;
    const separator = current.pending.lastIndexOf(SEPARATOR);
    if (separator !== -1) {
      const tail = current.pending.slice(separator);
      if (current.markerStart.startsWith(tail) || (tail.startsWith(current.markerStart) && /^\d*_?_?$/.test(tail.slice(current.markerStart.length)))) {
        keepFrom = separator;
      }
    }
    const ready = current.pending.slice(0, keepFrom);
    current.pending = current.pending.slice(keepFrom);
    if (ready) current.onOutput(ready);
  }

  private killGroup(): void {
    if (this.pid !== undefined) {
      try {
        process.kill(-this.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
    this.lifeline?.destroy();
  }

  private onExit(code: number | null): void {
    if (this.exited) return;
    this.exited = true;
    this.exitCode = code;
    // A shell tied to the runtime takes what it left running (and its watchdog) with it.
    if (this.lifeline) this.killGroup();
    // Output may still be in flight after the exit event; give it a moment.
    setTimeout(() => {
      this.drainLogFile();
      this.stopPolling();
      const current = this.current;
      if (!current) return;
      if (current.pending) current.onOutput(current.pending);
      current.finish({ exitCode: code, shellExited: true });
    }, 30);
  }

  private startPolling(logFile: string): void {
    this.logDescriptor = openSync(logFile, "r");
    const decoder = new StringDecoder("utf8");
    const buffer = Buffer.alloc(64 * 1024);
    const drain = () => {
      if (this.logDescriptor === undefined) return;
      for (;;) {
        const read = readSync(this.logDescriptor, buffer, 0, buffer.length, null);
        if (read <= 0) return;
        this.onData(decoder.write(buffer.subarray(0, read)));
      }
    };
    this.drainLogFile = drain;
    this.pollTimer = setInterval(drain, POLL_INTERVAL_MS);
    this.pollTimer.unref();
  }

  private drainLogFile: () => void = () => undefined;

  private stopPolling(): void {
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.pollTimer = undefined;
    if (this.logDescriptor !== undefined) closeSync(this.logDescriptor);
    this.logDescriptor = undefined;
  }
}

/** Quotes text for bash as one single-quoted word. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
