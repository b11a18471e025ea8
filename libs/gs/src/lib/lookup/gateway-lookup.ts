import type { GetGatewayForEUIResponse } from '@lorawan/api';
import { gsGatewayLookups } from '@lorawan/observability';
import { LruCache } from './lru-cache';
import { TokenBucket } from '@lorawan/component';

/**
 * `found`: the IS's gateway (its answer to `GsIs.GetGatewayForEUI`); `unknown`: the IS does not know the EUI (now, or lately);
 * `throttled`: not asked, the lookup rate is spent. A lookup that failed (IS away) rejects.
 */
export type GatewayLookupResult = { status: 'found'; gateway: GetGatewayForEUIResponse } | { status: 'unknown' } | { status: 'throttled' };

export interface GatewayLookupOptions {
  /** EUIs remembered as unknown at most (least recently seen forgotten first); 0: none. */
  unknownCacheSize: number;
  /** How long an EUI is remembered as unknown. */
  unknownCacheTtlMs: number;
  /** IS lookups per second at most (one second's worth at once); 0: no limit. */
  lookupsPerSec: number;
}

const UNKNOWN: GatewayLookupResult = { status: 'unknown' };
const THROTTLED: GatewayLookupResult = { status: 'throttled' };

/**
 * Gateway EUIs resolved through the Identity Server for every frontend, so that datagrams anyone
 * can send cost the IS a bounded rate of lookups whatever EUIs they carry:
 * - an EUI the IS does not know is remembered as such for `unknownCacheTtlMs`, or until `forget`
 *   (the IS registered a gateway with it): its datagrams cost no lookup;
 * - concurrent lookups of one EUI share one call;
 * - at most `lookupsPerSec` calls a second (a token bucket): beyond, `throttled` without asking,
 *   and the frontend drops the datagram (a gateway refused so is looked up at its next one).
 * Per replica: n Gateway Server replicas ask at most n times the rate. Counted in
 * `lorawan_gs_gateway_lookups_total` by result.
 */
export class GatewayLookup {
  private readonly unknown: LruCache<string, true>;
  private readonly pending = new Map<string, Promise<GatewayLookupResult>>();
  private readonly bucket?: TokenBucket;
  /** Bumped by every `forget`: an answer asked for before one is not remembered. */
  private generation = 0;

  constructor(
    options: GatewayLookupOptions,
    private readonly ask: (eui: string) => Promise<GetGatewayForEUIResponse | undefined>,
  ) {
    this.unknown = new LruCache(options.unknownCacheSize, options.unknownCacheTtlMs);
    if (options.lookupsPerSec > 0) this.bucket = new TokenBucket(options.lookupsPerSec);
  }

  /** The gateway of an EUI (upper-case hex). */
  lookup(eui: string): Promise<GatewayLookupResult> {
    if (this.unknown.get(eui)) return Promise.resolve(UNKNOWN);
    const pending = this.pending.get(eui);
    if (pending) return pending;
    if (this.bucket && !this.bucket.take()) {
      gsGatewayLookups.inc({ result: 'throttled' });
      return Promise.resolve(THROTTLED);
    }
    const call = this.call(eui).finally(() => this.pending.delete(eui));
    this.pending.set(eui, call);
    return call;
  }

  /** The IS now knows a gateway with this EUI: it is looked up again at its next datagram. */
  forget(eui: string): void {
    this.unknown.delete(eui.toUpperCase());
    this.generation++;
  }

  private async call(eui: string): Promise<GatewayLookupResult> {
    const generation = this.generation;
    let gateway: GetGatewayForEUIResponse | undefined;
    try {
      gateway = await this.ask(eui);
    } catch (err) {
      gsGatewayLookups.inc({ result: 'failed' });
      throw err;
    }
    if (gateway) {
      gsGatewayLookups.inc({ result: 'found' });
      return { status: 'found', gateway };
    }
    gsGatewayLookups.inc({ result: 'not_found' });
    if (generation === this.generation) this.unknown.set(eui, true);
    return UNKNOWN;
  }
}
