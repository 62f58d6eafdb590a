import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { TelemetryConfig } from "./telemetry.js";
import type { CopilotClientOptions, ReconnectOptions } from "./types.js";

/** Client options with the defaults applied. */
export interface ResolvedClientOptions {
  cliPath: string | undefined;
  cliArgs: string[];
  cwd: string;
  port: number;
  useStdio: boolean;
  isChildProcess: boolean;
  cliUrl: string | undefined;
  /** Reconnection after a lost TCP connection to a running runtime, or undefined when off. */
  reconnect: Required<ReconnectOptions> | undefined;
  /** Sent in `connect`; set for TCP (generated when the SDK spawns the runtime and none was given). */
  connectionToken: string | undefined;
  logLevel: NonNullable<CopilotClientOptions["logLevel"]>;
  autoStart: boolean;
  autoRestart: boolean;
  env: Record<string, string | undefined>;
  githubToken: string | undefined;
  useLoggedInUser: boolean;
  telemetry: TelemetryConfig | undefined;
}

/** Host and port of a runtime to connect to. */
export interface Endpoint {
  host: string;
  port: number;
}

/**
 * The `tandem` bin of `@tandem/runtime`, found through module resolution (the runtime's code is never
 * imported). Undefined when the runtime package is not installed.
 */
export function defaultCliPath(): string | undefined {
  try {
    const require = createRequire(import.meta.url);
    return join(dirname(require.resolve("@tandem/runtime/package.json")), "bin", "tandem.js");
  } catch {
    return undefined;
  }
}

/**
 * Parses `cliUrl`: `"port"`, `"host:port"`, `"http://host:port"` or `"https://host:port"`.
 * A bare port means localhost.
 */
export function parseCliUrl(url: string): Endpoint {
  const address = url.replace(/^https?:\/\//, "");
  if (/^\d+$/.test(address)) return { host: "localhost", port: Number.parseInt(address, 10) };
  const parts = address.split(":");
  if (parts.length !== 2) {
    throw new Error(`Invalid cliUrl format: ${url}. Expected "host:port", "http://host:port", or "port"`);
  }
  const host = parts[0] || "localhost";
  const port = Number.parseInt(parts[1] ?? "", 10);
  if (Number.isNaN(port) || port <= 0 || port > 65535) throw new Error(`Invalid port in cliUrl: ${url}`);
  return { host, port };
}

/** Checks option combinations and applies the defaults (the official SDK's rules). */
export function resolveClientOptions(given: CopilotClientOptions): { resolved: ResolvedClientOptions; endpoint?: Endpoint; endpoints: Endpoint[] } {
  if (given.cliUrls !== undefined && given.cliUrl !== undefined) throw new Error("cliUrls and cliUrl are mutually exclusive");
  if (given.cliUrls !== undefined && (!Array.isArray(given.cliUrls) || given.cliUrls.length === 0)) throw new Error("cliUrls must list at least one URL");
  const options: CopilotClientOptions = given.cliUrls ? { ...given, cliUrl: given.cliUrls[0] } : given;
  if (options.cliUrl && (options.useStdio === true || options.cliPath)) {
    throw new Error("cliUrl is mutually exclusive with useStdio and cliPath");
  }
  if (options.isChildProcess && (options.cliUrl || options.useStdio === false)) {
    throw new Error("isChildProcess must be used in conjunction with useStdio and not with cliUrl");
  }
  if (options.cliUrl && (options.githubToken || options.useLoggedInUser !== undefined)) {
    throw new Error("githubToken and useLoggedInUser cannot be used with cliUrl (external server manages its own auth)");
  }
  if (options.connectionToken !== undefined && (typeof options.connectionToken !== "string" || options.connectionToken.length === 0)) {
    throw new Error("connectionToken must be a non-empty string");
  }
  const endpoints = given.cliUrls ? given.cliUrls.map(parseCliUrl) : options.cliUrl ? [parseCliUrl(options.cliUrl)] : [];
  const endpoint = endpoints[0];
  const reconnectGiven = given.reconnect ?? (given.cliUrls ? {} : false);
  const useStdio = options.cliUrl ? false : (options.useStdio ?? true);
  const resolved: ResolvedClientOptions = {
    cliPath: options.cliUrl ? undefined : options.cliPath || defaultCliPath(),
    cliArgs: options.cliArgs ?? [],
    cwd: options.cwd ?? process.cwd(),
    port: options.port || 0,
    useStdio,
    isChildProcess: options.isChildProcess ?? false,
    cliUrl: options.cliUrl,
    reconnect:
      reconnectGiven === false || endpoint === undefined
        ? undefined
        : { initialDelayMs: reconnectGiven.initialDelayMs ?? 100, maxDelayMs: reconnectGiven.maxDelayMs ?? 5000, giveUpAfterMs: reconnectGiven.giveUpAfterMs ?? 120_000 },
    connectionToken: useStdio ? undefined : (options.connectionToken ?? (options.cliUrl ? undefined : randomUUID())),
    logLevel: options.logLevel || "debug",
    autoStart: options.autoStart ?? true,
    autoRestart: options.autoRestart ?? true,
    env: options.env ?? process.env,
    githubToken: options.githubToken,
    useLoggedInUser: options.useLoggedInUser ?? !options.githubToken,
    telemetry: options.telemetry,
  };
  return { resolved, endpoint, endpoints };
}
