import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Pool } from "pg";
import type { Logger } from "../../log.js";
import { forEachLine } from "../event-lines.js";
import { FileSessionFiles } from "../file-session-files.js";
import { isSafeSessionId } from "../safe-path.js";
import { batchFields } from "./event-fields.js";
import { FileSessionStore } from "../session-store.js";

/** What happened to one file-store session. */
export interface ImportedSession {
  sessionId: string;
  outcome: "imported" | "already-imported" | "differs" | "failed";
  events: number;
  files: number;
  /** Unreadable lines left out (a torn tail after a crash, or corruption). */
  skippedLines: number;
  detail?: string;
}

/** Resume points name byte offsets of `events.jsonl`: not valid in the database (the next compaction writes a new one). */
const notImported = new Set(["resume-point.json"]);
const eventsPerStatement = 1000;

/**
 * Copies every session of a file store (`<from>/session-state/<id>/` or `<from>/<id>/`) into the
 * PostgreSQL store: its events (unreadable lines skipped and counted), workspace info, plan,
 * checkpoints and workspace files, one transaction per session. Idempotent: a session already in
 * the database is verified (same number of events, same last event id) and left alone.
 *
 * @example
 * const results = await importFileSessions(pool, "/home/me/.tandem", logger);
 */
export async function importFileSessions(pool: Pool, from: string, logger: Logger): Promise<ImportedSession[]> {
  const root = await sessionsRoot(from);
  const home = root.endsWith("session-state") ? join(root, "..") : root;
  const fileStore = new FileSessionStore(home, logger);
  const names = (await readdir(root).catch(() => [] as string[])).filter(isSafeSessionId).sort();
  const results: ImportedSession[] = [];
  for (const sessionId of names) {
    const dir = join(root, sessionId);
    if (!(await stat(join(dir, "events.jsonl")).catch(() => undefined))) continue;
    results.push(await importOne(pool, fileStore, dir, sessionId).catch((error: unknown): ImportedSession => ({ sessionId, outcome: "failed", events: 0, files: 0, skippedLines: 0, detail: (error as Error).message })));
  }
  return results;
}

async function sessionsRoot(from: string): Promise<string> {
  const nested = join(from, "session-state");
  return (await stat(nested).catch(() => undefined))?.isDirectory() ? nested : from;
}

async function importOne(pool: Pool, fileStore: FileSessionStore, dir: string, sessionId: string): Promise<ImportedSession> {
  const lines: string[] = [];
  let skippedLines = 0;
  let lastId: string | undefined;
  const scan = await forEachLine(join(dir, "events.jsonl"), 0, (line) => {
    if (line.trim() === "") return;
    try {
      lastId = String((JSON.parse(line) as { id?: unknown }).id);
    } catch {
      skippedLines++;
      return;
    }
    lines.push(line);
  });
  if (scan.tornBytes > 0) skippedLines++;
  const files = new FileSessionFiles(dir);
  const names = (await files.list("")).filter((name) => !notImported.has(name) && name !== "events.jsonl" && name !== "workspace.yaml" && !name.endsWith(".tmp") && (name === "plan.md" || name.startsWith("checkpoints/") || name.startsWith("files/")));
  const base = { sessionId, events: lines.length, files: names.length, skippedLines };
  const existing = await pool.query<{ last_seq: string; last_id: string | null }>(
    "SELECT s.last_seq, (SELECT event_id FROM events e WHERE e.session_id = s.id ORDER BY seq DESC LIMIT 1) AS last_id FROM sessions s WHERE s.id = $1",
    [sessionId],
  );
  const row = existing.rows[0];
  if (row && Number(row.last_seq) > 0) {
    const same = Number(row.last_seq) === lines.length && (row.last_id ?? undefined) === lastId;
    return same ? { ...base, outcome: "already-imported" } : { ...base, outcome: "differs", detail: `the database holds ${row.last_seq} event(s) for it, the file ${lines.length}; left as it is` };
  }
  const workspace = await fileStore.readWorkspace(sessionId);
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    let seq = 0;
    for (let start = 0; start < lines.length; start += eventsPerStatement) {
      const batch = lines.slice(start, start + eventsPerStatement);
      const { ids, types } = batchFields(batch);
      const { rows } = await client.query<{ last: string }>("SELECT tandem_append_events($1, $2, $3::json[], $4::text[], $5::text[]) AS last", [sessionId, seq, batch, ids, types]);
      seq = Number(rows[0]?.last);
    }
    if (lines.length === 0) await client.query("INSERT INTO sessions (id) VALUES ($1) ON CONFLICT (id) DO NOTHING", [sessionId]);
    if (workspace) {
      await client.query(
        `UPDATE sessions SET has_workspace = true, cwd = $2, summary_count = $3, created_at = $4, updated_at = $5, summary = $6, model = $7, name = $8 WHERE id = $1`,
        [sessionId, workspace.cwd, workspace.summary_count, workspace.created_at, workspace.updated_at, workspace.summary ?? null, workspace.model ?? null, workspace.name ?? null],
      );
    }
    const modified = (await stat(join(dir, "events.jsonl"))).mtime;
    await client.query("UPDATE sessions SET modified_at = $2 WHERE id = $1", [sessionId, modified]);
    for (const name of names) {
      const content = await files.read(name);
      if (content === undefined) continue;
      await client.query("INSERT INTO session_files (session_id, name, content) VALUES ($1, $2, $3) ON CONFLICT (session_id, name) DO UPDATE SET content = EXCLUDED.content", [sessionId, name, content]);
    }
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
  return { ...base, outcome: "imported", ...(skippedLines > 0 ? { detail: `${skippedLines} unreadable line(s) left out (a torn tail?)` } : {}) };
}
