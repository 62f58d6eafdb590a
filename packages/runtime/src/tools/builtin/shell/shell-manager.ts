import { mkdtempSync } from "node:fs";
import { tmpdir } from "../../../node-os.js";
import { join } from "node:path";
import { OutputLog } from "./output.js";
import type { LaunchPlan, ProcessLauncher } from "../../../sandbox/launcher.js";
import type { ShellProcess } from "./shell-process.js";
import type { ShellPool } from "./shell-pool.js";

/** What the manager is configured with. */
export interface ShellManagerOptions {
  /** The shell to run (default `bash` on PATH). */
  shellPath?: string;
  /** The environment of new shells (default: the runtime's, plus settings that keep tools non-interactive). */
  env?: NodeJS.ProcessEnv;
  /** Called when an `async` command ends on its own (not when stopped). See {@link BackgroundCompletion}. */
  onBackgroundComplete?: (completion: BackgroundCompletion) => void;
  /** How shells are started (the session's sandbox); default: as they are. */
  launcher?: ProcessLauncher;
}

/**
 * A background (`mode: "async"`) command that ended. `notice` is the text the runtime adds to
 * the conversation as a user message so the model learns about it on its next turn.
 */
export interface BackgroundCompletion {
  shellId: string;
  description: string;
  command: string;
  /** Null when the command was killed by a signal. */
  exitCode: number | null;
  notice: string;
}

/** The state of one command a shell ran. */
export type CommandStatus = "running" | "exited" | "stopped" | "timed-out" | "interrupted";

/** One command run in a shell, with its output and how far the model has read it. */
export interface CommandRecord {
  readonly command: string;
  readonly description: string;
  readonly mode: "sync" | "async";
  readonly startedAt: number;
  endedAt?: number;
  status: CommandStatus;
  exitCode: number | null;
  /** The shell exited during the command (`exit 3`). */
  shellExited: boolean;
  readonly output: OutputLog;
  /** The command ran in the session's OS sandbox. */
  readonly sandboxed: boolean;
  /** Offset up to which `read_bash` / `write_bash` have returned the output. */
  readOffset: number;
  readonly done: Promise<void>;
}

/** A shell session the model can name. */
export interface ShellSummary {
  shellId: string;
  pid: number | undefined;
  commands: number;
  last: CommandRecord | undefined;
}

/** What `run` needs. */
export interface RunRequest {
  command: string;
  description: string;
  /** A named shell keeps its state across calls; without one, a sync command gets a fresh shell. */
  shellId?: string;
  mode: "sync" | "async";
  /** Keep an async command running after the session ends. */
  detach?: boolean;
  /** Sync commands are stopped after this long. */
  timeoutMs: number;
  cwd: string;
  signal: AbortSignal;
  /** Output as it arrives. */
  onOutput?: (text: string) => void;
  /** Called once when the command has ended (also for `async` commands, long after `run` returned). */
  onOutputEnd?: () => void;
  /** Run it in a fresh shell outside the sandbox (an approved bypass; refused by the launcher unless allowed). */
  unsandboxed?: boolean;
}

/** How `run` went. */
export type RunResult =
  | { kind: "completed"; shellId: string | undefined; record: CommandRecord }
  | { kind: "timed-out"; shellId: string | undefined; record: CommandRecord }
  | { kind: "interrupted" }
  | { kind: "started"; shellId: string }
  | { kind: "busy"; shellId: string; record: CommandRecord };

interface ShellEntry {
  id: string;
  process: ShellProcess;
  commands: number;
  last: CommandRecord | undefined;
  detached: boolean;
}

type Settled = "done" | "timeout" | "aborted";

/**
 * The shells of one session: anonymous shells for one-off commands, named ones that keep state,
 * background commands and their output. Every shell is its own process group, killed as a whole
 * on stop, timeout, abort and {@link ShellManager.dispose}, and — except detached ones — when the
 * runtime dies, even by SIGKILL.
 *
 * @example
 * const shells = new ShellManager({ onBackgroundComplete: (done) => turns.notify(done.notice) });
 * const result = await shells.run({ command: "ls", description: "List", mode: "sync", timeoutMs: 30_000, cwd, signal });
 * await shells.dispose();
 */
