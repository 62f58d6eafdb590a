import { open, readdir } from "node:fs/promises";
import { join, relative, resolve } from "node:path";

/** Where a session's custom instructions come from (the `session.create` fields of SDK 1.0.x). */
export interface InstructionSources {
  workingDirectory: string;
  /** More directories whose `*.instructions.md` files are included (relative paths: to the working directory). */
  instructionDirectories?: readonly string[];
  /** Skips the working directory's own instruction files (the directories above still count). */
  skipCustomInstructions?: boolean;
  /** Text included as is, first. */
  organizationCustomInstructions?: string;
}

/** Limits that keep instruction files from crowding out the conversation. */
export const instructionLimits = {
  /** Characters read from one file; the rest is cut with a note. */
  fileChars: 32_000,
  /** Characters of all instructions together; files past it are left out with a note. */
  totalChars: 96_000,
  /** `*.instructions.md` files read from one directory. */
  filesPerDirectory: 50,
} as const;

/** The working directory's instruction files, in the order they are included (relative paths). */
export const workingDirectoryFiles = [join(".github", "copilot-instructions.md"), "AGENTS.md", "CLAUDE.md"];

const instructionsSuffix = ".instructions.md";

/**
 * Collects a session's custom instructions for the system prompt: `organizationCustomInstructions`,
 * then (unless `skipCustomInstructions`) the working directory's `.github/copilot-instructions.md`,
 * `AGENTS.md` and `CLAUDE.md`, then `*.instructions.md` files in `.github/instructions/` of the
 * working directory and in each of `instructionDirectories` (directly inside it and in its
 * `.github/instructions/`). A file whose front matter scopes it to some files (`applyTo` other than
 * `**`) is left out: nothing tells which files the conversation is about. Identical texts count
 * once; sizes are bounded by {@link instructionLimits}. Unreadable paths are skipped.
 *
 * @example
 * const text = await loadCustomInstructions({ workingDirectory: "/repo", instructionDirectories: ["/team/rules"] });
 */
export async function loadCustomInstructions(sources: InstructionSources): Promise<string> {
  const parts: Array<{ source: string; text: string }> = [];
  const organization = sources.organizationCustomInstructions?.trim();
  if (organization) parts.push({ source: "organization", text: organization });
  for (const file of await readInstructionFiles(sources)) parts.push({ source: file.label, text: file.text });
  return joinBounded(parts);
}

/** One instruction file the system prompt includes. */
export interface InstructionFile {
  /** The file's path. */
  path: string;
  /** The path as the prompt names it: relative to the working directory when inside it. */
  label: string;
  /** Its text without front matter (cut at {@link instructionLimits.fileChars}). */
  text: string;
  /** Whether it comes from the working directory (else from one of `instructionDirectories`). */
  fromWorkingDirectory: boolean;
}

/**
 * The instruction files {@link loadCustomInstructions} includes, in order, with their texts (files
 * that are missing, empty or scoped to some files are left out).
 *
 * @example
 * const files = await readInstructionFiles({ workingDirectory: "/repo" }); // [{ label: "AGENTS.md", … }]
 */
export async function readInstructionFiles(sources: InstructionSources): Promise<InstructionFile[]> {
  const { workingDirectory } = sources;
  // The directories are listed, then the files read, all at once (in order when joined): this runs
  // in the first send of every session, where one file-system round trip after another added up.
  const listings: Array<Promise<string[]>> = [];
  if (!sources.skipCustomInstructions) listings.push(workingDirectoryInstructionFiles(workingDirectory));
  for (const directory of sources.instructionDirectories ?? []) {
    const root = resolve(workingDirectory, directory);
    listings.push(instructionFilesIn(root), instructionFilesIn(join(root, ".github", "instructions")));
  }
  const listed = await Promise.all(listings);
  const fromWorkingDirectory = new Set(sources.skipCustomInstructions ? [] : (listed[0] ?? []));
  const files = [...new Set(listed.flat())];
  const texts = await Promise.all(files.map((file) => readInstructionFile(file)));
  const found: InstructionFile[] = [];
  files.forEach((path, index) => {
    const text = texts[index];
    if (text) found.push({ path, label: displayPath(workingDirectory, path), text, fromWorkingDirectory: fromWorkingDirectory.has(path) });
  });
  return found;
}

/** Names in folder listings compare as the file system does: case-insensitively on macOS and Windows. */
const foldCase = process.platform === "darwin" || process.platform === "win32";

/**
 * The working directory's instruction files that exist, in order: its listing (and that of its
 * `.github`) tells which, so a folder with none costs one or two `readdir`s instead of an `open`
 * per candidate file. When the folder cannot be listed, every candidate is tried.
 */
