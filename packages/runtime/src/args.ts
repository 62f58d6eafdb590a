import { createRequire } from "node:module";
import type { ParseArgsConfig } from "node:util";
import { logFormats, logLevels, type LogFormat, type LogLevel } from "./log.js";
import { isModelCallLimit } from "./loop/model-call-limit.js";

/** The runtime's parsed command line. */
export interface RuntimeArgs {
  stdio: boolean;
  port: number;
  host: string;
  logLevel: LogLevel;
  /** `--log-format text|json` (default text). */
  logFormat: LogFormat;
  logFile?: string;
  authTokenEnv?: string;
  /** `--connection-token-env VAR`: read the TCP connection token from VAR instead of COPILOT_CONNECTION_TOKEN. */
  connectionTokenEnv?: string;
  /** `--headless`: passed by every SDK that spawns the runtime. */
  headless: boolean;
  /** `--exit-with-parent` / `--no-exit-with-parent` (undefined: follow `headless`). */
  exitWithParent?: boolean;
  autoLogin: boolean;
  sdkProtocolVersion: 2 | 3;
  home?: string;
  /** `--store <url>`: a `postgres://` session store (default: the files under the home folder; also `TANDEM_STORE_URL`). */
  store?: string;
  /** `--node-id <id>`: this runtime's name in a cluster (with `--store`; default hostname-pid). */
  nodeId?: string;
  /** `--health-port <n>`: serve `GET /healthz` for load balancers on this port (with `--store`; 0 = a free port). */
  healthPort?: number;
  /** `--advertise-url <host:port>`: where clients reach this node (with `--store`; also `TANDEM_ADVERTISE_URL`), sent to clients of sessions it runs. */
  advertiseUrl?: string;
  /** `--peer-listen <host:port>|off`: where this node takes direct links from the other nodes (with `--store`; also `TANDEM_CLUSTER_PEER_LISTEN`). */
  peerListen?: string;
  help: boolean;
  version: boolean;
  /**
   * `--session-idle-timeout <seconds>` (official SDK 1.0 `sessionIdleTimeoutSeconds`): validated and
   * kept; Tandem does not release idle sessions yet (a session stays in memory until destroyed).
   */
  sessionIdleTimeoutSeconds: number;
  /** `--remote` (official SDK 1.0 `enableRemoteSessions`): accepted; Tandem has no remote sessions. */
  remote: boolean;
  /**
   * `--allow-all` / `--yolo` (the reference CLI's names): the user trusts every working folder, so
   * the code a folder brings (its `.github/extensions`) starts without a permission request.
   */
  allowAll: boolean;
  /**
   * `--report-intent on|off`: whether sessions offer the model `report_intent` when the session
   * does not say (unset: as the client's SDK generation expects; see `compat/profile.ts`).
   */
  reportIntent?: boolean;
  /** `--max-model-calls-per-turn <n>`: how many model calls one user message may make (else `TANDEM_MAX_MODEL_CALLS_PER_TURN`, else 1000). */
  maxModelCallsPerTurn?: number;
  /** `--sandbox on|off|<SandboxConfig JSON>`: the sandbox of sessions that bring none (else `TANDEM_SANDBOX`). */
  sandbox?: string;
}

/**
 * The flags, for `node:util` `parseArgs`. `--no-auto-update`, `--server` (what SDKs before 0.2
 * passed instead of `--headless`), `--no-color` and `--auto-update` are accepted and have no effect.
 */
const flags = {
  stdio: { type: "boolean" },
  port: { type: "string" },
  host: { type: "string" },
  "log-level": { type: "string" },
  "log-file": { type: "string" },
  "log-format": { type: "string" },
  "auth-token-env": { type: "string" },
  "connection-token-env": { type: "string" },
  headless: { type: "boolean" },
  "exit-with-parent": { type: "boolean" },
  "no-exit-with-parent": { type: "boolean" },
  "no-auto-login": { type: "boolean" },
  "sdk-protocol-version": { type: "string" },
  home: { type: "string" },
  store: { type: "string" },
  "node-id": { type: "string" },
  "health-port": { type: "string" },
  "advertise-url": { type: "string" },
  "peer-listen": { type: "string" },
  "session-idle-timeout": { type: "string" },
  remote: { type: "boolean" },
  "allow-all": { type: "boolean" },
  yolo: { type: "boolean" },
  "report-intent": { type: "string" },
  sandbox: { type: "string" },
  "max-model-calls-per-turn": { type: "string" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "v" },
  "no-auto-update": { type: "boolean" },
  server: { type: "boolean" },
  "no-color": { type: "boolean" },
  "auto-update": { type: "boolean" },
} as const satisfies ParseArgsConfig["options"];

type FlagValues = Partial<Record<keyof typeof flags, string | boolean>>;