export class ShellManager {
  private readonly shells = new Map<string, ShellEntry>();
  private readonly anonymous = new Set<ShellProcess>();
  private readonly listeners = new Set<(completion: BackgroundCompletion) => void>();
  private nextShellNumber = 1;
  private disposed = false;
  private exitHookInstalled = false;
  private readonly shellPath: string;
  private readonly env: NodeJS.ProcessEnv;
  /** How shells are started (the session's sandbox), if not as they are. */
  readonly launcher: ProcessLauncher | undefined;
  /** Sandboxed shells started ahead of one-off commands; loaded with the first sandboxed one-off command. */
  private pool: Promise<ShellPool> | undefined;
  /** The pool once loaded (the exit hook and the launcher's changes act on it synchronously). */
  private loadedPool: ShellPool | undefined;
  /** The shell process code, loaded when the first shell is planned (a session that never runs one does not parse it). */
  private shellProcessModule: Promise<typeof import("./shell-process.js")> | undefined;
  /** That module once loaded: every shell is spawned after its plan, so spawning reads it synchronously. */
  private loadedShellProcess: typeof import("./shell-process.js") | undefined;
  private readonly stopWatchingLauncher: () => void;

  constructor(options: ShellManagerOptions = {}) {
    this.shellPath = options.shellPath ?? "bash";
    this.env = options.env ?? shellEnvironment(process.env);
    this.launcher = options.launcher;
    if (options.onBackgroundComplete) this.listeners.add(options.onBackgroundComplete);
    // Shells started ahead of time under a policy, folder or sandbox state that no longer holds are never used.
    this.stopWatchingLauncher = this.launcher?.onChange?.(() => this.loadedPool?.drain()) ?? (() => undefined);
  }

