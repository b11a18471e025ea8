import { headers, type KV, type MsgHdrs, type NatsConnection, StorageType, type Subscription } from 'nats';
import { newUlid } from '@lorawan/api';
import { connectNats, JS_STREAM_NOT_FOUND, type NatsSecurity, natsSecurityOptions } from '@lorawan/transport';
import type { DedupTiming, UplinkDeduplicator } from './uplink-deduplicator';

/**
 * The distributed deduplicator. The claim lives in a JetStream key-value bucket every NS replica
 * shares: the uplink's key holds when it was claimed and by which replica. The first copy creates
 * the entry (a create succeeds once, so among racing replicas exactly one wins); past the claim's
 * window and cooldown, a copy renews it with a compare-and-set on its revision. A duplicate reads
 * the claim and sends its metadata straight to the claiming replica's inbox (core NATS), where
 * the claimer collects it for the merge. The first copy claims with one create; a later one
 * fails it, reads the claim and sends a message. Entries expire with the bucket's
 * TTL, far beyond any window. The create is the KV's own (a JetStream publish to the key's
 * subject that expects no earlier entry), sent with this replica's reply subscription rather
 * than through nats.js's KV and request machinery, which cost about a third more NS CPU per
 * uplink than the rest of the claim (an Error and its stack trace built per answered request).
 */
export interface JetStreamDedupOptions {
  natsUrl: string;
  /** TLS and credentials (NATS_TLS_*, NATS_USER). */
  security?: NatsSecurity;
  /** The bucket (one per NATS_SUBJECT_PREFIX, as the stack's other streams). */
  bucket: string;
  /** NATS_SUBJECT_PREFIX: the replicas' inboxes are below it. */
  subjectPrefix?: string;
  /** How long entries are kept (the bucket's max age). */
  ttlMs?: number;
}

interface Claim {
  at: number;
  /** The inbox of the replica that claimed it. */
  owner: string;
}

interface Collected {
  metadata: unknown[];
  timer: NodeJS.Timeout;
}

const ENTRY_TTL_MS = 5 * 60_000;
/**
 * The bucket's size bound (its stream's `max_bytes`, in NATS memory): a claim is ~150 bytes, so this
 * holds the claims of ~5000 uplinks/s over the TTL; beyond, new claims are refused (the uplink with them).
 */
export const DEDUP_BUCKET_MAX_BYTES = 256 * 1024 * 1024;
/** Rounds of create / read when the entry changes between them (a claim renewed, or deleted). */
const MAX_ROUNDS = 10;
/** How long metadata that arrived ahead of its claim is kept for it. */
const EARLY_TTL_MS = 5000;
const codec = { encode: (v: unknown) => Buffer.from(JSON.stringify(v)), decode: <T>(b: Uint8Array) => JSON.parse(Buffer.from(b).toString()) as T };
/** How long a create waits for JetStream's answer (nats.js's default for a JetStream publish). */
const CREATE_TIMEOUT_MS = 5000;

export function dedupBucketName(subjectPrefix?: string): string {
  return subjectPrefix ? `NS_UPLINKS_${subjectPrefix}` : 'NS_UPLINKS';
}

export class JetStreamUplinkDeduplicator implements UplinkDeduplicator {
  /** The metadata of the uplinks this replica claimed, kept until their window and cooldown are over. */
  private readonly collected = new Map<string, Collected>();
  /**
   * Metadata that reached this replica before its claim was recorded here: a duplicate can read
   * the claim from KV and send its metadata while the claimer's create is still on its way back.
   * Taken over by the claim, or forgotten after a few seconds.
   */
  private readonly early = new Map<string, { metadata: unknown[]; at: number }>();
  private readonly subscription: Subscription;
  /** JetStream's answers to this replica's creates, by the token that ends their reply subject. */
  private readonly acks = new Map<string, (ok: boolean) => void>();
  private readonly ackSubscription: Subscription;
  private nextAck = 0;
  /** A create expects the key to have no entry yet (the header of nats.js's `kv.create`). */
  private readonly firstOnly: MsgHdrs;