/** What each flag that takes a value says when the value is missing or wrong. */
const valueErrors: Partial<Record<keyof typeof flags, string>> = {
  port: "--port needs a port number (0-65535)",
  host: "--host needs an address",
  "log-level": `--log-level must be one of ${logLevels.join(", ")}`,
  "log-file": "--log-file needs a path",
  "log-format": `--log-format must be one of ${logFormats.join(", ")}`,
  "auth-token-env": "--auth-token-env needs an environment variable name",
  "connection-token-env": "--connection-token-env needs an environment variable name",
  "sdk-protocol-version": "--sdk-protocol-version must be 2 or 3",
  home: "--home needs a folder",
  store: "--store needs a postgres:// URL",
  "node-id": "--node-id needs a name (letters, digits, . _ : -; at most 100 characters)",
  "health-port": "--health-port needs a port number (0-65535)",
  "advertise-url": "--advertise-url needs host:port (or tcp://host:port, http://host:port) where clients reach this node",
  "peer-listen": "--peer-listen needs host:port (port 0: a free one) where the other nodes of the cluster connect, or off",
  "session-idle-timeout": "--session-idle-timeout needs a whole number of seconds (0 = never)",
  "report-intent": "--report-intent must be on or off",
  "max-model-calls-per-turn": "--max-model-calls-per-turn needs a whole number of model calls (at least 1)",
  sandbox: "--sandbox needs on, off or a SandboxConfig as JSON",
};

/**
 * Parses the flags every official SDK from 0.1 to 1.0 passes (`--headless --no-auto-update
 * --log-level L --stdio | --port N --auth-token-env VAR --no-auto-login --session-idle-timeout N
 * --remote`, earlier `--server`) plus Tandem's own, with `node:util` `parseArgs` (`--flag value` or
 * `--flag=value`). Anything else is an error naming the argument (the runtime then exits with
 * status 2; the SDK shows its stderr to the application); so is a flag whose value is missing.
 */
export function parseArgs(argv: readonly string[]): RuntimeArgs {
  const values = parseFlags(argv);
  const text = (name: keyof typeof flags): string | undefined => {
    const value = values[name];
    if (value === undefined) return undefined;
    if (typeof value !== "string" || value === "") throw new Error(valueErrors[name]);
    return value;
  };
  const check = <T>(name: keyof typeof flags, value: T, valid: boolean): T => {
    if (!valid) throw new Error(valueErrors[name]);
    return value;
  };
  const args: RuntimeArgs = {
    stdio: values.stdio === true,
    port: 0,
    host: text("host") ?? "127.0.0.1",
    logLevel: "info",
    logFormat: "text",
    autoLogin: values["no-auto-login"] !== true,
    headless: values.headless === true,
    sdkProtocolVersion: 3,
    help: values.help === true,
    version: values.version === true,
    sessionIdleTimeoutSeconds: 0,
    remote: values.remote === true,
    allowAll: values["allow-all"] === true || values.yolo === true,
  };
  const port = text("port");
  if (port !== undefined) args.port = check("port", Number(port), Number.isInteger(Number(port)) && Number(port) >= 0 && Number(port) <= 65535);
  const logLevel = text("log-level");
  if (logLevel !== undefined) args.logLevel = check("log-level", logLevel as LogLevel, logLevels.includes(logLevel as LogLevel));
  const logFormat = text("log-format");
  if (logFormat !== undefined) args.logFormat = check("log-format", logFormat as LogFormat, logFormats.includes(logFormat as LogFormat));
  const protocol = text("sdk-protocol-version");
  if (protocol !== undefined) args.sdkProtocolVersion = check("sdk-protocol-version", Number(protocol) as 2 | 3, protocol === "2" || protocol === "3");
  const idle = text("session-idle-timeout");
  if (idle !== undefined) args.sessionIdleTimeoutSeconds = check("session-idle-timeout", Number(idle), Number.isInteger(Number(idle)) && Number(idle) >= 0);
  const reportIntent = text("report-intent");
  if (reportIntent !== undefined) args.reportIntent = check("report-intent", reportIntent === "on", reportIntent === "on" || reportIntent === "off");
  const maxModelCalls = text("max-model-calls-per-turn");
  if (maxModelCalls !== undefined) args.maxModelCallsPerTurn = check("max-model-calls-per-turn", Number(maxModelCalls), isModelCallLimit(Number(maxModelCalls)));
  const sandbox = text("sandbox");
  if (sandbox !== undefined) args.sandbox = check("sandbox", sandbox, isSandboxSetting(sandbox));
  const logFile = text("log-file");
  if (logFile !== undefined) args.logFile = logFile;
  const authTokenEnv = text("auth-token-env");
  if (authTokenEnv !== undefined) args.authTokenEnv = authTokenEnv;
  const connectionTokenEnv = text("connection-token-env");
  if (connectionTokenEnv !== undefined) args.connectionTokenEnv = connectionTokenEnv;
  const home = text("home");
  if (home !== undefined) args.home = home;
  const store = text("store");
  if (store !== undefined) args.store = check("store", store, /^postgres(ql)?:\/\//i.test(store));
  const nodeId = text("node-id");
  if (nodeId !== undefined) args.nodeId = check("node-id", nodeId, /^[A-Za-z0-9._:-]{1,100}$/.test(nodeId));
  const healthPort = text("health-port");
  if (healthPort !== undefined) {
    const value = Number(healthPort);
    args.healthPort = check("health-port", value, Number.isInteger(value) && value >= 0 && value <= 65535);
  }
  const advertiseUrl = text("advertise-url");
  if (advertiseUrl !== undefined) args.advertiseUrl = check("advertise-url", advertiseUrl, isAdvertiseUrl(advertiseUrl));
  const peerListen = text("peer-listen");
  if (peerListen !== undefined) args.peerListen = check("peer-listen", peerListen, peerListenOf(peerListen) !== undefined);
  // The last of --exit-with-parent / --no-exit-with-parent wins.
  const exitFlags = argv.filter((arg) => arg === "--exit-with-parent" || arg === "--no-exit-with-parent");
  if (exitFlags.length > 0) args.exitWithParent = exitFlags.at(-1) === "--exit-with-parent";
  return args;
}

/**
 * `node:util`, required rather than imported: an ESM import of a built-in builds its namespace by
 * reading every export, which loads util's lazy parts (MIME types and more) at start-up, ~0.5 ms
 * on the bench machine; `require` returns the module object as it is.
 */
const nodeUtil = createRequire(import.meta.url)("node:util") as typeof import("node:util");

/** `node:util` `parseArgs`, its errors turned into the runtime's messages. */
function parseFlags(argv: readonly string[]): FlagValues {
  try {
    return nodeUtil.parseArgs({ args: [...argv], options: flags, strict: true, allowPositionals: false }).values as FlagValues;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const message = error instanceof Error ? error.message : String(error);
    if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") throw new Error(`unknown flag ${/'([^']*)'/.exec(message)?.[1] ?? message}`);
    if (code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL") {
      const argument = /^Unexpected argument '(.*)'\. This command/s.exec(message)?.[1] ?? message;
      throw new Error(`unexpected argument ${JSON.stringify(argument)}`);
    }
    if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
      // A value missing, or starting with "-" (`--port --stdio`), or given to a flag that takes none.
      const name = (/'--([^' ]+)/.exec(message)?.[1] ?? "") as keyof typeof flags;
      throw new Error(valueErrors[name] ?? `--${name} takes no value`);
    }
    throw error;
  }
}

