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
 * Spilled outputs as files of the session (`temp/<ms>-copilot-tool-output-<random>.txt`), in whatever
 * keeps the session's files (the file system a client provides, for one).
 *
 * @example
 * const spill = new SessionFilesSpill(files);
 * const path = await spill.save(hugeText); // "/app/state/temp/1764100000000-copilot-tool-output-k3x9q2.txt"
 */
export class SessionFilesSpill implements LargeOutputSpill {
  constructor(private readonly files: SessionFiles) {}

  async save(text: string): Promise<string> {
    const name = `temp/${Date.now()}-copilot-tool-output-${randomBytes(4).toString("hex").slice(0, 6)}.txt`;
    await this.files.write(name, text);
    return this.files.location(name);
  }
}

/**
 * The tool result the model reads for a spilled output: its size, where it was saved, how to read
 * parts of it, and its first {@link SPILL_PREVIEW_CHARS} characters.
 *
 * @example
 * spilledOutputText("x".repeat(100_000), "/state/temp/1-copilot-tool-output-a1.txt"); // "Output too large to read at once (97.7 KB). Saved to: …"
 */
export function spilledOutputText(text: string, location: string): string {
  const kilobytes = (Buffer.byteLength(text) / 1024).toFixed(1);
  return [
    `Output too large to read at once (${kilobytes} KB). Saved to: ${location}`,
    "Consider using tools like grep (for searching), head/tail (for viewing start/end), view with view_range (for specific sections), or jq (for JSON) to examine portions of the output.",
    "",
    `Preview (first ${SPILL_PREVIEW_CHARS} chars):`,
    text.slice(0, SPILL_PREVIEW_CHARS),
  ].join("\n");
}
