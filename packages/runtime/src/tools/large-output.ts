import { randomBytes } from "node:crypto";
import type { SessionFiles } from "../store/types.js";

/** How much of a spilled output the model reads in the tool result. */
export const SPILL_PREVIEW_CHARS = 500;

/** Where a session keeps tool outputs too long for the model to read at once. */
export interface LargeOutputSpill {
  /** Keeps `text` whole and returns where it is (a path the session's file system knows). */
  save(text: string): Promise<string>;
}

/**
 * Spilled outputs as files of the session (`temp/<ms>-tool-output-<random>.txt`), in whatever
 * keeps the session's files (the file system a client provides, for one).
 *
 * @example
 * const spill = new SessionFilesSpill(files);
 * const path = await spill.save(hugeText); // "/app/state/temp/1764100000000-tool-output-k3x9q2.txt"
 */
export class SessionFilesSpill implements LargeOutputSpill {
  constructor(private readonly files: SessionFiles) {}

  async save(text: string): Promise<string> {
    const name = `temp/${Date.now()}-tool-output-${randomBytes(4).toString("hex").slice(0, 6)}.txt`;
    await this.files.write(name, text);
    return this.files.location(name);
  }
}

/**
 * The tool result the model reads for a spilled output: its size, where it was saved, how to read
 * parts of it, and its first {@link SPILL_PREVIEW_CHARS} characters.
 *
 * @example
 * spilledOutputText("x".repeat(100_000), "/state/temp/1-tool-output-a1.txt"); // "The output is 97.7 KB, too long to include here. It was saved whole at: …"
 */
export function spilledOutputText(text: string, location: string): string {
  const kilobytes = (Buffer.byteLength(text) / 1024).toFixed(1);
  return [
    `The output is ${kilobytes} KB, too long to include here. It was saved whole at: ${location}`,
    "Read parts of that file instead of all of it: grep to search it, head or tail for its ends, view with a view_range for a span of lines, jq if it is JSON.",
    "",
    `Its first ${SPILL_PREVIEW_CHARS} characters:`,
    text.slice(0, SPILL_PREVIEW_CHARS),
  ].join("\n");
}
