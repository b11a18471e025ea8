import { createHash } from 'node:crypto';

/**
 * Uplink deduplication across gateways, GS replicas and NS replicas (TTS
 * `pkg/networkserver` UplinkDeduplicator, dataplane-notes §3.1/§4.1): the first copy of an
 * uplink claims it, copies heard by other gateways within the window (and the cooldown after it)
 * are duplicates, and every copy leaves its radio metadata for the first one to merge once the
 * window has passed. The state is shared by every replica (JetStream KV when distributed), never
 * one process's memory, so a frame heard through two GS replicas is processed once.
 */
export interface UplinkDeduplicator {
  /**
   * Records this copy's metadata; true for the copy that claims the uplink, false for a duplicate.
   * `at` (ms): when the copy was received, by the Gateway Server's clock (default now), so that how
   * long the NS took to get to a copy does not decide whether it is a duplicate.
   */
  deduplicate(key: string, metadata: readonly unknown[], timing: DedupTiming, at?: number): Promise<boolean>;
  /**
   * The metadata every copy of the uplink's current claim left, as the replica whose copy claimed
   * it sees it (it is the one to merge them, after the window); other replicas get nothing.
   */
  accumulated(key: string): Promise<unknown[]>;
  close(): Promise<void>;
}

export interface DedupTiming {
  /** Copies within this long of the first are merged into it (TTS: 200 ms; joins 6 s). */
  windowMs: number;
  /** After the window, copies are still duplicates for this long (TTS: 1 s). */
  cooldownMs: number;
}

export const UPLINK_DEDUPLICATOR = Symbol('UPLINK_DEDUPLICATOR');

/** An uplink's identity across its copies: the PHYPayload, frequency and data rate (copies differ only in metadata). */
export function uplinkKey(up: { raw_payload: string; settings?: { frequency?: string; data_rate?: unknown } }): string {
  return createHash('sha256')
    .update(up.raw_payload)
    .update('\0')
    .update(up.settings?.frequency ?? '')
    .update('\0')
    .update(JSON.stringify(up.settings?.data_rate ?? null))
    .digest('hex');
}

interface Claim {
  at: number;
  metadata: unknown[][];
}

/** The embedded mode's deduplicator: one process, so its memory is the shared state. */
export class InMemoryUplinkDeduplicator implements UplinkDeduplicator {
  private readonly claims = new Map<string, Claim>();
  private lastSweep = 0;

  async deduplicate(key: string, metadata: readonly unknown[], timing: DedupTiming, now = Date.now()): Promise<boolean> {
    this.sweep(Date.now(), timing);
    const current = this.claims.get(key);
    if (current && Math.abs(now - current.at) <= timing.windowMs + timing.cooldownMs) {
      current.metadata.push([...metadata]);
      return false;
    }
    this.claims.set(key, { at: now, metadata: [[...metadata]] });
    return true;
  }

  async accumulated(key: string): Promise<unknown[]> {
    return this.claims.get(key)?.metadata.flat() ?? [];
  }

  async close(): Promise<void> {
    this.claims.clear();
  }

  /** Drops claims far past their cooldown, at most once a second. */
  private sweep(now: number, timing: DedupTiming): void {
    if (now - this.lastSweep < 1000) return;
    this.lastSweep = now;
    const horizon = 10 * (timing.windowMs + timing.cooldownMs) + 60_000;
    for (const [key, claim] of this.claims) if (now - claim.at > horizon) this.claims.delete(key);
  }
}