  /** Subscribes to background completions; returns the unsubscribe function. */
  onBackgroundComplete(listener: (completion: BackgroundCompletion) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async run(request: RunRequest): Promise<RunResult> {
    if (this.disposed) throw new Error("The session's shells have been shut down.");
    if (request.mode === "async") return this.runInBackground(request);
    const entry = request.shellId === undefined || request.unsandboxed ? undefined : await this.namedShell(request.shellId, request.cwd, false);
    if (entry?.last?.status === "running") return { kind: "busy", shellId: entry.id, record: entry.last };
    const { shell, pool } = entry ? { shell: entry.process, pool: undefined } : await this.anonymousShell(request.cwd, request.unsandboxed === true);
    const record = this.start(shell, request, entry);
    const settled = await settle(record.done, request.timeoutMs, request.signal);
    if (settled !== "done") {
      record.status = settled === "timeout" ? "timed-out" : "interrupted";
      shell.kill();
      if (entry) this.shells.delete(entry.id);
      await record.done;
    }
    if (!entry) {
      shell.kill();
      this.anonymous.delete(shell);
      // The replacement starts once the command is over, so it does not compete with it.
      if (!this.disposed) pool?.refillSoon();
      this.removeExitHookWhenIdle();
    } else if (record.shellExited) {
      this.shells.delete(entry.id);
    }
    if (settled === "aborted") return { kind: "interrupted" };
    record.readOffset = record.output.length;
    return { kind: settled === "timeout" ? "timed-out" : "completed", shellId: entry?.id, record };
  }

  /** Waits up to `delayMs` for the shell's command, then returns its output not read yet. */
  async read(shellId: string, delayMs: number, signal: AbortSignal): Promise<{ record: CommandRecord | undefined; output: string } | undefined> {
    const entry = this.shells.get(shellId);
    if (!entry) return undefined;
    const record = entry.last;
    if (!record) return { record, output: "" };
    if (record.status === "running") await settle(record.done, delayMs, signal);
    return { record, output: takeUnread(record) };
  }

  /**
   * Sends input to a running command (`{enter}`, `{up}`, … name special keys), waits up to
   * `delayMs`, and returns the output not read yet; undefined when no command is running there.
   */
  async write(shellId: string, input: string, delayMs: number, signal: AbortSignal): Promise<{ record: CommandRecord; output: string } | undefined> {
    const entry = this.shells.get(shellId);
    const record = entry?.last;
    if (!entry || !record || record.status !== "running") return undefined;
    entry.process.write(translateKeys(input));
    await settle(record.done, delayMs, signal);
    return { record, output: takeUnread(record) };
  }

  /** Stops a shell (its whole process group) and forgets it. Unknown ids are fine. */
  async stop(shellId: string): Promise<void> {
    const entry = this.shells.get(shellId);
    if (!entry) return;
    this.shells.delete(shellId);
    if (entry.last?.status === "running") entry.last.status = "stopped";
    entry.process.kill();
    this.removeExitHookWhenIdle();
    await entry.last?.done;
  }

  /** Whether the named shell runs sandboxed; undefined when no such shell is alive. */
  sandboxedShell(shellId: string): boolean | undefined {
    const entry = this.shells.get(shellId);
    return entry?.process.alive ? entry.process.sandboxed : undefined;
  }

  /** The shells the model can address, oldest first. */
  list(): ShellSummary[] {
    return [...this.shells.values()].map((entry) => ({ shellId: entry.id, pid: entry.process.pid, commands: entry.commands, last: entry.last }));
  }

  /** Kills every shell except detached ones, which are let go to finish on their own. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    const pending: Array<Promise<void>> = [];
    for (const entry of this.shells.values()) {
      if (entry.detached) {
        entry.process.release();
        continue;
      }
      if (entry.last?.status === "running") {
        entry.last.status = "stopped";
        pending.push(entry.last.done);
      }
      entry.process.kill();
    }
    for (const shell of this.anonymous) shell.kill();
    this.shells.clear();
    this.anonymous.clear();
    this.stopWatchingLauncher();
    const pool = this.pool;
    this.pool = undefined;
    (await pool?.catch(() => undefined))?.dispose();
    this.removeExitHook();
    await Promise.all(pending);
  }

  /**
   * Resolves once the shells kept ready for one-off sandboxed commands have started (or failed
   * to); at once when there are none. For measurements and tests: calls never wait for this.
   */
  async warmShellsSettled(): Promise<void> {
    await (await this.pool)?.whenSettled();
  }

  private async runInBackground(request: RunRequest): Promise<RunResult> {
    const shellId = request.shellId ?? this.newShellId();
    const entry = await this.namedShell(shellId, request.cwd, request.detach === true);
    if (entry.last?.status === "running") return { kind: "busy", shellId, record: entry.last };
    const record = this.start(entry.process, request, entry);
    void record.done.then(() => {
      if (record.shellExited && this.shells.get(shellId) === entry) this.shells.delete(shellId);
      if (record.status !== "exited") return;
      const completion = { shellId, description: request.description, command: request.command, exitCode: record.exitCode };
      const notice = backgroundCompletionNotice(completion);
      for (const listener of this.listeners) {
        try {
          listener({ ...completion, notice });
        } catch {
          // A failing listener must not affect the others.
        }
      }
    });
    return { kind: "started", shellId };
  }

  private start(shell: ShellProcess, request: RunRequest, entry: ShellEntry | undefined): CommandRecord {
    const output = new OutputLog();
    const partial: { record?: CommandRecord } = {};
    const done = shell
      .run(
        request.command,
        (text) => {
          output.append(text);
          request.onOutput?.(text);
        },
        // A one-off command's shell has no id, so no write_bash can answer a prompt: give it EOF.
        { closedStdin: entry === undefined },
      )
      .then((end) => {
        const record = partial.record!;
        record.endedAt = Date.now();
        record.exitCode = end.exitCode;
        record.shellExited = end.shellExited;
        // An interactive bash says "exit" when it exits; models know that shape.
        if (end.shellExited && record.status === "running" && end.exitCode !== null) output.append("exit\n");
        if (record.status === "running") record.status = "exited";
      })
      .catch(() => {
        const record = partial.record!;
        record.endedAt = Date.now();
        if (record.status === "running") record.status = "interrupted";
      })
      .finally(() => request.onOutputEnd?.());
    const record: CommandRecord = {
      command: request.command,
      description: request.description,
      mode: request.mode,
      startedAt: Date.now(),
      status: "running",
      exitCode: null,
      shellExited: false,
      output,
      sandboxed: shell.sandboxed,
      readOffset: 0,
      done,
    };
    partial.record = record;
    if (entry) {
      entry.commands++;
      entry.last = record;
    }
    return record;
  }

  private async namedShell(shellId: string, cwd: string, detached: boolean): Promise<ShellEntry> {
    const existing = this.shells.get(shellId);
    if (existing?.process.alive) return existing;
    const plan = await this.plan(cwd, detached, false);
    // Another call may have started this shell while the sandbox was being prepared.
    const raced = this.shells.get(shellId);
    if (raced?.process.alive) return raced;
    const logFile = detached ? join(mkdtempSync(join(tmpdir(), "tandem-shell-")), "output.log") : undefined;
    const entry: ShellEntry = { id: shellId, process: this.spawn(cwd, logFile, detached, plan), commands: 0, last: undefined, detached };
    this.shells.set(shellId, entry);
    return entry;
  }

  /** A one-off command's shell: a ready one of the pool when the sandbox has one for this plan, else a fresh one. */
  private async anonymousShell(cwd: string, unsandboxed: boolean): Promise<{ shell: ShellProcess; pool: ShellPool | undefined }> {
    const plan = await this.plan(cwd, false, unsandboxed);
    const pool = plan.sandboxed ? await this.warmShellPool() : undefined;
    if (this.disposed) throw new Error("The session's shells have been shut down.");
    const ready = pool?.take(plan, cwd);
    if (ready) this.installExitHook();
    const shell = ready ?? this.spawn(cwd, undefined, false, plan);
    this.anonymous.add(shell);
    return { shell, pool };
  }

  /** The pool of ready sandboxed shells, loaded on first use; undefined when the launcher keeps none. */
  private async warmShellPool(): Promise<ShellPool | undefined> {
    const size = this.launcher?.warmShells ?? 0;
    if (size <= 0 && !this.pool) return undefined;
    this.pool ??= import("./shell-pool.js").then(({ ShellPool }) => {
      // Ready shells hold no exit hook (a runtime with many sessions would pile up listeners): their
      // lifeline ends them when the runtime exits, however it exits.
      this.loadedPool = new ShellPool({ size, start: (plan, cwd) => new (this.shellProcessClass())({ shellPath: this.shellPath, cwd, env: this.env, launch: plan }) });
      return this.loadedPool;
    });
    return this.pool;
  }

  /** How the shell is started: through the launcher (which throws when a required sandbox cannot start). */
  private async plan(cwd: string, detached: boolean, unsandboxed: boolean): Promise<LaunchPlan> {
    this.shellProcessModule ??= import("./shell-process.js");
    const { SHELL_ARGS } = (this.loadedShellProcess ??= await this.shellProcessModule);
    if (!this.launcher) return { command: this.shellPath, args: [...SHELL_ARGS], sandboxed: false };
    const plan = await this.launcher.plan(this.shellPath, SHELL_ARGS, { cwd, ...(detached ? { outlivesRuntime: true } : {}), ...(unsandboxed ? { unsandboxed: true } : {}) });
    if (this.disposed) throw new Error("The session's shells have been shut down.");
    return plan;
  }

  private spawn(cwd: string, logFile: string | undefined, detached: boolean, plan: LaunchPlan): ShellProcess {
    this.installExitHook();
    return new (this.shellProcessClass())({ shellPath: this.shellPath, cwd, env: this.env, outlivesRuntime: detached, launch: plan, ...(logFile ? { logFile } : {}) });
  }

  /** The shell process class: loaded by {@link plan}, which every spawn follows. */
  private shellProcessClass(): typeof ShellProcess {
    if (!this.loadedShellProcess) throw new Error("a shell was started before its launch plan");
    return this.loadedShellProcess.ShellProcess;
  }

  private newShellId(): string {
    while (this.shells.has(String(this.nextShellNumber))) this.nextShellNumber++;
    return String(this.nextShellNumber++);
  }

  // Shells are process-group leaders, so they would outlive a runtime that exits without disposing
  // its sessions; this last-resort hook kills them (synchronously, as `exit` requires).
  private readonly killAllOnExit = () => {
    for (const entry of this.shells.values()) if (!entry.detached) entry.process.kill();
    for (const shell of this.anonymous) shell.kill();
    this.loadedPool?.killAll();
  };

  private installExitHook(): void {
    if (this.exitHookInstalled) return;
    this.exitHookInstalled = true;
    process.on("exit", this.killAllOnExit);
  }

  private removeExitHookWhenIdle(): void {
    if (this.shells.size === 0 && this.anonymous.size === 0) this.removeExitHook();
  }

  private removeExitHook(): void {
    if (!this.exitHookInstalled) return;
    this.exitHookInstalled = false;
    process.off("exit", this.killAllOnExit);
  }
}

/**
 * The `<system_notification>` text for a background command that ended.
 *
 * @example
 * backgroundCompletionNotice({ shellId: "1", description: "Build", command: "make", exitCode: 0 });
 */
export function backgroundCompletionNotice(completion: Pick<BackgroundCompletion, "shellId" | "description" | "exitCode">): string {
  const { shellId, description, exitCode } = completion;
  const how =
    exitCode === 0
      ? "has completed successfully"
      : exitCode === null
        ? "was terminated by a signal"
        : `has completed with exit code ${exitCode}`;
  return (
    `<system_notification>\nShell command "${description}" (shellId: ${shellId}) ${how}. ` +
    `Use read_bash with shellId "${shellId}" to retrieve the output.\n</system_notification>`
  );
}

function takeUnread(record: CommandRecord): string {
  const text = record.output.textFrom(record.readOffset);
  record.readOffset = record.output.length;
  return text;
}

const KEYS: Record<string, string> = {
  "{enter}": "\n",
  "{tab}": "\t",
  "{backspace}": "\x7f",
  "{escape}": "\x1b",
  "{up}": "\x1b[A",
  "{down}": "\x1b[B",
  "{right}": "\x1b[C",
  "{left}": "\x1b[D",
};

/** Replaces `{enter}`-style key names with the characters they send. */
export function translateKeys(input: string): string {
  return input.replace(/\{(enter|tab|backspace|escape|up|down|right|left)\}/gi, (key) => KEYS[key.toLowerCase()] ?? key);
}

/** Waits for `promise`, at most `timeoutMs`, and not past an abort. */
function settle(promise: Promise<void>, timeoutMs: number, signal: AbortSignal): Promise<Settled> {
  if (signal.aborted) return Promise.resolve("aborted");
  return new Promise<Settled>((resolve) => {
    const timer = setTimeout(() => finish("timeout"), Math.max(0, timeoutMs));
    const onAbort = () => finish("aborted");
    signal.addEventListener("abort", onAbort, { once: true });
    void promise.then(() => finish("done"));
    function finish(how: Settled) {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      resolve(how);
    }
  });
}

/**
 * Variables through which an SDK hands the runtime its own credentials: the GitHub token of
 * `githubToken` (`--auth-token-env COPILOT_SDK_AUTH_TOKEN`) and the TCP connection token. They are
 * the runtime's, not the user's, so commands the model runs never see them.
 */
const runtimeCredentialVariables = ["COPILOT_SDK_AUTH_TOKEN", "COPILOT_CONNECTION_TOKEN"];

/**
 * The environment shells run with: the runtime's own, without {@link runtimeCredentialVariables},
 * with pagers off and git never prompting (nobody can answer a prompt).
 *
 * @example
 * shellEnvironment({ PATH: "/bin", COPILOT_SDK_AUTH_TOKEN: "ghu_…" }); // { PATH: "/bin", PAGER: "cat", … }
 */
export function shellEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const shellEnv: NodeJS.ProcessEnv = { ...env, PAGER: "cat", GIT_PAGER: "cat", GIT_TERMINAL_PROMPT: "0" };
  for (const name of runtimeCredentialVariables) delete shellEnv[name];
  return shellEnv;
}
