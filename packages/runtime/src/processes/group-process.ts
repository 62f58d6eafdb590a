import { spawn, type ChildProcess } from "node:child_process";
import type { Socket } from "node:net";
import { StringDecoder } from "node:string_decoder";
import { LIFELINE_FD, lifelineCommand } from "../tools/builtin/shell/lifeline.js";

/** How a process group's command ended: its exit code, or the signal that ended it. */
export interface GroupProcessEnd {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
}

/** How to start a command. */
export interface GroupProcessOptions {
  command: string;
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** Called with each decoded chunk of the command's stdout or stderr. */
  onOutput?: (stream: "stdout" | "stderr", text: string) => void;
}

/**
 * One command run by `/bin/sh -c` as the leader of its own process group, tied to the runtime's
 * life (see `tools/builtin/shell/lifeline.ts`): a runtime killed with SIGKILL takes the group with
 * it. `kill` signals the whole group; when the command ends, what it left running in the group is
 * killed too, so nothing started through it outlives it.
 *
 * @example
 * const process = GroupProcess.start({ command: "make test", cwd });
 * const { exitCode } = await process.ended;
 */
export class GroupProcess {
  /** Resolves when the command ended (never rejects; a failure to start ends it with code 127). */
  readonly ended: Promise<GroupProcessEnd>;
  private exited = false;

  private constructor(private readonly child: ChildProcess, onOutput: GroupProcessOptions["onOutput"]) {
    const lifeline = (child.stdio[LIFELINE_FD] ?? undefined) as Socket | undefined;
    lifeline?.on("error", () => undefined);
    for (const stream of ["stdout", "stderr"] as const) {
      const decoder = new StringDecoder("utf8");
      child[stream]?.on("data", (chunk: Buffer) => {
        const text = decoder.write(chunk);
        if (text) onOutput?.(stream, text);
      });
    }
    this.ended = new Promise((resolve) => {
      let end: GroupProcessEnd | undefined;
      // At the leader's exit what it left in the group is killed, so the pipes close and `close` comes.
      child.once("exit", (exitCode, signal) => {
        end = { exitCode, signal };
        this.exited = true;
        this.signalGroup("SIGKILL");
      });
      child.once("error", () => {
        this.exited = true;
        lifeline?.destroy();
        resolve({ exitCode: 127, signal: null });
      });
      child.once("close", (exitCode, signal) => {
        this.exited = true;
        lifeline?.destroy();
        resolve(end ?? { exitCode, signal });
      });
    });
  }

  /** Starts `command`; output is read as it comes. */
  static start(options: GroupProcessOptions): GroupProcess {
    const launch = lifelineCommand("/bin/sh", ["-c", options.command]);
    const child = spawn(launch.command, launch.args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe", "pipe"],
    });
    return new GroupProcess(child, options.onOutput);
  }

  /** The leader's process id (undefined when it could not start). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Whether the command is still running. */
  get running(): boolean {
    return !this.exited;
  }

  /** Signals the whole group; false when the command has ended already. */
  kill(signal: NodeJS.Signals = "SIGTERM"): boolean {
    if (this.exited) return false;
    return this.signalGroup(signal);
  }

  private signalGroup(signal: NodeJS.Signals): boolean {
    const pid = this.child.pid;
    if (pid === undefined) return false;
    try {
      process.kill(-pid, signal);
      return true;
    } catch {
      return false;
    }
  }
}
