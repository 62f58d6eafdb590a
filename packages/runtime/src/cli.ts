import { parseArgs, sandboxSettingFromEnv, type RuntimeArgs } from "./args.js";
import { parseWarmShells } from "./sandbox/pool-setting.js";
import { cappedLevel, fileSink, Logger, stderrSink } from "./log.js";
import { connectResult } from "./server/connect.js";
import { ClientConnection } from "./server/connection.js";
import { takeConnectionToken } from "./server/connection-token.js";
import { maxModelCallsPerTurnFromEnv } from "./loop/model-call-limit.js";
import { maxMessageBytesFromEnv } from "./server/message-reader.js";
import { pingResult } from "./server/ping.js";
import { outboundLimitsFromEnv } from "./server/writer.js";
import type { Runtime } from "./runtime.js";
import type { SessionStore } from "./store/types.js";
import { tuneV8 } from "./v8-tuning.js";
import { runtimeVersion } from "./version.js";

/**
 * Starts the runtime: `--stdio` serves one client on stdin/stdout; otherwise a TCP server on
 * 127.0.0.1 (a free port unless `--port` names one) prints `listening on port <N>`.
 *
 * TCP clients pass an access gate first (a connection token, or same-OS-user loopback only; see
 * `server/tcp-listener.ts`, loaded only in TCP mode).
 *
 * Start-up is kept small: this entry answers `ping` and `connect` on its own, and the rest of the runtime (zod
 * schemas, sessions, providers) loads on the first request that needs it. An idle runtime that was
 * only pinged stays at Node's own footprint.
 */
export async function main(argv: readonly string[]): Promise<void> {
  if (argv[0] === "store") {
    const { runStoreCommand } = await import("./store/store-command.js");
    // The logger comes from here: a Logger made in the lazily loaded module would split log.js out of this entry's chunk.
    process.exitCode = await runStoreCommand(argv.slice(1), { env: process.env, out: process.stdout, err: process.stderr, logger: new Logger("warning", stderrSink) });
    return;
  }
  let args: RuntimeArgs;
  let maxMessageBytes: number;
  try {
    args = parseArgs(argv);
    maxMessageBytes = maxMessageBytesFromEnv(process.env);
    args.maxModelCallsPerTurn ??= maxModelCallsPerTurnFromEnv(process.env);
    args.sandbox ??= sandboxSettingFromEnv(process.env);
    parseWarmShells(process.env.TANDEM_SANDBOX_POOL);
  } catch (error) {
    process.stderr.write(`tandem: ${(error as Error).message}\nRun tandem --help for usage.\n`);
    process.exitCode = 2;
    return;
  }
  if (args.help) {
    const { helpText } = await import("./help-text.js");
    process.stdout.write(helpText);
    return;
  }
  if (args.version) {
    process.stdout.write(`${runtimeVersion}\n`);
    return;
  }
  let connectionToken: string | undefined;
  try {
    connectionToken = takeConnectionToken(process.env, args.connectionTokenEnv);
  } catch (error) {
    process.stderr.write(`tandem: ${(error as Error).message}\n`);
    process.exitCode = 2;
    return;
  }
  // The TCP side loads only in TCP mode (see server/tcp-listener.ts).
  const tcp = args.stdio ? undefined : await import("./server/tcp-listener.js");
  const tcpCheck = tcp ? tcp.checkTcpStartup(args.host, connectionToken) : { warnings: [] };
  if (tcpCheck.refusal) {
    process.stderr.write(`tandem: ${tcpCheck.refusal}\n`);
    process.exitCode = 2;
    return;
  }
  for (const warning of tcpCheck.warnings) process.stderr.write(`tandem: warning: ${warning}\n`);
  tuneV8(process.execArgv);
  // A runtime an SDK spawned (`--headless`) shares the application's stderr: only warnings and
  // errors go there. The level asked for applies in full to a log file (--log-file, TANDEM_LOG_FILE).
  const logFile = args.logFile ?? (process.env.TANDEM_LOG_FILE || undefined);
  const stderrLevel = args.headless ? cappedLevel(args.logLevel, "warning") : args.logLevel;
  const logger = logFile ? new Logger(args.logLevel, fileSink(logFile), args.logFormat) : new Logger(stderrLevel, stderrSink, args.logFormat);
  let store: SessionStore | undefined;
  try {
    store = await openConfiguredStore(args, process.env, logger);
  } catch (error) {
    process.stderr.write(`tandem: ${(error as Error).message}\n`);
    process.exitCode = 1;
    return;
  }
  const loader = new RuntimeLoader(args, logger, maxMessageBytes, store);
  installShutdown(loader, logger);
  if (store?.kind === "postgres") {
    // A cluster node loads the runtime at once (other nodes may forward requests to it before any client of its own connects) and joins.
    try {
      const runtime = await loader.load();
      const { joinClusterAtStart } = await import("./cluster-join.js");
      await joinClusterAtStart(runtime, args, logger);
    } catch (error) {
      process.stderr.write(`tandem: could not join the cluster: ${(error as Error).message}\n`);
      await loader.shutdown().catch(() => undefined);
      process.exitCode = 1;
      return;
    }
  }

  if (args.stdio) {
    const client = loader.serve(process.stdin, process.stdout);
    client.onClose(() => void exitAfterShutdown(loader, 0));
    return;
  }
  tcp?.listenTcp({
    args,
    token: connectionToken,
    runtimeVersion,
    logger,
    serve: (socket, openedWithConnect) => {
      const client = loader.serve(socket, socket);
      if (openedWithConnect) client.markOpenedWithConnect();
    },
    onParentGone: () => void exitAfterShutdown(loader, 0),
  });
}

