import { open, type FileHandle } from "node:fs/promises";
import { StringDecoder } from "node:string_decoder";

/** How one file is searched and its lines printed. */
export interface FileSearchOptions {
  /** Non-global for line-by-line searches; `gms` for multiline ones. */
  regex: RegExp;
  mode: "content" | "files_with_matches" | "count";
  multiline: boolean;
  lineNumbers: boolean;
  before: number;
  after: number;
  /** The file was named by the caller (not found by walking a folder): binary files are searched too. */
  explicit: boolean;
  /** Largest file a multiline search reads whole. */
  maxMultilineBytes: number;
  /** Longest line a line-by-line search holds. */
  maxLineChars: number;
  signal: AbortSignal;
  /** Receives the printed lines of content mode as they are found. */
  sink: LineSink;
}

/** Where printed lines go. */
export interface LineSink {
  emit(line: string): void;
  /** Lines emitted so far, by every file. */
  readonly count: number;
}

/** Why a file was not searched. */
export type SkipReason = "binary" | "unreadable" | "too-large";

/** How many lines of a searched file matched (its content lines went to the sink), or why it was skipped. */
export type FileSearchResult = { kind: "searched"; matchingLines: number } | { kind: "skipped"; reason: SkipReason; detail: string };

/** Bytes at the start of a file in which a NUL byte marks it binary (like git and ripgrep's first read). */
export const BINARY_PROBE_BYTES = 8192;
const CHUNK_BYTES = 256 * 1024;

/**
 * Searches one file as ripgrep does: line by line, streamed in chunks (so memory stays flat
 * however large the file is), or — for multiline patterns — read whole up to a size limit. A
 * file found by walking a folder with a NUL byte in its first 8 KB is binary and skipped; a named
 * one is searched anyway and, in content mode, reported as `binary file matches` instead of lines.
 *
 * @example
 * await searchFile("/repo/big.log", "./big.log", { regex: /needle/, mode: "content", sink, ... });
 */
