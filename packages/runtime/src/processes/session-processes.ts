import { randomUUID } from "node:crypto";
import type { SessionScopePort } from "../ports/session-scope.js";
import { GroupProcess } from "./group-process.js";

/** Output kept for a user-requested command's result (the end of it when longer). */
const MAX_USER_OUTPUT_CHARS = 256 * 1024;

/** Where a session's processes report: its events, and the client that started an `exec`. */
export type ProcessesHost = Pick<SessionScopePort, "workingDirectory" | "emitter">;

/** What `exec` tells its caller as the process runs. */
export interface ExecListener {
  output(processId: string, stream: "stdout" | "stderr", data: string): void;
  exit(processId: string, exitCode: number | null, signal: NodeJS.Signals | null): void;
}

/** The result of a user-requested command (1.0.x `UserRequestedShellCommandResult`). */
export type UserCommandResult = {
  toolCallId: string;
  success: boolean;
  output: string;
  exitCode?: number | null;
  error?: string;
};

/**
 * The shell commands an application runs in one session, outside the agent loop:
 * `session.shell.exec` processes (by process id) and the commands the user typed
 * (`session.shell.executeUserRequested`, by the caller's request id). Every process runs in its own
 * group; `dispose` (the session closes) kills the groups still running.
 *
 * @example
 * const processId = processes.exec("npm test", undefined, undefined, listener);
 * processes.kill(processId, "SIGTERM");
 */
export class SessionProcesses {
  private readonly started = new Map<string, GroupProcess>();
  private readonly userRequested = new Map<string, GroupProcess>();

  constructor(private readonly host: ProcessesHost) {}

  /** Starts `command` and returns its process id; `timeoutMs` kills the group when it runs longer. */
  exec(command: string, cwd: string | undefined, timeoutMs: number | undefined, listener: ExecListener): string {
    const processId = randomUUID();
    const child = GroupProcess.start({ command, cwd: cwd ?? this.host.workingDirectory, onOutput: (stream, text) => listener.output(processId, stream, text) });
    this.started.set(processId, child);
    const timer = timeoutMs === undefined ? undefined : setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    timer?.unref();
    void child.ended.then(({ exitCode, signal }) => {
      clearTimeout(timer);
      this.started.delete(processId);
      listener.exit(processId, exitCode, signal);
    });
    return processId;
  }

  /** Signals an `exec` process's group; false when the process is unknown or has ended. */
  kill(processId: string, signal: NodeJS.Signals = "SIGTERM"): boolean {
    return this.started.get(processId)?.kill(signal) ?? false;
  }

  /**
   * Runs a command the user typed, recorded as a user-requested tool call (`tool.user_requested`,
   * `tool.execution_start` / `_complete`); resolves when it ends, or is cancelled.
   */
  async runUserRequested(requestId: string, command: string): Promise<UserCommandResult> {
    if (this.userRequested.has(requestId)) return { toolCallId: "", success: false, output: "", error: `A command with requestId ${requestId} is already running.` };
    const toolCallId = `user_shell_${randomUUID()}`;
    const emitter = this.host.emitter;
    const toolArguments = { command };
    emitter.emit("tool.user_requested", { toolCallId, toolName: "bash", arguments: toolArguments });
    emitter.emit("tool.execution_start", { toolCallId, toolName: "bash", arguments: toolArguments });
    let output = "";
    const child = GroupProcess.start({
      command,
      cwd: this.host.workingDirectory,
      onOutput: (_stream, text) => {
        output = (output + text).slice(-MAX_USER_OUTPUT_CHARS);
      },
    });
    this.userRequested.set(requestId, child);
    const { exitCode, signal } = await child.ended;
    this.userRequested.delete(requestId);
    const success = exitCode === 0;
    const error = success ? undefined : signal ? `The command was stopped (${signal}).` : `The command exited with code ${String(exitCode)}.`;
    emitter.emit("tool.execution_complete", {
      toolCallId,
      success,
      isUserRequested: true,
      result: { content: output },
      ...(error ? { error: { message: error } } : {}),
    });
    return { toolCallId, success, output, exitCode, ...(error ? { error } : {}) };
  }

  /** Stops a running user-requested command; false when none runs under `requestId`. */
  cancelUserRequested(requestId: string): boolean {
    return this.userRequested.get(requestId)?.kill("SIGKILL") ?? false;
  }

  /** Kills every process still running (the session closed). */
  dispose(): void {
    for (const child of [...this.started.values(), ...this.userRequested.values()]) child.kill("SIGKILL");
  }
}
