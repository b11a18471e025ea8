import { Logger } from '@nestjs/common';
import { LogSampler, uplinksShed } from '@lorawan/observability';
import { TokenBucket } from './token-bucket';

/** What a component sheds: LoRaWAN frames, by kind. */
export type ShedKind = 'join_request' | 'data_uplink';

/** The kind as error messages name it (`join request`, `data uplink`). */
export function shedKindLabel(kind: ShedKind): string {
  return kind.replace('_', ' ');
}

/** Events of shed work a component publishes at most, a second (the rest is counted only). */
export const SHED_EVENTS_PER_SEC = 10;

/**
 * What a component's admission refused: every shed frame is counted
 * (`lorawan_uplinks_shed_total{component, kind, reason}`); its event is published only while the
 * component has published fewer than `SHED_EVENTS_PER_SEC` such events in the last second, and
 * a warning is logged once per reason every 10 s with how many were shed since: under overload,
 * shedding costs a counter, not an event and a log line per frame.
 */
export class ShedReporter {
  private readonly events: TokenBucket;
  private readonly logs = new LogSampler();
  private readonly logger = new Logger('Admission');

  constructor(
    private readonly component: 'gs' | 'ns' | 'as',
    eventsPerSec = SHED_EVENTS_PER_SEC,
  ) {
    this.events = new TokenBucket(eventsPerSec);
  }

  /** Counts one shed frame; true when its event may be published. */
  shed(kind: ShedKind, reason: string): boolean {
    uplinksShed.inc({ component: this.component, kind, reason });
    const held = this.logs.sample(`${kind}:${reason}`);
    if (held !== undefined) this.logger.warn({ kind, reason, shed_before: held }, 'shedding load: frames refused before any work');
    return this.mayPublish();
  }

  /** True when one more event of shed work may be published now (for work another component shed and counted). */
  mayPublish(): boolean {
    return this.events.take();
  }
}
