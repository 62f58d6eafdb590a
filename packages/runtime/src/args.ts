import { logLevels, type LogLevel } from "./log.js";

/** The runtime's parsed command line. */
export interface RuntimeArgs {
  stdio: boolean;
  port: number;
  host: string;
  logLevel: LogLevel;
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
  help: boolean;
  version: boolean;
  /**
   * `--session-idle-timeout <seconds>` (official SDK 1.0 `sessionIdleTimeoutSeconds`): validated and
   * kept; Tandem does not release idle sessions yet (a session stays in memory until destroyed).
   */
  sessionIdleTimeoutSeconds: number;
  /** `--remote` (official SDK 1.0 `enableRemoteSessions`): accepted; Tandem has no remote sessions. */
  remote: boolean;
}

/**
 * Flags that are accepted and have no effect in a headless runtime. `--server` is what SDKs before
 * 0.2 passed instead of `--headless`.
 */
const acceptedNoOps = new Set(["--no-auto-update", "--server", "--no-color", "--auto-update"]);

/**
 * Parses the flags every official SDK from 0.1 to 1.0 passes (`--headless --no-auto-update
 * --log-level L --stdio | --port N --auth-token-env VAR --no-auto-login --session-idle-timeout N
 * --remote`, earlier `--server`) plus Tandem's own. Anything else is an error naming the argument
 * (the runtime then exits with status 2; the SDK shows its stderr to the application).
 */
export function parseArgs(argv: readonly string[]): RuntimeArgs {
  const args: RuntimeArgs = {
    stdio: false,
    port: 0,
    host: "127.0.0.1",
    logLevel: "info",
    autoLogin: true,
    headless: false,
    sdkProtocolVersion: 3,
    help: false,
    version: false,
    sessionIdleTimeoutSeconds: 0,
    remote: false,
  };
  for (let index = 0; index < argv.length; index++) {
    const raw = argv[index] ?? "";
    const [flag, inlineValue] = raw.startsWith("--") && raw.includes("=") ? splitOnce(raw) : [raw, undefined];
    const takeValue = (): string | undefined => {
      if (inlineValue !== undefined) return inlineValue;
      const next = argv[index + 1];
      if (next === undefined || next.startsWith("--")) return undefined;
      index++;
      return next;
    };
    switch (flag) {
      case "--stdio":
        args.stdio = true;
        break;
      case "--port": {
        const value = Number(takeValue());
        if (!Number.isInteger(value) || value < 0 || value > 65535) throw new Error(`--port needs a port number (0-65535)`);
        args.port = value;
        break;
      }
      case "--host": {
        const value = takeValue();
        if (!value) throw new Error("--host needs an address");
        args.host = value;
        break;
      }
      case "--log-level": {
        const value = takeValue() as LogLevel | undefined;
        if (!value || !logLevels.includes(value)) throw new Error(`--log-level must be one of ${logLevels.join(", ")}`);
        args.logLevel = value;
        break;
      }
      case "--log-file":
        args.logFile = takeValue();
        break;
      case "--auth-token-env":
        args.authTokenEnv = takeValue();
        break;
      case "--connection-token-env": {
        const value = takeValue();
        if (!value) throw new Error("--connection-token-env needs an environment variable name");
        args.connectionTokenEnv = value;
        break;
      }
      case "--headless":
        args.headless = true;
        break;
      case "--exit-with-parent":
        args.exitWithParent = true;
        break;
      case "--no-exit-with-parent":
        args.exitWithParent = false;
        break;
      case "--no-auto-login":
        args.autoLogin = false;
        break;
      case "--sdk-protocol-version": {
        const value = Number(takeValue());
        if (value !== 2 && value !== 3) throw new Error("--sdk-protocol-version must be 2 or 3");
        args.sdkProtocolVersion = value;
        break;
      }
      case "--home":
        args.home = takeValue();
        break;
      case "--session-idle-timeout": {
        const value = Number(takeValue());
        if (!Number.isInteger(value) || value < 0) throw new Error("--session-idle-timeout needs a whole number of seconds (0 = never)");
        args.sessionIdleTimeoutSeconds = value;
        break;
      }
      case "--remote":
        args.remote = true;
        break;
      case "--help":
      case "-h":
        args.help = true;
        break;
      case "--version":
      case "-v":
        args.version = true;
        break;
      default:
        if (acceptedNoOps.has(flag)) break;
        throw new Error(flag.startsWith("-") ? `unknown flag ${flag}` : `unexpected argument ${JSON.stringify(raw)}`);
    }
  }
  return args;
}

function splitOnce(raw: string): [string, string] {
  const at = raw.indexOf("=");
  return [raw.slice(0, at), raw.slice(at + 1)];
}

/** The `--help` text. */
export const helpText = `tandem — an open agent runtime speaking the Copilot SDK protocol (JSON-RPC 2.0)

Usage: tandem [--stdio | --port <n>] [options]

Transport
  --stdio                     serve JSON-RPC on stdin/stdout
  --port <n>                  serve on TCP (default: a free port); prints "listening on port <n>"
  --host <addr>               TCP address to bind (default 127.0.0.1); a non-loopback address
                              needs a connection token (and is warned about: no encryption)

TCP access
  COPILOT_CONNECTION_TOKEN    when set, a TCP client's first request must be connect {token}
                              with this value (what the official SDK 1.0 and @tandem/sdk send
                              when they start the runtime); anything else is refused and closed
  --connection-token-env <VAR>  read the token from VAR instead
  without a token             only clients on loopback whose socket belongs to this OS user are
                              served (checked in /proc/net/tcp); where there is no /proc (macOS,
                              Windows), TCP needs a token
  --headless                  marks a runtime started by an SDK; in TCP mode it then exits when
                              the process that started it dies (checked every second)
  --exit-with-parent, --no-exit-with-parent
                              force that on or off (a runtime started by hand, without
                              --headless, keeps running after its shell exits)

Options
  --log-level <level>         none | error | warning | info | debug | all (default info)
  --log-file <path>           write logs to a file instead of stderr
  --auth-token-env <VAR>      read the GitHub token for the Copilot API from VAR
  --no-auto-login             accepted; Tandem never uses a stored interactive login
  --sdk-protocol-version <n>  2 or 3 (default 3)
  --home <dir>                state folder (default $COPILOT_HOME, $TANDEM_HOME or ~/.tandem)
  --session-idle-timeout <s>  accepted (whole seconds); idle sessions are not released yet
  --no-auto-update, --remote  accepted for compatibility (no effect)
  --help, --version

Models: set COPILOT_API_URL (+ a GitHub token) for the Copilot API, OPENAI_BASE_URL / OPENAI_API_KEY
for any OpenAI-compatible server, or pass a BYOK provider in session.create.
Limits: TANDEM_MAX_MESSAGE_BYTES caps one incoming JSON-RPC message (default 104857600).
`;
