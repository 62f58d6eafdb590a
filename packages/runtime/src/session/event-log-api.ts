import type { SessionEvent } from "@tandem/protocol";
import { eventLogPageLimits } from "@tandem/protocol/methods/session-api";
import { invalidParams } from "../errors.js";
import { decodeCursor, encodeCursor, endOfLog, type LogPosition } from "../store/event-log-pages.js";
import type { SessionEmitter } from "./emitter.js";

/** The `session.eventLog.read` params Tandem reads. */
export interface EventLogReadParams {
  cursor?: string;
  max?: number;
  waitMs?: number;
  types?: "*" | string[];
  agentScope?: "primary" | "all";
  agentIds?: string[];
  direction?: "forward" | "backward";
  includeEphemeral?: boolean;
}

/**
 * `session.eventLog.read` / `tail` over a session's event log: pages are read from the store by
 * cursors naming opaque log positions (byte offsets in the file store, sequence numbers in PostgreSQL), so a session of 100,000 events is paged without holding it in memory,
 * and cursors stay valid across a runtime restart. Ephemeral events are never stored, so only
 * those emitted while a forward read waits at the tail (`waitMs`) are delivered.
 *
 * Returns the result as JSON text (the stored event lines are spliced in, not re-serialised).
 */
export async function readEventLog(emitter: SessionEmitter, params: EventLogReadParams): Promise<string> {
  const position = startPosition(params);
  const max = params.max ?? eventLogPageLimits.defaultMax;
  const accept = eventFilter(params);
  // Without a filter no line needs parsing.
  const acceptLine = accept ? (line: string) => accept(JSON.parse(line) as SessionEvent) : () => true;
  await emitter.log.flush();
  let page = await emitter.log.readPage(position, max, acceptLine);
  let lines = page.lines;
  const waitMs = Math.min(params.waitMs ?? 0, eventLogPageLimits.maxWaitMs);
  if (position.direction === "forward" && lines.length === 0 && !page.hasMore && waitMs > 0) {
    const seen = await nextEvents(emitter, waitMs);
    await emitter.log.flush();
    page = await emitter.log.readPage(page.next, max, acceptLine);
    const acceptEvent = accept ?? (() => true);
    lines = interleave(page.lines, seen, acceptEvent, (event) => params.includeEphemeral !== false && acceptEvent(event));
  }
  return `{"events":[${lines.join(",")}],"cursor":${JSON.stringify(encodeCursor(page.next))},"hasMore":${page.hasMore},"cursorStatus":"${page.expired ? "expired" : "ok"}"}`;
}

/** `session.eventLog.tail`: a cursor past the last persisted event. */
export async function eventLogTail(emitter: SessionEmitter): Promise<{ cursor: string }> {
  await emitter.log.flush();
  return { cursor: encodeCursor(await emitter.log.tail()) };
}

function startPosition(params: EventLogReadParams): LogPosition {
  if (params.cursor === undefined || params.cursor === "") {
    return params.direction === "backward" ? { offset: endOfLog, direction: "backward" } : { offset: 0, direction: "forward" };
  }
  const position = decodeCursor(params.cursor);
  if (!position) throw invalidParams(`Invalid event log cursor ${JSON.stringify(params.cursor.slice(0, 40))}: pass back a cursor a read or tail returned`, { cursor: params.cursor.slice(0, 40) });
  return position;
}

/** The read's type and agent filters as one predicate, or undefined when it has none. */
function eventFilter(params: EventLogReadParams): ((event: SessionEvent) => boolean) | undefined {
  if ((params.types === undefined || params.types === "*") && !params.agentIds && params.agentScope !== "primary") return undefined;
  const types = params.types === undefined || params.types === "*" ? undefined : new Set(params.types);
  const agentIds = params.agentIds ? new Set(params.agentIds) : undefined;
  return (event) => {
    if (types && !types.has(event.type)) return false;
    const owner = ownerOf(event);
    if (agentIds) return owner !== undefined && agentIds.has(owner);
    if (params.agentScope === "primary") return owner === undefined || event.type.startsWith("subagent.");
    return true;
  };
}

/** The sub-agent an event belongs to (its `agentId` or `parentToolCallId`), if any. */
function ownerOf(event: SessionEvent): string | undefined {
  const envelope = event as { agentId?: unknown; data?: { agentId?: unknown; parentToolCallId?: unknown } };
  for (const candidate of [envelope.agentId, envelope.data?.agentId, envelope.data?.parentToolCallId]) {
    if (typeof candidate === "string") return candidate;
  }
  return undefined;
}

/** Waits up to `waitMs` for the session's next events; returns those emitted until the burst ends. */
function nextEvents(emitter: SessionEmitter, waitMs: number): Promise<SessionEvent[]> {
  return new Promise((resolve) => {
    const seen: SessionEvent[] = [];
    let settled = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      stop();
      resolve(seen);
    };
    const timer = setTimeout(finish, waitMs);
    const stop = emitter.addListener((event) => {
      seen.push(event);
      // Events emitted in the same burst (one step of the loop) come in this page too.
      if (seen.length === 1) setTimeout(finish, 20);
    });
  });
}

/**
 * The persisted lines of a page with the ephemeral events seen while waiting put back in emission
 * order. Persisted events emitted before the wait began come first; ephemeral events after the
 * page's last persisted event are kept while no later persisted event was left out of the page.
 */
function interleave(lines: string[], seen: SessionEvent[], accept: (event: SessionEvent) => boolean, acceptEphemeral: (event: SessionEvent) => boolean): string[] {
  const byId = new Map<string, string>();
  for (const line of lines) byId.set((JSON.parse(line) as { id: string }).id, line);
  const seenIds = new Set(seen.map((event) => event.id));
  const result = lines.filter((line) => !seenIds.has((JSON.parse(line) as { id: string }).id));
  for (const event of seen) {
    if (event.ephemeral) {
      if (acceptEphemeral(event)) result.push(JSON.stringify(event));
      continue;
    }
    const line = byId.get(event.id);
    if (line === undefined) {
      if (!accept(event)) continue;
      // Past `max`: a later read returns it, and what followed it.
      break;
    }
    result.push(line);
  }
  return result;
}
