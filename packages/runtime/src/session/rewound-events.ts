import type { PersistedEventsPort } from "../ports/events.js";

/** The marker a rewind or truncation leaves in the events (`session.snapshot_rewind`). */
const rewindMarker = Buffer.from('"type":"session.snapshot_rewind"');

type EventLine = { id?: unknown; type?: unknown; data?: { upToEventId?: unknown } };

/**
 * The `session.getMessages` answer without the events a rewind or truncation removed: each
 * `session.snapshot_rewind` marker drops the events from its `upToEventId` up to itself (the
 * marker stays, as the record of what happened). The events file itself stays append-only, so a
 * resume can rebuild the conversation from the markers. A history that was never rewound is
 * answered as it is, byte for byte (the common case is not parsed).
 *
 * @example
 * const bytes = withoutRewoundEvents(await emitter.persistedArrayBytes(`{"events":[`, "]}"));
 */
export function withoutRewoundEvents(answer: Buffer): Buffer {
  if (!answer.includes(rewindMarker)) return answer;
  const parsed = JSON.parse(answer.toString("utf8")) as { events: EventLine[] };
  const kept: EventLine[] = [];
  for (const event of parsed.events) {
    if (event.type === "session.snapshot_rewind" && typeof event.data?.upToEventId === "string") {
      const from = kept.findLastIndex((candidate) => candidate.id === event.data?.upToEventId);
      if (from !== -1) kept.splice(from);
    }
    kept.push(event);
  }
  return Buffer.from(JSON.stringify({ ...parsed, events: kept }), "utf8");
}

/**
 * The `session.getMessages` result as JSON (UTF-8 bytes): the persisted events, never
 * re-serialised unless a rewind removed some (see {@link withoutRewoundEvents}).
 *
 * @example
 * const bytes = await persistedEventsJson(session.emitter);
 */
export async function persistedEventsJson(emitter: Pick<PersistedEventsPort, "persistedArrayBytes">): Promise<Buffer> {
  return withoutRewoundEvents(await emitter.persistedArrayBytes(`{"events":[`, "]}"));
}
