import { type EntityIdentifiersJson, identifierKey, type Right } from '@lorawan/api';
import type { PreparedEvent } from './prepared-event';

/** The caller's rights per rights entity (`<kind>:<id>`, implications expanded), or every right. */
export type SessionRights = ReadonlyMap<string, ReadonlySet<Right>> | 'universal';

export interface StreamFilterOptions {
  identifiers: readonly EntityIdentifiersJson[];
  /** The resolved names (exact); undefined: every name. */
  names?: readonly string[];
  rights: SessionRights;
}

/**
 * What one stream receives (TTS `pkg/events/basic` subscription + `rightsutil.EventIsVisible`):
 * an event matches when one of its identifiers is a requested one, or, for events defined with
 * `propagateToParent`, when its device's application is requested; its name is selected by the
 * `names` filter; and it is visible: its visibility is empty, or the caller holds one of its
 * rights (implied) on the rights entity of one of its identifiers.
 */
export class StreamFilter {
  /** `identifierKey` of every requested identifier: the keys the session is indexed under. */
  readonly keys: ReadonlySet<string>;
  private readonly names?: ReadonlySet<string>;

  constructor(private readonly o: StreamFilterOptions) {
    this.keys = new Set(o.identifiers.map(identifierKey));
    this.names = o.names ? new Set(o.names) : undefined;
  }

  get identifiers(): readonly EntityIdentifiersJson[] {
    return this.o.identifiers;
  }

  /** The whole match (history: events are checked one by one, without the index). */
  matches(event: PreparedEvent): boolean {
    return this.matchesIdentifiers(event) && this.accepts(event);
  }

  matchesIdentifiers(event: PreparedEvent): boolean {
    return event.lookupKeys.some((key) => this.keys.has(key));
  }

  /** Name and visibility (live: the identifiers matched already, through the index). */
  accepts(event: PreparedEvent): boolean {
    if (this.names && !this.names.has(event.name)) return false;
    return this.isVisible(event);
  }

  isVisible(event: PreparedEvent): boolean {
    const visibility = event.visibility;
    if (!visibility || this.o.rights === 'universal') return true;
    for (const entity of event.rightsEntities) {
      const held = this.o.rights.get(entity);
      if (!held) continue;
      for (const right of visibility) if (held.has(right)) return true;
    }
    return false;
  }
}