async function workingDirectoryInstructionFiles(workingDirectory: string): Promise<string[]> {
  const top = await listNames(workingDirectory);
  if (!top) return [...workingDirectoryFiles.map((name) => join(workingDirectory, name)), ...(await instructionFilesIn(join(workingDirectory, ".github", "instructions")))];
  const githubName = top.get(fold(".github"));
  const github = githubName ? await listNames(join(workingDirectory, githubName)) : undefined;
  const files: string[] = [];
  for (const candidate of workingDirectoryFiles) {
    const [first, second] = candidate.split(/[\\/]/);
    const found = second === undefined ? top.get(fold(candidate)) : first === ".github" ? github?.get(fold(second)) : undefined;
    if (found) files.push(second === undefined ? join(workingDirectory, found) : join(workingDirectory, githubName ?? ".github", found));
  }
  const instructionsName = github?.get(fold("instructions"));
  if (githubName && instructionsName) files.push(...(await instructionFilesIn(join(workingDirectory, githubName, instructionsName))));
  return files;
}

/** A folder's entry names (keyed by their case-folded form where the file system folds case); undefined when it cannot be read. */
async function listNames(directory: string): Promise<Map<string, string> | undefined> {
  const names = await readdir(directory).catch(() => undefined);
  return names && new Map(names.map((name) => [fold(name), name]));
}

function fold(name: string): string {
  return foldCase ? name.toLowerCase() : name;
}

/** `*.instructions.md` files directly in `directory`, sorted by name (none when it cannot be read). */
async function instructionFilesIn(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => (entry.isFile() || entry.isSymbolicLink()) && entry.name.endsWith(instructionsSuffix))
    .map((entry) => entry.name)
    .sort()
    .slice(0, instructionLimits.filesPerDirectory)
    .map((name) => join(directory, name));
}

/** A file's instructions without its front matter; undefined when missing, empty or scoped to some files. */
async function readInstructionFile(path: string): Promise<string | undefined> {
  const raw = await readHead(path, instructionLimits.fileChars * 4);
  if (raw === undefined) return undefined;
  const { body, applyTo } = splitFrontMatter(raw);
  if (applyTo !== undefined && !appliesEverywhere(applyTo)) return undefined;
  const text = body.trim();
  if (!text) return undefined;
  return text.length > instructionLimits.fileChars ? `${text.slice(0, instructionLimits.fileChars)}\n[… cut: the file is longer than ${instructionLimits.fileChars} characters]` : text;
}

/** Reads at most `maxBytes` of a regular file as UTF-8 (never a whole huge file, never a FIFO). */
async function readHead(path: string, maxBytes: number): Promise<string | undefined> {
  const handle = await open(path, "r").catch(() => undefined);
  if (!handle) return undefined;
  try {
    const info = await handle.stat();
    if (!info.isFile()) return undefined;
    const buffer = Buffer.alloc(Math.min(info.size, maxBytes));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).toString("utf8");
  } catch {
    return undefined;
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** Splits `---` front matter off; returns its `applyTo` value (unquoted) when it has one. */
function splitFrontMatter(raw: string): { body: string; applyTo?: string } {
  const match = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(raw);
  if (!match) return { body: raw };
  const body = raw.slice(match[0].length);
  const applyLine = /^applyTo:[ \t]*(.*)$/m.exec(match[1] ?? "");
  if (!applyLine) return { body };
  return { body, applyTo: (applyLine[1] ?? "").trim().replace(/^(['"])(.*)\1$/, "$2") };
}

function appliesEverywhere(applyTo: string): boolean {
  return applyTo.split(",").some((pattern) => ["**", "**/*", "*", ""].includes(pattern.trim()));
}

function displayPath(workingDirectory: string, file: string): string {
  const inside = relative(workingDirectory, file);
  return inside && !inside.startsWith("..") ? inside : file;
}

/** The parts as one text, each under a heading naming its source, within the total limit. */
function joinBounded(parts: ReadonlyArray<{ source: string; text: string }>): string {
  const blocks: string[] = [];
  const seenTexts = new Set<string>();
  let total = 0;
  for (const { source, text } of parts) {
    if (seenTexts.has(text)) continue;
    seenTexts.add(text);
    const block = `Instructions from ${source}:\n${text}`;
    if (total + block.length > instructionLimits.totalChars) {
      blocks.push(`[Instructions from ${source} and later files were left out: together they exceed ${instructionLimits.totalChars} characters]`);
      break;
    }
    blocks.push(block);
    total += block.length;
  }
  return blocks.join("\n\n");
}
