/** Reads two fields of an event's JSON text without parsing all of it (the hot path of every append). */

/** The envelope's tail as the runtime writes it: `,"id":…,"timestamp":…,"parentId":…(,"ephemeral":true)}`. */
const envelopeTail = /,"id":"([^"\\]*)","timestamp":"[^"\\]*","parentId":(?:null|"[^"\\]*")(?:,"ephemeral":true)?\}$/;
const leadingType = /^\{"type":"([^"\\]*)"/;

/**
 * The `id` and `type` of one event's JSON text: read from where the runtime's own serialisation
 * puts them, else (another producer's key order) by parsing the line.
 *
 * @example
 * eventFields('{"type":"session.idle","data":{},"id":"e1","timestamp":"…","parentId":null}'); // { id: "e1", type: "session.idle" }
 */
export function eventFields(line: string): { id: string; type: string } {
  const id = envelopeTail.exec(line)?.[1];
  const type = leadingType.exec(line)?.[1];
  if (id !== undefined && type !== undefined) return { id, type };
  const parsed = JSON.parse(line) as { id?: unknown; type?: unknown };
  return { id: String(parsed.id ?? ""), type: String(parsed.type ?? "") };
}

/** The ids and types of a batch, as the two arrays `tandem_append_events` takes. */
export function batchFields(lines: readonly string[]): { ids: string[]; types: string[] } {
  const ids: string[] = [];
  const types: string[] = [];
  for (const line of lines) {
    const fields = eventFields(line);
    ids.push(fields.id);
    types.push(fields.type);
  }
  return { ids, types };
}