export async function searchFile(path: string, name: string, options: FileSearchOptions): Promise<FileSearchResult> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(path, "r");
    const probe = Buffer.alloc(BINARY_PROBE_BYTES);
    const { bytesRead } = await handle.read(probe, 0, probe.length, 0);
    const nulAt = probe.subarray(0, bytesRead).indexOf(0);
    if (nulAt === -1) return options.multiline ? await searchWhole(handle, name, options) : await searchLines(handle, name, options);
    if (!options.explicit) return { kind: "skipped", reason: "binary", detail: `a NUL byte at offset ${nulAt}` };
    const counted = { ...options, mode: options.mode === "content" ? ("count" as const) : options.mode };
    const result = options.multiline ? await searchWhole(handle, name, counted) : await searchLines(handle, name, counted);
    if (result.kind === "searched" && result.matchingLines > 0 && options.mode === "content") {
      options.sink.emit(`${name}: binary file matches (found "\\0" byte around offset ${nulAt})`);
    }
    return result;
  } catch (error) {
    return { kind: "skipped", reason: "unreadable", detail: describeError(error) };
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

async function searchLines(handle: FileHandle, name: string, options: FileSearchOptions): Promise<FileSearchResult> {
  const printer = new ContextPrinter(name, options);
  const decoder = new StringDecoder("utf8");
  const buffer = Buffer.alloc(CHUNK_BYTES);
  let carry = "";
  let index = 0;
  let matchingLines = 0;
  // True when the search of this file is over (files_with_matches needs one match).
  const visit = (line: string): boolean => {
    const matched = options.regex.test(line);
    if (matched) matchingLines++;
    if (options.mode === "content") printer.line(index, line, matched);
    index++;
    return matched && options.mode === "files_with_matches";
  };
  for (;;) {
    if (options.signal.aborted) return { kind: "searched", matchingLines };
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
    if (bytesRead === 0) break;
    const text = decoder.write(buffer.subarray(0, bytesRead));
    const parts = text.split("\n");
    if (parts.length === 1) {
      carry += text;
      if (carry.length > options.maxLineChars) return { kind: "skipped", reason: "too-large", detail: `a line longer than ${options.maxLineChars} characters` };
      continue;
    }
    if (visit(carry + parts[0]!)) return { kind: "searched", matchingLines };
    for (let part = 1; part < parts.length - 1; part++) if (visit(parts[part]!)) return { kind: "searched", matchingLines };
    carry = parts.at(-1)!;
  }
  carry += decoder.end();
  if (carry !== "") visit(carry);
  return { kind: "searched", matchingLines };
}

async function searchWhole(handle: FileHandle, name: string, options: FileSearchOptions): Promise<FileSearchResult> {
  const size = (await handle.stat()).size;
  if (size > options.maxMultilineBytes) {
    return { kind: "skipped", reason: "too-large", detail: `larger than ${formatBytes(options.maxMultilineBytes)}, the limit of a multiline search` };
  }
  const text = (await handle.readFile()).toString("utf8");
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const matched = multilineMatches(text, lines, options.regex);
  if (options.mode === "content") {
    const printer = new ContextPrinter(name, options);
    for (let index = 0; index < lines.length; index++) printer.line(index, lines[index]!, matched.has(index));
  }
  return { kind: "searched", matchingLines: matched.size };
}

/** The indexes of the lines a multiline match touches. */
function multilineMatches(text: string, lines: string[], regex: RegExp): Set<number> {
  const starts: number[] = [];
  let offset = 0;
  for (const line of lines) {
    starts.push(offset);
    offset += line.length + 1;
  }
  const lineOf = (position: number) => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (starts[middle]! <= position) low = middle;
      else high = middle - 1;
    }
    return low;
  };
  const matched = new Set<number>();
  regex.lastIndex = 0;
  for (let match = regex.exec(text); match; match = regex.exec(text)) {
    const first = lineOf(match.index);
    const last = lineOf(Math.max(match.index, match.index + match[0].length - 1));
    for (let line = first; line <= last && line < lines.length; line++) matched.add(line);
    if (match[0].length === 0) regex.lastIndex++;
  }
  return matched;
}

/**
 * Prints matching lines with their context as lines arrive: `name:N:text` for matches,
 * `name-N-text` for context, `--` between groups that do not touch and between files (ripgrep's
 * format). Only the last `before` lines are held.
 */
class ContextPrinter {
  private readonly held: Array<{ index: number; text: string }> = [];
  private lastPrinted = -1;
  private afterLeft = 0;

  constructor(
    private readonly name: string,
    private readonly options: Pick<FileSearchOptions, "lineNumbers" | "before" | "after" | "sink">,
  ) {}

  line(index: number, text: string, matched: boolean): void {
    if (matched) {
      for (const held of this.held) this.print(held.index, held.text, false);
      this.held.length = 0;
      this.print(index, text, true);
      this.afterLeft = this.options.after;
      return;
    }
    if (this.afterLeft > 0) {
      this.afterLeft--;
      this.print(index, text, false);
      return;
    }
    if (this.options.before === 0) return;
    this.held.push({ index, text });
    if (this.held.length > this.options.before) this.held.shift();
  }

  private print(index: number, text: string, matched: boolean): void {
    const withContext = this.options.before > 0 || this.options.after > 0;
    const { sink } = this.options;
    const apart = this.lastPrinted === -1 ? sink.count > 0 : index !== this.lastPrinted + 1;
    if (withContext && apart) sink.emit("--");
    const separator = matched ? ":" : "-";
    const number = this.options.lineNumbers ? `${index + 1}${separator}` : "";
    sink.emit(`${this.name}${separator}${number}${text}`);
    this.lastPrinted = index;
  }
}

function describeError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  if (code === "ENOENT") return "it no longer exists";
  return error instanceof Error ? error.message : String(error);
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Math.round(bytes / (1024 * 1024))} MB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${bytes} bytes`;
}
