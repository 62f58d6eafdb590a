import { appendFile, mkdir, readdir } from "node:fs/promises";
import { join } from "node:path";
import { persistenceFailed, writeFileAtomic } from "../store/persistence-error.js";

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
  path: string;
}

/**
 * The numbered summaries of a session, readable by people: `<workspace>/checkpoints/NNN-<slug>.md`
 * plus `index.md` listing them. Numbers follow the highest file present (a file a crash left
 * without its event is skipped, never overwritten). Writes are serialised, so a sub-agent
 * compacting at the same time as the main loop gets the next number.
 *
 * @example
 * const checkpoint = await store.write({ title: "Fix the login bug", summary, ... });
 */
export class CheckpointStore {
  readonly dir: string;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(workspacePath: string) {
    this.dir = join(workspacePath, "checkpoints");
  }

  /** Writes the next checkpoint file and its index line; fails with `PersistenceFailed`. */
  write(record: CheckpointRecord): Promise<Checkpoint> {
    const next = this.chain.then(() => this.writeNext(record));
    this.chain = next.catch(() => undefined);
    return next;
  }

  private async writeNext(record: CheckpointRecord): Promise<Checkpoint> {
    await mkdir(this.dir, { recursive: true }).catch((error: unknown) => {
      throw persistenceFailed(this.dir, error, "open");
    });
    const number = (await this.highestNumber()) + 1;
    const file = `${String(number).padStart(3, "0")}-${slugOf(record.title)}.md`;
    const path = join(this.dir, file);
    const written = new Date().toISOString();
    await writeFileAtomic(path, renderCheckpoint(number, written, record));
    const indexPath = join(this.dir, "index.md");
    const header = number === 1 ? "# Checkpoints\n\nWhat the agent remembers of the compacted parts of this session, newest last.\n\n" : "";
    const agent = record.agentName ? ` (sub-agent ${record.agentName})` : "";
    const line = `- [${String(number).padStart(3, "0")}](${file}) ${written}${agent}: ${record.messagesSummarized} messages summarized, ${record.preCompactionTokens} → ${record.postCompactionTokens} tokens\n`;
    await appendFile(indexPath, header + line).catch((error: unknown) => {
      throw persistenceFailed(indexPath, error, "write");
    });
    return { number, file, path };
  }

  private async highestNumber(): Promise<number> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
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