  private reopening?: Promise<KV>;

  private constructor(
    private readonly nc: NatsConnection,
    private kv: KV,
    private readonly inbox: string,
    private readonly bucket: string,
    /** Opens (creates if missing) the bucket: again after a NATS restart, which loses a memory-stored one. */
    private readonly openBucket: () => Promise<KV>,
  ) {
    void this.reopenOnReconnect();
    this.subscription = nc.subscribe(inbox, {
      callback: (err, msg) => {
        if (err) return;
        try {
          const { key, metadata } = codec.decode<{ key: string; metadata: unknown[] }>(msg.data);
          const held = this.collected.get(key);
          if (held) held.metadata.push(...metadata);
          else this.keepEarly(key, metadata);
        } catch {
          // Not a copy's metadata: nothing to merge.
        }
      },
    });
    this.ackSubscription = nc.subscribe(`${inbox}.ack.*`, {
      callback: (err, msg) => {
        if (err) return;
        const settle = this.acks.get(msg.subject.slice(msg.subject.lastIndexOf('.') + 1));
        settle?.(isStored(msg.data, msg.headers?.code));
      },
    });
    this.firstOnly = headers();
    this.firstOnly.set('Nats-Expected-Last-Subject-Sequence', '0');
  }

  static async open(o: JetStreamDedupOptions): Promise<JetStreamUplinkDeduplicator> {
    const nc = await connectNats({ servers: o.natsUrl, name: 'ns-uplink-dedup', noAsyncTraces: true, ...natsSecurityOptions(o.security) });
    try {
      const openBucket = () =>
        nc.jetstream().views.kv(o.bucket, { history: 1, ttl: o.ttlMs ?? ENTRY_TTL_MS, storage: StorageType.Memory, max_bytes: DEDUP_BUCKET_MAX_BYTES });
      return new JetStreamUplinkDeduplicator(nc, await openBucket(), `${o.subjectPrefix ?? ''}ns.dedup.${newUlid()}`, o.bucket, openBucket);
    } catch (err) {
      await nc.close();
      throw err;
    }
  }

  async deduplicate(key: string, metadata: readonly unknown[], timing: DedupTiming, now = Date.now()): Promise<boolean> {
    const claim = codec.encode({ at: now, owner: this.inbox } satisfies Claim);
    for (let round = 0; round < MAX_ROUNDS; round++) {
      // Most uplinks reach one NS in one call (the GS merges its gateways' copies): try the claim first.
      if (await this.create(key, claim)) {
        this.hold(key, [...metadata], timing);
        return true;
      }
      // Claimed already (or just now by another copy), or no answer: read the claim.
      let entry: Awaited<ReturnType<KV['get']>>;
      try {
        entry = await this.kv.get(key);
      } catch (err) {
        // The bucket is gone (memory storage does not outlive a NATS restart; its operations then time out): made again, the round repeated.
        if (round === MAX_ROUNDS - 1 || !(await this.bucketMissing())) throw err;
        this.kv = await this.reopen();
        continue;
      }
      const current = entry?.operation === 'PUT' ? codec.decode<Claim>(entry.value) : undefined;
      if (current && Math.abs(now - current.at) <= timing.windowMs + timing.cooldownMs) {
        if (current.owner !== this.inbox) this.nc.publish(current.owner, codec.encode({ key, metadata }));
        else if (this.collected.has(key)) this.collected.get(key)?.metadata.push(...metadata);
        else this.keepEarly(key, [...metadata]);
        return false;
      }
      if (!entry) continue; // gone since the create failed: create again
      try {
        // A claim past its window and cooldown (or deleted): replace exactly that revision.
        await this.kv.update(key, claim, entry.revision);
      } catch {
        continue; // another copy renewed it in between: read its claim
      }
      this.hold(key, [...metadata], timing);
      return true;
    }
    throw new Error(`could not record a copy of uplink ${key}: the claim kept changing`);
  }