/** `on`, `off` or a JSON object (its fields are checked against `SandboxConfig` when the runtime starts). */
function isSandboxSetting(text: string): boolean {
  if (["on", "off", "true", "false", "1", "0"].includes(text.trim())) return true;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

/**
 * `TANDEM_SANDBOX` when `--sandbox` is not given, checked as the flag is (the runtime refuses to
 * start on anything but on, off or a JSON object).
 *
 * @example
 * args.sandbox ??= sandboxSettingFromEnv(process.env);
 */
export function sandboxSettingFromEnv(env: NodeJS.ProcessEnv): string | undefined {
  const value = env.TANDEM_SANDBOX;
  if (value === undefined || value === "") return undefined;
  if (!isSandboxSetting(value)) throw new Error("TANDEM_SANDBOX must be on, off or a SandboxConfig as JSON");
  return value;
}

/**
 * Whether `value` names a TCP endpoint a client can connect to: `host:port`, optionally behind
 * `tcp://`, `http://` or `https://` (what `cliUrl` accepts).
 *
 * @example
 * isAdvertiseUrl("10.0.0.7:4321"); // true
 * isAdvertiseUrl("10.0.0.7"); // false: no port
 */
export function isAdvertiseUrl(value: string): boolean {
  const match = /^(?:(?:tcp|https?):\/\/)?([A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\]):(\d{1,5})$/.exec(value);
  if (!match) return false;
  const port = Number(match[2]);
  return port > 0 && port <= 65535;
}

/**
 * `--peer-listen` / `TANDEM_CLUSTER_PEER_LISTEN`: `off`, or `host:port` (`[v6]:port`; port 0 picks
 * a free one); undefined for anything else.
 *
 * @example
 * peerListenOf("10.0.0.7:7400"); // { host: "10.0.0.7", port: 7400 }
 * peerListenOf("off"); // "off"
 */
export function peerListenOf(value: string): { host: string; port: number } | "off" | undefined {
  if (value.trim() === "off") return "off";
  const match = /^([A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\]):(\d{1,5})$/.exec(value.trim());
  if (!match) return undefined;
  const port = Number(match[2]);
  if (port > 65535) return undefined;
  return { host: match[1]!.replace(/^\[|\]$/g, ""), port };
}
