/**
 * The `serve` command: `serve <script.yaml>... [--port N] [--host H]`. A file may hold several
 * scripts as `---`-separated YAML documents.
 */
import { parseArgs } from "node:util";
import { ModelServer } from "./server.js";

/** Where the CLI writes and how it learns it should stop. */
export interface CliIo {
  stdout(line: string): void;
  stderr(line: string): void;
  /** Resolves when the server should stop (default: the first SIGINT or SIGTERM). */
  untilShutdown(): Promise<void>;
}

const USAGE = "usage: tandem-testkit serve <script.yaml>... [--port N] [--host H]";

/** The real process: console output, stop on SIGINT/SIGTERM. */
export function processIo(): CliIo {
  return {
    stdout: (line) => process.stdout.write(`${line}\n`),
    stderr: (line) => process.stderr.write(`${line}\n`),
    untilShutdown: () =>
      new Promise((resolve) => {
        const onSignal = (): void => {
          process.off("SIGINT", onSignal);
          process.off("SIGTERM", onSignal);
          resolve();
        };
        process.on("SIGINT", onSignal);
        process.on("SIGTERM", onSignal);
      }),
  };
}

interface ServeOptions {
  scripts: string[];
  port: number;
  host: string;
}

function parseServeArgs(argv: string[]): ServeOptions {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { port: { type: "string" }, host: { type: "string" }, help: { type: "boolean", short: "h" } },
  });
  const [command, ...scripts] = positionals;
  if (values.help) throw new Error(USAGE);
  if (command !== "serve") throw new Error(`unknown command ${JSON.stringify(command ?? "")}\n${USAGE}`);
  if (scripts.length === 0) throw new Error(`serve needs at least one script file\n${USAGE}`);
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be an integer 0-65535, got ${values.port}`);
  return { scripts, port, host: values.host ?? "127.0.0.1" };
}

/**
 * Runs the CLI and resolves with the exit code: prints
 * `model server listening on <url>` once ready and serves until shutdown.
 */
export async function runCli(argv: string[], io: CliIo = processIo()): Promise<number> {
  let options: ServeOptions;
  const server = new ModelServer();
  try {
    options = parseServeArgs(argv);
    for (const path of options.scripts) server.loadScriptFiles(path);
  } catch (error) {
    io.stderr((error as Error).message);
    return 2;
  }
  const shutdown = io.untilShutdown();
  let url: string;
  try {
    ({ url } = await server.start(options.port, options.host));
  } catch (error) {
    io.stderr(`cannot listen on ${options.host}:${options.port}: ${(error as Error).message}`);
    return 1;
  }
  io.stdout(`model server listening on ${url}`);
  await shutdown;
  await server.stop();
  return 0;
}
