import { connect, type KV, type NatsConnection, StorageType } from 'nats';
import { newUlid } from '@lorawan/api';
import type { DedupTiming, UplinkDeduplicator } from './uplink-deduplicator';

/**
 * The distributed deduplicator, on a JetStream key-value bucket every NS replica shares:
 * `<key>.claim` holds the current claim (its ID and time); the first copy creates it, and a copy
 * past the claim's window and cooldown replaces it with a compare-and-set on its revision, so
 * among racing replicas exactly one wins. Every copy puts its metadata under
 * `<key>.<claim ID>.<ULID>`. Entries expire with the bucket's TTL, far beyond any window.
 */
export interface JetStreamDedupOptions {
  natsUrl: string;
  /** The bucket (one per NATS_SUBJECT_PREFIX, as the stack's other streams). */
  bucket: string;
  /** How long entries are kept (the bucket's max age). */
  ttlMs?: number;
}

interface Claim {
  id: string;
  at: number;
}

const ENTRY_TTL_MS = 5 * 60_000;
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
    const { first, claim } = await this.claim(key, timing);
    await this.kv.put(`${key}.${claim.id}.${newUlid()}`, codec.encode(metadata));
    return first;
  }

  async accumulated(key: string): Promise<unknown[]> {
    const entry = await this.kv.get(`${key}.claim`);
    if (!entry || entry.operation !== 'PUT') return [];
    const { id } = codec.decode<Claim>(entry.value);
    const keys: string[] = [];
    for await (const k of await this.kv.keys(`${key}.${id}.*`)) keys.push(k);
    const out: unknown[] = [];
    for (const k of keys.sort()) {
      const e = await this.kv.get(k);
      if (e && e.operation === 'PUT') out.push(...codec.decode<unknown[]>(e.value));
    }
    return out;
  }

  async close(): Promise<void> {
    if (!this.nc.isClosed()) await this.nc.close();
  }

  /** Claims the uplink, or joins the live claim (a few rounds when the key changes under us). */
  private async claim(key: string, timing: DedupTiming): Promise<{ first: boolean; claim: Claim }> {
    const claimKey = `${key}.claim`;
    for (let round = 0; round < 5; round++) {
      const mine: Claim = { id: newUlid(), at: Date.now() };
      try {
        await this.kv.create(claimKey, codec.encode(mine));
        return { first: true, claim: mine };
      } catch {
        // Someone holds it (or held it): is the claim still live?
      }
      const entry = await this.kv.get(claimKey);
      if (!entry || entry.operation !== 'PUT') continue;
      const current = codec.decode<Claim>(entry.value);
      if (mine.at - current.at <= timing.windowMs + timing.cooldownMs) return { first: false, claim: current };
      try {
        await this.kv.update(claimKey, codec.encode(mine), entry.revision);
        return { first: true, claim: mine };
      } catch {
        // Another replica renewed it first: the next round joins its claim.
      }
    }
    throw new Error(`could not claim uplink ${key}: the claim kept changing`);
  }
}
