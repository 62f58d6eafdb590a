import type { SessionFiles } from "../store/types.js";

const folder = "checkpoints";

/** What one checkpoint file records. */
export interface CheckpointRecord {
  title: string;
  summary: string;
  sessionId: string;
  messagesSummarized: number;
  preCompactionTokens: number;
  postCompactionTokens: number;
  /** Set for a sub-agent's own compaction. */
  agentName?: string;
}

/** A written checkpoint. */
export interface Checkpoint {
  number: number;
  /** The file name inside the checkpoints folder (`NNN-<slug>.md`). */
  file: string;
  /** Where it is (a path in the file store). */
  path: string;
}

/** The checkpoint index, a session file. */
export const checkpointIndexName = `${folder}/index.md`;

/** How the checkpoint index starts (before its first line). */
export const checkpointIndexHeader = "# Checkpoints\n\nWhat the agent remembers of the compacted parts of this session, newest last.\n\n";

/**
 * The numbered summaries of a session, readable by people: `checkpoints/NNN-<slug>.md` (session files)
 * plus `index.md` listing them. Numbers follow the highest file present (a file a crash left
 * without its event is skipped, never overwritten). Writes are serialised, so a sub-agent
 * compacting at the same time as the main loop gets the next number.
 *
 * @example
 * const checkpoint = await new CheckpointStore(store.files(sessionId)).write({ title: "Fix the login bug", summary, ... });
 */
export class CheckpointStore {
  private chain: Promise<unknown> = Promise.resolve();

  constructor(private readonly files: SessionFiles) {}

  /** Where the checkpoints are (a folder in the file store). */
  get dir(): string {
    return this.files.location(folder);
  }

  /** Writes the next checkpoint file and its index line; fails with `PersistenceFailed`. */
  write(record: CheckpointRecord): Promise<Checkpoint> {
    const next = this.chain.then(() => this.writeNext(record));
    this.chain = next.catch(() => undefined);
    return next;
  }

  private async writeNext(record: CheckpointRecord): Promise<Checkpoint> {
    const number = (await this.highestNumber()) + 1;
    const file = `${String(number).padStart(3, "0")}-${slugOf(record.title)}.md`;
    const name = `${folder}/${file}`;
    const written = new Date().toISOString();
    await this.files.write(name, renderCheckpoint(number, written, record));
    const header = (await this.files.exists(checkpointIndexName)) ? "" : checkpointIndexHeader;
    const agent = record.agentName ? ` (sub-agent ${record.agentName})` : "";
    const line = `- [${String(number).padStart(3, "0")}](${file}) ${written}${agent}: ${record.messagesSummarized} messages summarized, ${record.preCompactionTokens} → ${record.postCompactionTokens} tokens\n`;
    await this.files.append(checkpointIndexName, header + line);
    return { number, file, path: this.files.location(name) };
  }

  /** How many compaction checkpoints the session has (the highest number written). */
  count(): Promise<number> {
    return this.highestNumber();
  }

  private async highestNumber(): Promise<number> {
    const names = await this.files.list(folder);
    let highest = 0;
    for (const name of names) {
      const match = /^(\d{3,})-.*\.md$/.exec(name);
      if (match) highest = Math.max(highest, Number(match[1]));
    }
    return highest;
  }
}

function renderCheckpoint(number: number, written: string, record: CheckpointRecord): string {
  return [
    `# Checkpoint ${number}: ${record.title}`,
    "",
    `- Session: ${record.sessionId}${record.agentName ? ` (sub-agent ${record.agentName})` : ""}`,
    `- Written: ${written}`,
    `- Messages summarized: ${record.messagesSummarized}`,
    `- Tokens: ${record.preCompactionTokens} before, ${record.postCompactionTokens} after`,
    "",
    "## Summary",
    "",
    record.summary,
    "",
  ].join("\n");
}

/**
 * A file-name slug: lower-case words of `title` joined by dashes, at most 40 characters.
 *
 * @example
 * slugOf("Fix the login bug!"); // "fix-the-login-bug"
 */
export function slugOf(title: string): string {
  const slug = title
    .toLowerCase()
    .replace(/<[^>]*>/g, " ")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40)
    .replace(/-+$/, "");
  return slug || "checkpoint";
}
