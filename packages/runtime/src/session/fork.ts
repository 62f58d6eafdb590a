import { randomUUID } from "node:crypto";
import { ErrorCodes, invalidParams, TandemError } from "../errors.js";
import type { SessionStore } from "../store/types.js";
import { summaryOf } from "./user-message.js";

/**
 * The persisted history of a session up to (not including) the event `toEventId`, as the JSON text
 * lines of `events.jsonl`; all of it when `toEventId` is undefined. Unreadable lines (a torn tail)
 * are left out. Throws -32602 when no persisted event has that id (ephemeral events are never
 * stored, so they cannot be a boundary). Shared by fork and rewind: both cut a history at an event.
 *
 * @example
 * const lines = historyBefore(await readFile(path, "utf8"), "3f2a…");
 */
export function historyBefore(eventsText: string, toEventId: string | undefined): string[] {
  const kept: string[] = [];
  for (const line of eventsText.split("\n")) {
    if (line.trim() === "") continue;
    let id: unknown;
    try {
      id = (JSON.parse(line) as { id?: unknown }).id;
    } catch {
      continue;
    }
    if (toEventId !== undefined && id === toEventId) return kept;
    kept.push(line);
  }
  if (toEventId !== undefined) throw invalidParams(`Event ${toEventId} not found among the session's persisted events`, { toEventId });
  return kept;
}

/** What forking needs: the store, and a way to make a live source's events durable first. */
export interface ForkHost {
  readonly store: SessionStore;
  /** Writes a live session's buffered events (no-op for a session that is not live). */
  flushSource(sessionId: string): Promise<void>;
}

/**
 * `sessions.fork`: a new session whose persisted history is the source's up to `toEventId` (all of
 * it when omitted), with its own id. The copied `session.start` names the new id; the new session
 * is on disk, not live — `session.resume` opens it. The source is left as it was.
 */
export async function forkSession(host: ForkHost, params: { sessionId: string; toEventId?: string; name?: string }): Promise<{ sessionId: string; name?: string }> {
  const { store } = host;
  const name = params.name?.trim();
  if (name !== undefined && (name.length === 0 || name.length > 100)) throw invalidParams("The fork's name must be 1–100 characters", { name: params.name });
  // A live session's events are written first: a session that has none on disk yet cannot be forked.
  await host.flushSource(params.sessionId);
  if (!(await store.exists(params.sessionId))) {
    throw new TandemError(ErrorCodes.SessionNotFound, `Session ${params.sessionId} not found or has no persisted events to fork`, { sessionId: params.sessionId });
  }
  const lines = historyBefore(await readLog(store, params.sessionId), params.toEventId);
  const sessionId = randomUUID();
  const forked = lines.map((line) => renameStart(line, sessionId));
  const source = await store.readWorkspace(params.sessionId);
  const now = new Date().toISOString();
  const firstPrompt = firstPromptOf(forked);
  await store.createSessionDir(sessionId);
  await store.writeEvents(sessionId, forked);
  await store.writeWorkspace({
    id: sessionId,
    cwd: source?.cwd ?? "",
    summary_count: 0,
    created_at: now,
    updated_at: now,
    ...(firstPrompt !== undefined ? { summary: firstPrompt } : {}),
    ...(source?.model !== undefined ? { model: source.model } : {}),
    ...(name !== undefined ? { name } : {}),
  });
  return name !== undefined ? { sessionId, name } : { sessionId };
}

/** The whole persisted log of a session as text, one event per line. */
async function readLog(store: SessionStore, sessionId: string): Promise<string> {
  const lines: string[] = [];
  await store.openEventLog(sessionId).scan(0, (line) => {
    lines.push(line);
  });
  return lines.join("\n");
}

/** A `session.start` line with the new session's id; other lines unchanged. */
function renameStart(line: string, sessionId: string): string {
  if (!line.startsWith('{"type":"session.start"')) return line;
  const event = JSON.parse(line) as { data: { sessionId?: string } };
  event.data.sessionId = sessionId;
  return JSON.stringify(event);
}

function firstPromptOf(lines: readonly string[]): string | undefined {
  for (const line of lines) {
    if (!line.startsWith('{"type":"user.message"')) continue;
    const content = (JSON.parse(line) as { data: { content?: unknown; source?: unknown } }).data;
    if (typeof content.content === "string" && content.source === undefined) return summaryOf(content.content);
  }
  return undefined;
}
