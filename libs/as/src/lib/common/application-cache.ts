import { Logger, type Provider } from '@nestjs/common';
import { decode, encode, type Subscription, type PubSub, PUBSUB } from '@lorawan/transport';

interface Entry<T> {
  value: Promise<T>;
  expires: number;
}

/**
 * Per-application settings the message path reads for every message (the application link, the
 * active webhooks), kept for `ttlMs` so that an uplink does not cost a database query for each.
 * A write through the registry calls `invalidate`: the entry is dropped here and, through a
 * transport broadcast (NATS or in-process), on every other AS replica, so a change applies to the
 * next message anywhere; the TTL only bounds staleness should a broadcast be missed (a replica
 * reconnecting to NATS). Concurrent misses share one load; a load overtaken by an invalidation
 * answers its own callers but is not kept.
 */
export class ApplicationCache<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private subscription?: Subscription;
  private readonly subject: string;

  constructor(
    name: string,
    private readonly load: (applicationId: string) => Promise<T>,
    private readonly ttlMs: number,
    private readonly pubsub: PubSub,
  ) {
    this.subject = `as.cache.${name}.invalidate`;
  }

  /** Starts listening for other replicas' invalidations. */
  start(): void {
    this.subscription ??= this.pubsub.subscribe(this.subject, (payload) => {
      try {
        this.entries.delete(decode<{ application_id: string }>(payload).application_id);
      } catch (err) {
        new Logger('ApplicationCache').warn(`bad invalidation on ${this.subject}: ${(err as Error).message}`);
      }
    });
  }

  stop(): void {
    this.subscription?.unsubscribe();
    this.subscription = undefined;
    this.entries.clear();
  }

  get(applicationId: string): Promise<T> {
    const now = Date.now();
    const hit = this.entries.get(applicationId);
    if (hit && hit.expires > now) return hit.value;
    const entry: Entry<T> = { value: this.load(applicationId), expires: now + this.ttlMs };
    this.entries.set(applicationId, entry);
    entry.value.catch(() => {
      if (this.entries.get(applicationId) === entry) this.entries.delete(applicationId);
    });
    return entry.value;
  }

  /** After a write: drops the application's entry here and on every other replica. */
  invalidate(applicationId: string): void {
    this.entries.delete(applicationId);
    this.pubsub.publish(this.subject, encode({ application_id: applicationId }));
  }
}

/** How long a cached application link or webhook list may be used without a broadcast invalidation. */
export const APPLICATION_CACHE_TTL_MS = 5000;

/** The application link of each application (`undefined`: none). */
export const LINK_CACHE = Symbol('LINK_CACHE');
/** The active (not paused) webhooks of each application. */
export const ACTIVE_WEBHOOKS_CACHE = Symbol('ACTIVE_WEBHOOKS_CACHE');

/**
 * The Nest provider of a started cache under `token`: `load` reads an application's value from
 * the store provided under `storeToken`.
 */
export function applicationCacheProvider<S, T>(
  token: symbol,
  name: string,
  storeToken: symbol,
  load: (store: S, applicationId: string) => Promise<T>,
): Provider {
  return {
    provide: token,
    inject: [storeToken, PUBSUB],
    useFactory: (store: S, pubsub: PubSub) => {
      const cache = new ApplicationCache<T>(name, (app) => load(store, app), APPLICATION_CACHE_TTL_MS, pubsub);
      cache.start();
      return cache;
    },
  };
}