  /**
   * The KV's create of `key`: true once JetStream stored it, false when the key has an entry
   * already, or JetStream refused or did not answer (the claim is then read, as after a lost race).
   * (A deleted entry's marker also refuses it; nothing here deletes, and the read that follows
   * renews such a claim.)
   */
  private create(key: string, claim: Uint8Array): Promise<boolean> {
    const token = (this.nextAck++).toString(36);
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => settle(false), CREATE_TIMEOUT_MS);
      const settle = (ok: boolean) => {
        clearTimeout(timer);
        this.acks.delete(token);
        resolve(ok);
      };
      this.acks.set(token, settle);
      try {
        // The key's subject in the bucket (`$KV.<bucket>.<key>`: no JetStream domain or API prefix here).
        this.nc.publish(`$KV.${this.bucket}.${key}`, claim, { reply: `${this.inbox}.ack.${token}`, headers: this.firstOnly });
      } catch {
        settle(false);
      }
    });
  }

  async accumulated(key: string): Promise<unknown[]> {
    return [...(this.collected.get(key)?.metadata ?? [])];
  }

  /** After every reconnect (the server may have restarted, without the memory-stored bucket): the bucket made again if it is gone. */
  private async reopenOnReconnect(): Promise<void> {
    for await (const status of this.nc.status()) {
      if (status.type !== 'reconnect') continue;
      try {
        this.kv = await this.reopen();
      } catch {
        // JetStream not ready yet: the next operation that fails checks again.
      }
    }
  }

  /** Whether the bucket's stream is gone (the JetStream API answers at once, where the bucket's own subjects time out). */
  private async bucketMissing(): Promise<boolean> {
    try {
      await (await this.nc.jetstreamManager()).streams.info(`KV_${this.bucket}`);
      return false;
    } catch (err) {
      return (err as { api_error?: { err_code?: number } }).api_error?.err_code === JS_STREAM_NOT_FOUND;
    }
  }

  /** The bucket opened again, once for all the uplinks that found it gone at the same time. */
  private reopen(): Promise<KV> {
    this.reopening ??= this.openBucket().finally(() => (this.reopening = undefined));
    return this.reopening;
  }

  async close(): Promise<void> {
    for (const { timer } of this.collected.values()) clearTimeout(timer);
    this.collected.clear();
    this.early.clear();
    for (const settle of [...this.acks.values()]) settle(false);
    if (!this.nc.isClosed()) {
      this.subscription.unsubscribe();
      this.ackSubscription.unsubscribe();
      await this.nc.close();
    }
  }

  private hold(key: string, metadata: unknown[], timing: DedupTiming): void {
    clearTimeout(this.collected.get(key)?.timer);
    const timer = setTimeout(() => this.collected.delete(key), timing.windowMs + timing.cooldownMs + 1000);
    timer.unref();
    const early = this.early.get(key);
    this.early.delete(key);
    this.collected.set(key, { metadata: [...metadata, ...(early?.metadata ?? [])], timer });
  }

  private keepEarly(key: string, metadata: unknown[]): void {
    const now = Date.now();
    for (const [k, e] of this.early) if (now - e.at > EARLY_TTL_MS) this.early.delete(k);
    const entry = this.early.get(key);
    if (entry) entry.metadata.push(...metadata);
    else this.early.set(key, { metadata: [...metadata], at: now });
  }
}

/**
 * Whether JetStream's answer to a publish says it stored the message: a PubAck (`{"stream", "seq"}`),
 * not an API error (`{"error": …}`, e.g. 10071 when the key has an entry) nor a status without
 * payload (503: no stream for the subject, the bucket gone).
 */
function isStored(data: Uint8Array, status: number | undefined): boolean {
  if (data.length === 0 || (status !== undefined && status >= 300)) return false;
  try {
    const ack = codec.decode<{ error?: unknown; seq?: unknown }>(data);
    return ack.error === undefined && typeof ack.seq === 'number';
  } catch {
    return false;
  }
}
