import {
  type EntityIdentifiersJson,
  type EventDefinition,
  type EventJson,
  eventDefinitions,
  eventLookupKeys,
  identifierKey,
  impliedRights,
  normalizeTimestamp,
  type Right,
  rightsEntityOf,
} from '@lorawan/api';
import { decode } from '@lorawan/transport';

const OPEN = Buffer.from('{"event":');
const CLOSE = Buffer.from('}');

/**
 * An event as received, with what every session's match needs computed once: the index keys it is
 * found under, the entities whose rights govern it, its implied visibility, its time in
 * microseconds, and (on first use) the `{event}` stream message shared by every session it goes to.
 */
export class PreparedEvent {
  /** `identifierKey` of each identifier, plus `application:<id>` of each device when the event propagates to its parent. */
  readonly lookupKeys: readonly string[];
  /** `<kind>:<id>` of the rights entity of each identifier (devices: their application). */
  readonly rightsEntities: readonly string[];
  /** The rights of which one shows the event (implications expanded); undefined: shown to every subscriber. */
  readonly visibility: ReadonlySet<Right> | undefined;
  readonly timeMicros: number;
  private payload?: Uint8Array;

  private constructor(
    readonly event: EventJson,
    private readonly raw: Uint8Array | undefined,
    timeMicros: number,
  ) {
    const definition: EventDefinition | undefined = eventDefinitions().get(event.name);
    const entities = new Set<string>();
    for (const ids of event.identifiers) {
      if (!safeKey(ids)) continue;
      const ref = rightsEntityOf(ids);
      entities.add(`${ref.kind}:${ref.id}`);
    }
    this.lookupKeys = [...eventLookupKeys(definition?.propagateToParent ?? false, event.identifiers, safeKey)];
    this.rightsEntities = [...entities];
    this.visibility = impliedVisibility(event.visibility?.rights ?? definition?.visibility ?? ['RIGHT_ALL']);
    this.timeMicros = timeMicros;
  }

  /** Parses a published event; undefined when it is not one (it is then ignored). */
  static fromBytes(raw: Uint8Array): PreparedEvent | undefined {
    let event: unknown;
    try {
      event = decode<unknown>(raw);
    } catch {
      return undefined;
    }
    return PreparedEvent.from(event, raw);
  }

  static from(event: unknown, raw?: Uint8Array): PreparedEvent | undefined {
    if (!isEventShape(event)) return undefined;
    const micros = timestampMicros(event.time);
    if (micros === undefined) return undefined;
    return new PreparedEvent(event, raw, micros);
  }

  get name(): string {
    return this.event.name;
  }

  get uniqueId(): string {
    return this.event.unique_id;
  }

  /** The event's JSON as published (what `fromBytes` takes back), for a history that stores it. */
  get bytes(): Uint8Array {
    return this.raw ?? Buffer.from(JSON.stringify(this.event));
  }

  /** The `StreamMessage` `{event}` as bytes, built once from the bytes as published (no re-encoding). */
  get message(): Uint8Array {
    if (!this.payload) {
      this.payload = Buffer.concat([OPEN, this.bytes, CLOSE]);
    }
    return this.payload;
  }
}

/** `2024-05-01T10:00:00.123456789Z` → microseconds since the epoch; undefined when not RFC 3339 UTC. */
export function timestampMicros(ts: string): number | undefined {
  const normalized = normalizeTimestamp(ts);
  if (typeof normalized !== 'string') return undefined;
  return Date.parse(`${normalized.slice(0, 23)}Z`) * 1000 + Number(normalized.slice(23, 26));
}

function isEventShape(value: unknown): value is EventJson {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<EventJson>;
  return typeof v.name === 'string' && typeof v.time === 'string' && Array.isArray(v.identifiers) && typeof v.unique_id === 'string';
}

const ID_FIELD: Record<string, string> = {
  application_ids: 'application_id',
  gateway_ids: 'gateway_id',
  user_ids: 'user_id',
  organization_ids: 'organization_id',
  client_ids: 'client_id',
};

/** The identifier's index key, or undefined when it is not well-formed (then it matches nothing). */
function safeKey(ids: EntityIdentifiersJson): string | undefined {
  if (typeof ids !== 'object' || ids === null) return undefined;
  // Boundary: the identifiers come from a stored or published event, not validated yet: read field by field.
  const record = ids as unknown as Record<string, Record<string, unknown> | undefined>;
  if ('device_ids' in ids) {
    const device = record['device_ids'];
    const app = device?.['application_ids'] as Record<string, unknown> | undefined;
    if (typeof device?.['device_id'] !== 'string' || typeof app?.['application_id'] !== 'string') return undefined;
    return identifierKey(ids);
  }
  for (const [key, field] of Object.entries(ID_FIELD)) {
    if (key in ids) return typeof record[key]?.[field] === 'string' ? identifierKey(ids) : undefined;
  }
  return undefined;
}

const visibilityCache = new Map<string, ReadonlySet<Right> | undefined>();

function impliedVisibility(rights: readonly Right[]): ReadonlySet<Right> | undefined {
  if (!Array.isArray(rights) || rights.length === 0) return undefined;
  const key = rights.join(',');
  if (visibilityCache.has(key)) return visibilityCache.get(key);
  if (visibilityCache.size > 1000) visibilityCache.clear();
  const implied = impliedRights(rights);
  visibilityCache.set(key, implied);
  return implied;
}
