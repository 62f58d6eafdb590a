import { appendFileSync } from "node:fs";

/** Log levels the runtime accepts on `--log-level`, most to least severe. */
export const logLevels = ["none", "error", "warning", "info", "debug", "all"] as const;
export type LogLevel = (typeof logLevels)[number];

const severity: Record<LogLevel, number> = { none: 0, error: 1, warning: 2, info: 3, debug: 4, all: 5 };

/** Where log lines go: a function that takes one finished line. */
export type LogSink = (line: string) => void;

/**
 * A small leveled logger. Lines go to stderr (never stdout: stdout may carry JSON-RPC) or a file.
 *
 * @example
 * const log = new Logger("info", stderrSink);
 * log.info("listening", { port });
 */
export class Logger {
  constructor(
    private readonly level: LogLevel,
    private readonly sink: LogSink,
  ) {}

  /** Whether lines at `level` are written. */
  enabled(level: Exclude<LogLevel, "none" | "all">): boolean {
    return severity[this.level] >= severity[level];
  }

  error(message: string, detail?: unknown): void {
    this.write("error", message, detail);
  }
  warn(message: string, detail?: unknown): void {
    this.write("warning", message, detail);
  }
  info(message: string, detail?: unknown): void {
    this.write("info", message, detail);
  }
  debug(message: string, detail?: unknown): void {
    this.write("debug", message, detail);
  }

  private write(level: Exclude<LogLevel, "none" | "all">, message: string, detail?: unknown): void {
    if (!this.enabled(level)) return;
    const suffix = detail === undefined ? "" : ` ${formatDetail(detail)}`;
    this.sink(`${new Date().toISOString()} [${level.toUpperCase()}] ${message}${suffix}\n`);
  }
}

function formatDetail(detail: unknown): string {
  if (detail instanceof Error) return detail.stack ?? detail.message;
  if (typeof detail === "string") return detail;
  try {
    return JSON.stringify(detail);
  } catch {
    return String(detail);
  }
}

/** A sink writing to the process's stderr. */
export const stderrSink: LogSink = (line) => {
  process.stderr.write(line);
};

/** A sink appending to a file (synchronously, so lines survive a crash). */
export function fileSink(path: string): LogSink {
  return (line) => {
    try {
      appendFileSync(path, line);
    } catch {
      // A log that cannot be written must never take the runtime down.
    }
  };
}