/** Loads the runtime once, on first need, and hands it the connections opened before that. */
class RuntimeLoader {
  private runtime: Promise<Runtime> | undefined;
  private loaded: Runtime | undefined;
  /** Connections opened before the runtime was loaded; adopted when it is. */
  private readonly waiting = new Set<ClientConnection>();
  private readonly outboundLimits = outboundLimitsFromEnv(process.env);

  constructor(
    private readonly args: RuntimeArgs,
    private readonly logger: Logger,
    private readonly maxMessageBytes: number,
    private readonly store: SessionStore | undefined,
  ) {}

  serve(input: NodeJS.ReadableStream, output: NodeJS.WritableStream): ClientConnection {
    const client = new ClientConnection(input, output, (method, params, from) => this.dispatch(method, params, from), this.logger, {
      maxMessageBytes: this.maxMessageBytes,
      outbound: this.outboundLimits,
    });
    if (this.loaded) this.loaded.adopt(client);
    else {
      this.waiting.add(client);
      client.onClose(() => this.waiting.delete(client));
    }
    return client;
  }

  load(): Promise<Runtime> {
    const started = performance.now();
    this.runtime ??= import("./runtime.js").then(({ Runtime }) => {
      const runtime = new Runtime({ args: this.args, env: process.env, logger: this.logger, exit: () => void exitAfterShutdown(this, 0), ...(this.store ? { store: this.store } : {}) });
      this.logger.debug(`runtime loaded in ${Math.round(performance.now() - started)} ms`);
      for (const client of this.waiting) runtime.adopt(client);
      this.waiting.clear();
      this.loaded = runtime;
      return runtime;
    });
    return this.runtime;
  }

  async shutdown(): Promise<void> {
    if (this.runtime) await (await this.runtime).shutdown();
    else await this.store?.close();
  }

  private async dispatch(method: string, params: unknown, client: ClientConnection): Promise<unknown> {
    if (method === "ping" && !this.loaded) return pingResult(params, this.args.sdkProtocolVersion, client.profile);
    if (method === "connect" && !this.loaded) return connectResult(this.args.sdkProtocolVersion, runtimeVersion);
    const runtime = this.loaded ?? (await this.load());
    return runtime.dispatch(method, params, client);
  }
}

/**
 * The store `--store` / `TANDEM_STORE_URL` names, opened (connected, schema migrated) before the
 * runtime serves anything; undefined for the default file store. Loads the PostgreSQL module (and
 * the `pg` driver) only then, so the file store's start-up is unchanged.
 */
async function openConfiguredStore(args: RuntimeArgs, env: NodeJS.ProcessEnv, logger: Logger): Promise<SessionStore | undefined> {
  const url = args.store ?? (env.TANDEM_STORE_URL || undefined);
  if (url === undefined) return undefined;
  const { openPostgresStore } = await import("./store/postgres/open.js");
  const { resolveHome } = await import("./store/session-store.js");
  return openPostgresStore({ url, home: resolveHome(env, args.home), logger });
}

let exiting = false;

async function exitAfterShutdown(loader: RuntimeLoader, code: number): Promise<void> {
  if (exiting) return;
  exiting = true;
  const forced = setTimeout(() => process.exit(code), 3000);
  forced.unref();
  try {
    await loader.shutdown();
  } finally {
    process.exit(code);
  }
}

function installShutdown(loader: RuntimeLoader, logger: Logger): void {
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
    process.on(signal, () => {
      logger.info(`received ${signal}; shutting down`);
      void exitAfterShutdown(loader, 0);
    });
  }
  process.on("uncaughtException", (error) => logger.error("uncaught exception", error));
  process.on("unhandledRejection", (reason) => logger.error("unhandled rejection", reason));
}
