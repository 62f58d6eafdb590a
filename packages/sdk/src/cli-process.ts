import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import { existsSync } from "node:fs";
import type { ResolvedClientOptions } from "./options.js";
import { telemetryEnv } from "./telemetry.js";

/** Environment variable that carries `githubToken` to the runtime. */
export const AUTH_TOKEN_ENV = "COPILOT_SDK_AUTH_TOKEN";
/** Environment variable that carries the TCP connection token to the runtime (as the official SDK 1.0 does). */
export const CONNECTION_TOKEN_ENV = "COPILOT_CONNECTION_TOKEN";
const LISTENING_PATTERN = /listening on port (\d+)/i;
const STARTUP_TIMEOUT_MS = 10_000;
/** Time given to stderr to drain after an exit before the exit error is built. */
const EXIT_STDERR_GRACE_MS = 50;

/** A spawned runtime. */
export interface CliProcess {
  readonly child: ChildProcess;
  /** The port the runtime listens on (TCP mode). */
  readonly port: number | undefined;
  /** Rejects with an error naming the exit code (and stderr) when the process exits or fails to run. */
  readonly exited: Promise<never>;
  /** Whether the process has exited. */
  hasExited(): boolean;
  /** Everything the process wrote to stderr so far. */
  stderr(): string;
}

/** The runtime's arguments: the caller's, then the SDK's (same order as the official SDK). */
export function buildCliArgs(options: ResolvedClientOptions): string[] {
  const args = [...options.cliArgs, "--headless", "--no-auto-update", "--log-level", options.logLevel];
  if (options.useStdio) args.push("--stdio");
  else if (options.port > 0) args.push("--port", String(options.port));
  if (options.githubToken) args.push("--auth-token-env", AUTH_TOKEN_ENV);
  if (!options.useLoggedInUser) args.push("--no-auto-login");
  return args;
}

/** The runtime's environment: the configured one without NODE_DEBUG, plus tokens and telemetry. */
export function buildCliEnv(options: ResolvedClientOptions): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...options.env };
  // NODE_DEBUG output on stdout would corrupt the JSON-RPC stream.
  delete env.NODE_DEBUG;
  if (options.githubToken) env[AUTH_TOKEN_ENV] = options.githubToken;
  if (options.connectionToken) env[CONNECTION_TOKEN_ENV] = options.connectionToken;
  return { ...env, ...telemetryEnv(options.telemetry) };
}

function exitError(code: number | null, signal: NodeJS.Signals | null, stderr: string): Error {
  const status = code ?? signal;
  const output = stderr.trim();
  if (output) return new Error(`CLI server exited with code ${status}\nstderr: ${output}`);
  return new Error(`CLI server exited unexpectedly with code ${status}`);
}

function spawnError(error: Error, stderr: string): Error {
  const output = stderr.trim();
  if (output) return new Error(`Failed to start CLI server: ${error.message}\nstderr: ${output}`);
  return new Error(`Failed to start CLI server: ${error.message}`);
}

/**
 * Spawns the runtime. In stdio mode it returns at once; in TCP mode it waits (up to 10 s) for the
 * runtime to print `listening on port N`.
 */
export async function spawnCliProcess(options: ResolvedClientOptions): Promise<CliProcess> {
  const cliPath = options.cliPath;
  if (!cliPath) {
    throw new Error(
      "Path to the runtime is required. Install @tandem/runtime, pass it via the cliPath option, or use cliUrl to connect to a running runtime.",
    );
  }
  if (!existsSync(cliPath)) throw new Error(`Copilot CLI not found at ${cliPath}. Ensure @tandem/runtime is installed or pass cliPath.`);

  const args = buildCliArgs(options);
  const spawnOptions: SpawnOptions = {
    stdio: options.useStdio ? ["pipe", "pipe", "pipe"] : ["ignore", "pipe", "pipe"],
    cwd: options.cwd,
    env: buildCliEnv(options),
    windowsHide: true,
  };
  const child: ChildProcess = cliPath.endsWith(".js")
    ? spawn(process.execPath, [cliPath, ...args], spawnOptions)
    : spawn(cliPath, args, spawnOptions);

  let stderr = "";
  let exited = false;
  child.stderr?.on("data", (chunk: Buffer) => {
    const text = chunk.toString();
    stderr += text;
    for (const line of text.split("\n")) {
      if (line.trim()) process.stderr.write(`[CLI subprocess] ${line}\n`);
    }
  });

  const exitedPromise = new Promise<never>((_, reject) => {
    child.once("error", (error) => reject(spawnError(error, stderr)));
    child.once("exit", (code, signal) => {
      exited = true;
      setTimeout(() => reject(exitError(code, signal, stderr)), EXIT_STDERR_GRACE_MS);
    });
  });
  // Nobody may be waiting on it once the client is connected; an exit is then seen as a closed connection.
  exitedPromise.catch(() => {});

  const port = options.useStdio ? undefined : await waitForListeningPort(child, exitedPromise);
  return { child, port, exited: exitedPromise, hasExited: () => exited, stderr: () => stderr };
}

function waitForListeningPort(child: ChildProcess, exitedPromise: Promise<never>): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    let stdout = "";
    let settled = false;
    const finish = (action: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      action();
    };
    const timer = setTimeout(() => finish(() => reject(new Error("Timeout waiting for CLI server to start"))), STARTUP_TIMEOUT_MS);
    child.stdout?.on("data", (chunk: Buffer) => {
      // Keep reading stdout after the match so the child never blocks on a full pipe.
      if (settled) return;
      stdout += chunk.toString();
      const match = LISTENING_PATTERN.exec(stdout);
      if (match?.[1]) finish(() => resolve(Number.parseInt(match[1] as string, 10)));
    });
    exitedPromise.catch((error: unknown) => finish(() => reject(error)));
  });
}
