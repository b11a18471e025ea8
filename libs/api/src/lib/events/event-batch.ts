/**
 * A message on an event subject holds one event's JSON or several, each on a line of its own
 * (events' JSON has no line break: `JSON.stringify` escapes them in strings). One event is a batch
 * of one, so a single-event message of an older publisher reads the same way.
 */
const NEWLINE = 0x0a;

/** What separates the events of a batch. */
export const EVENT_BATCH_SEPARATOR = '\n';

/**
 * A batch's bounds: the bytes of its events' JSON and their number. Far below NATS's default
 * `max_payload` (1 MiB), so that a consumer's work per message stays small and a JetStream read
 * fetches a bounded amount; an event larger than the byte bound goes in a message of its own.
 */
export const EVENT_BATCH_MAX_BYTES = 64 * 1024;
export const EVENT_BATCH_MAX_EVENTS = 128;

/**
 * The events' JSON in a message on an event subject, in order, as views of `payload` (no copy).
 * Empty lines are skipped; what a line holds is for the caller to parse.
 */
export function splitEventBatch(payload: Uint8Array): Uint8Array[] {
  let end = payload.indexOf(NEWLINE);
  if (end < 0) return payload.length > 0 ? [payload] : [];
  const events: Uint8Array[] = [];
  let start = 0;
  while (end >= 0) {
    if (end > start) events.push(payload.subarray(start, end));
    start = end + 1;
    end = payload.indexOf(NEWLINE, start);
  }
  if (payload.length > start) events.push(payload.subarray(start));
  return events;
}

/**
 * The subject of a batch whose events' subjects (`eventSubject`) are `first` and `other`: that
 * subject when they are the same, else `events.<kind>._` (`_` is no entity ID) when they are of one
 * kind, else undefined (they go in separate messages). So a message's subject always names the
 * kind of its events' rights entities, and `events.<kind>.*` (what the GS watches for gateways)
 * gets all of them; one entity's subject alone no longer gets every event of that entity.
 */
export function eventBatchSubject(first: string, other: string): string | undefined {
  if (first === other) return first;
  const kind = first.slice(0, first.lastIndexOf('.') + 1);
  return kind.length > 0 && other.startsWith(kind) && other.indexOf('.', kind.length) < 0 ? `${kind}_` : undefined;
}
