import { connect, type KV, type NatsConnection, StorageType } from 'nats';
import type { DedupTiming, UplinkDeduplicator } from './uplink-deduplicator';

/**
 * The distributed deduplicator, on a JetStream key-value bucket every NS replica shares: the
 * uplink's key holds its current claim (when it was made, and the metadata of every copy so far).
 * The first copy creates it; a later copy appends its metadata with a compare-and-set on the
 * entry's revision (retried when another copy got there first), or, past the claim's window and
 * cooldown, replaces the claim the same way, so among racing replicas exactly one wins. Entries
 * expire with the bucket's TTL, far beyond any window. One read gives the merged metadata.
 */
export interface JetStreamDedupOptions {
  natsUrl: string;
  /** The bucket (one per NATS_SUBJECT_PREFIX, as the stack's other streams). */
  bucket: string;
  /** How long entries are kept (the bucket's max age). */
  ttlMs?: number;
}

interface Claim {
  at: number;
  metadata: unknown[][];
}

const ENTRY_TTL_MS = 5 * 60_000;
/** Attempts to record one copy while other copies race for the same entry. */
const MAX_ROUNDS = 50;
const codec = { encode: (v: unknown) => Buffer.from(JSON.stringify(v)), decode: <T>(b: Uint8Array) => JSON.parse(Buffer.from(b).toString()) as T };

export function dedupBucketName(subjectPrefix?: string): string {
  return subjectPrefix ? `NS_UPLINKS_${subjectPrefix}` : 'NS_UPLINKS';
}

export class JetStreamUplinkDeduplicator implements UplinkDeduplicator {
  private constructor(
    private readonly nc: NatsConnection,
    private readonly kv: KV,
  ) {}

  static async open(o: JetStreamDedupOptions): Promise<JetStreamUplinkDeduplicator> {
    const nc = await connect({ servers: o.natsUrl, name: 'ns-uplink-dedup', noAsyncTraces: true });
    try {
      const kv = await nc.jetstream().views.kv(o.bucket, { history: 1, ttl: o.ttlMs ?? ENTRY_TTL_MS, storage: StorageType.Memory });
      return new JetStreamUplinkDeduplicator(nc, kv);
    } catch (err) {
      await nc.close();
      throw err;
    }
  }

  async deduplicate(key: string, metadata: readonly unknown[], timing: DedupTiming): Promise<boolean> {
    const copy = [...metadata];
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const now = Date.now();
      try {
        await this.kv.create(key, codec.encode({ at: now, metadata: [copy] } satisfies Claim));
        return true;
      } catch {
        // Someone holds it (or held it): join the live claim, or renew a stale one.
      }
      const entry = await this.kv.get(key);
      if (!entry || entry.operation !== 'PUT') continue;
      const current = codec.decode<Claim>(entry.value);
      const live = now - current.at <= timing.windowMs + timing.cooldownMs;
      const next: Claim = live ? { at: current.at, metadata: [...current.metadata, copy] } : { at: now, metadata: [copy] };
      try {
        await this.kv.update(key, codec.encode(next), entry.revision);
        return !live;
      } catch {
        // Another copy changed it first: read it again (after a moment, so racing copies spread out).
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
      }
    }
    throw new Error(`could not record a copy of uplink ${key}: the entry kept changing`);
  }

  async accumulated(key: string): Promise<unknown[]> {
    const entry = await this.kv.get(key);
    if (!entry || entry.operation !== 'PUT') return [];
    return codec.decode<Claim>(entry.value).metadata.flat();
  }

  async close(): Promise<void> {
    if (!this.nc.isClosed()) await this.nc.close();
  }
}
