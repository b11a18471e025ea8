import { Inject, Injectable } from '@nestjs/common';
import type { UplinkMessage } from '@lorawan/api';
import { ErrDeduplication } from '../errors';
import { type MergedUplink, mergeCopies, type UplinkCopy } from './merged-uplink';
import { type DedupTiming, UPLINK_DEDUPLICATOR, type UplinkDeduplicator, uplinkKey } from './uplink-deduplicator';

/** One received copy of an uplink, as the deduplicator knows it. */
export interface ClaimedCopy {
  /** Whether this copy claimed the uplink (the others only leave their metadata). */
  first: boolean;
  key: string;
  copy: UplinkCopy;
  /** When the NS received it (the merge window starts here). */
  received_ms: number;
}

/**
 * The copies of one uplink heard by several gateways, for joins and data alike: each copy claims
 * the uplink or joins the claim (the shared deduplication state being away makes the NS
 * unavailable), and the claimer merges every copy's metadata once the window has passed.
 */
@Injectable()
export class UplinkCopies {
  constructor(@Inject(UPLINK_DEDUPLICATOR) private readonly dedup: UplinkDeduplicator) {}

  async claim(up: UplinkMessage, timing: DedupTiming): Promise<ClaimedCopy> {
    const received_ms = Date.now();
    const key = uplinkKey({ raw_payload: up.raw_payload ?? '', settings: up.settings as { frequency?: string; data_rate?: unknown } | undefined });
    const copy: UplinkCopy = { rx_metadata: (up.rx_metadata ?? []) as Array<Record<string, unknown>>, correlation_ids: up.correlation_ids ?? [] };
    try {
      return { first: await this.dedup.deduplicate(key, [copy], timing, gatewayServerTime(up, received_ms)), key, copy, received_ms };
    } catch (err) {
      throw ErrDeduplication.with({ reason: (err as Error).message });
    }
  }

  /** Every copy's metadata, after the window (without the others' the uplink still goes on, with this copy's). */
  async merged(claimed: ClaimedCopy, timing: DedupTiming): Promise<MergedUplink> {
    const wait = claimed.received_ms + timing.windowMs - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    return mergeCopies(claimed.copy, await this.dedup.accumulated(claimed.key).catch(() => []));
  }
}

/**
 * When the GS received the copy (its `received_at`), for the deduplication: copies of one uplink
 * reach the GS within milliseconds of each other, however long they then wait for the NS. Now when
 * it has none, or one from the future (a GS clock ahead of this NS's by more than a window).
 */
export function gatewayServerTime(up: UplinkMessage, now: number): number {
  const at = up.received_at ? Date.parse(up.received_at) : NaN;
  return Number.isFinite(at) && at <= now + 200 ? at : now;
}
