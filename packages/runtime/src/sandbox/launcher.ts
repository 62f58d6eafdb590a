/**
 * The small seam between the code that starts processes for the model (the shell tools, stdio MCP
 * servers) and the OS sandbox. Callers ask a {@link ProcessLauncher} how to start a program; the
 * answer is the program itself, or the same program wrapped in the sandbox. This file has no I/O,
 * so importing it costs nothing when the sandbox is off.
 */

/** How to start one program: the command line to spawn, and whether it runs sandboxed. */
export interface LaunchPlan {
  command: string;
  args: string[];
  sandboxed: boolean;
}

/** What the caller knows about the process it is about to start. */
export interface LaunchRequest {
  /** The working directory of the process (the sandbox makes the session's working directory writable, not this one). */
  cwd: string;
  /** The process may outlive the runtime (a detached shell): it is not tied to the runtime's life. */
  outlivesRuntime?: boolean;
  /** Run this one process outside the sandbox (an approved bypass). */
  unsandboxed?: boolean;
  /** An MCP server (the sandbox config's `sandboxMcpServers` decides). */
  mcpServer?: boolean;
}

/**
 * Decides how processes for the model are started.
 *
 * @example
 * const plan = await launcher.plan("bash", ["--noprofile"], { cwd: "/work" });
 * spawn(plan.command, plan.args, { cwd: "/work" });
 */
export interface ProcessLauncher {
  /**
   * The command line that starts `command args…` as the session's sandbox says. Rejects with a
   * `SandboxUnavailableError` when the sandbox is required but cannot start: never a silent fallback.
   */
  plan(command: string, args: readonly string[], request: LaunchRequest): Promise<LaunchPlan>;
  /** Whether a process started now (without bypass) would run sandboxed; false when the sandbox is off. */
  readonly sandboxing: boolean;
  /** Whether the model may ask to run one command unsandboxed (`allowBypass`). */
  readonly bypassAllowed: boolean;
  /** How many started sandboxed shells to keep ready for one-off commands (0 or absent: none). */
  readonly warmShells?: number;
  /**
   * Calls `listener` whenever processes started from now on would be started differently (another
   * policy or working directory, the sandbox disabled, the launcher disposed), so that processes
   * started ahead of time are dropped. Returns the unsubscribe function.
   */
  onChange?(listener: () => void): () => void;
}

/**
 * Starts every program as it is (no sandbox).
 *
 * @example
 * await directLauncher.plan("bash", [], { cwd }); // { command: "bash", args: [], sandboxed: false }
 */
export const directLauncher: ProcessLauncher = {
  plan: (command, args) => Promise.resolve({ command, args: [...args], sandboxed: false }),
  sandboxing: false,
  bypassAllowed: false,
};
