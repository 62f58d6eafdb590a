import { appendFileSync } from "node:fs";

/** Log levels the runtime accepts on `--log-level`, most to least severe. */
export const logLevels = ["none", "error", "warning", "info", "debug", "all"] as const;
export type LogLevel = (typeof logLevels)[number];

const severity: Record<LogLevel, number> = { none: 0, error: 1, warning: 2, info: 3, debug: 4, all: 5 };

/**
 * The level a sink actually gets: `level`, but no more verbose than `cap`.
 *
 * @example
 * cappedLevel("debug", "warning"); // "warning"
 */
export function cappedLevel(level: LogLevel, cap: LogLevel): LogLevel {
  return severity[level] <= severity[cap] ? level : cap;
}

/** `--log-format`: lines for people, or one JSON object per line for machines. */
export const logFormats = ["text", "json"] as const;
export type LogFormat = (typeof logFormats)[number];

/** Where log lines go: a function that takes one finished line. */
export type LogSink = (line: string) => void;

/** Fields a child logger adds to each of its lines (an `undefined` field is left out). */
export type LogFields = Readonly<Record<string, string | number | undefined>>;

/** The redaction every logger of one tree applies; children share their root's. */
interface Redaction {
  apply: (line: string) => string;
}

/**
 * A small leveled logger. Lines go to stderr (never stdout: stdout may carry JSON-RPC) or a file.
 * In `json` format each line is `{"time","level","message",…}`: an object detail's fields are
 * merged in, an Error becomes `error` (message and stack), anything else `detail`.
 *
 * @example
 * const log = new Logger("info", stderrSink);
 * log.info("listening", { port });
 */
export class Logger {
  /** Applied to every line before it reaches the sink (see {@link Logger.redactWith}). */
  private readonly redaction: Redaction;
  /** The fields of this logger's lines, read when a line is written (so they may change). */
  private readonly context: (() => LogFields) | undefined;

  constructor(
    private readonly level: LogLevel,
    private readonly sink: LogSink,
    private readonly format: LogFormat = "text",
    parent?: { redaction: Redaction; context: (() => LogFields) | undefined },
  ) {
    this.redaction = parent?.redaction ?? { apply: (line) => line };
    this.context = parent?.context;
  }

  /** Passes every line written from now on, by this logger and its children, through `redact` (secrets a client asked to keep out of logs). */
  redactWith(redact: (line: string) => string): void {
    this.redaction.apply = redact;
  }

  /**
   * A logger writing to the same place at the same level whose lines also carry `fields()`, read
   * at each line (after this logger's own fields). Text lines show them as `[key=value …]` before
   * the message; JSON lines as top-level fields.
   *
   * @example
   * const sessionLog = logger.child(() => ({ sessionId, interactionId: runner.interactionId }));
   * sessionLog.info("session idle"); // … [INFO] [sessionId=… interactionId=…] session idle
   */
  child(fields: () => LogFields): Logger {
    const outer = this.context;
    const context = outer ? () => ({ ...outer(), ...fields() }) : fields;
    return new Logger(this.level, this.sink, this.format, { redaction: this.redaction, context });
  }

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
    const context = this.context ? definedFields(this.context()) : undefined;
    if (this.format === "json") {
      this.sink(this.redaction.apply(`${jsonLine(level, message, detail, context)}\n`));
      return;
    }
    const prefix = context && Object.keys(context).length > 0 ? `[${Object.entries(context).map(([key, value]) => `${key}=${value}`).join(" ")}] ` : "";
    const suffix = detail === undefined ? "" : ` ${formatDetail(detail)}`;
    this.sink(this.redaction.apply(`${new Date().toISOString()} [${level.toUpperCase()}] ${prefix}${message}${suffix}\n`));
  }
}

function definedFields(fields: LogFields): Record<string, string | number> {
  const defined: Record<string, string | number> = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) defined[key] = value;
  return defined;
}

function jsonLine(level: string, message: string, detail: unknown, context: Record<string, string | number> | undefined): string {
  const head = { time: new Date().toISOString(), level, message, ...context };
  let fields: Record<string, unknown> = {};
  if (detail instanceof Error) fields = { error: { name: detail.name, message: detail.message, stack: detail.stack } };
  else if (detail !== null && typeof detail === "object" && !Array.isArray(detail)) fields = detail as Record<string, unknown>;
  else if (detail !== undefined) fields = { detail };
  try {
    return JSON.stringify({ ...fields, ...head });
  } catch {
    return JSON.stringify({ ...head, detail: String(detail) });
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

/**
 * A sink writing to the process's stderr. A reader that went away (EPIPE) must not turn every later
 * line into an uncaught exception, so the first line adds an error listener; not earlier, because
 * touching `process.stderr` creates the stream (~1 ms of a ~5 ms start-up, measured on the bench
 * machine with the stream a pipe).
 */
export const stderrSink: LogSink = (line) => {
  const stderr = process.stderr;
  if (stderr.listenerCount("error") === 0) stderr.on("error", ignoreError);
  stderr.write(line);
};

function ignoreError(): void {}

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
