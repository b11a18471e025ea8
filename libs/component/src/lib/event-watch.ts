import {
  type EntityIdentifiersJson,
  type EventDefinition,
  eventLookupKeys,
  type ReplicaHeartbeat,
  STREAM_REPLICA_SUBJECTS,
  STREAM_REPLICA_TIMEOUT_MS,
} from '@lorawan/api';
import { decode, type PubSub, type Subscription } from '@lorawan/transport';

export interface EventWatchOptions {
  /** EVENTS_DATA: `always` writes every event's data; `watched` only what a stream watches. */
  mode: 'watched' | 'always';
  /** How long a replica's heartbeat counts (STREAM_REPLICA_TIMEOUT_MS, as the gateways wait for it). */
  replicaTimeoutMs?: number;
  now?: () => number;
}

interface ReplicaWatch {
  /** Undefined: it watches everything (too many keys to list, or an older replica that does not say). */
  keys?: ReadonlySet<string>;
  until: number;
}

const PREFIX = STREAM_REPLICA_SUBJECTS.slice(0, -1);

/**
 * Which entities some events stream watches, from the events replicas' heartbeats
 * (`ReplicaHeartbeat`, on `stream-replica.<replica>` every STREAM_REPLICA_HEARTBEAT_MS, and at
 * once when a session watches a new key): a traffic event's data (`trafficData`) is written only
 * when one of its lookup keys (`eventLookupKeys`, as the replicas index their sessions) is watched.
 *
 * A replica counts until `replicaTimeoutMs` after its last heartbeat. Until a process has waited
 * that long after it subscribed, it may not have heard every replica yet and writes every event's
 * data. A stream that opens on a new key misses the data of the events published before its
 * replica's next heartbeat reaches the publisher (the same turn's, a millisecond), and its history
 * (`tail`, `after`) holds traffic events without data from when nobody watched.
 */
export class EventWatch {
  private readonly replicas = new Map<string, ReplicaWatch>();
  private readonly subscription?: Subscription;
  private readonly timeoutMs: number;
  private readonly now: () => number;
  private readonly knownFrom: number;

  constructor(
    pubsub: PubSub,
    private readonly o: EventWatchOptions,
  ) {
    this.timeoutMs = o.replicaTimeoutMs ?? STREAM_REPLICA_TIMEOUT_MS;
    this.now = o.now ?? Date.now;
    this.knownFrom = this.now() + this.timeoutMs;
    if (o.mode === 'watched') this.subscription = pubsub.subscribe(STREAM_REPLICA_SUBJECTS, (payload, subject) => this.heard(subject, payload));
  }

  /** Whether an event of `definition` about `identifiers` is published with its data. */
  withData(definition: EventDefinition, identifiers: readonly EntityIdentifiersJson[]): boolean {
    if (!definition.trafficData || this.o.mode === 'always') return true;
    const now = this.now();
    if (now < this.knownFrom) return true;
    let keys: Set<string> | undefined;
    for (const [replica, watch] of this.replicas) {
      if (watch.until < now) {
        this.replicas.delete(replica);
        continue;
      }
      if (!watch.keys) return true;
      keys ??= eventLookupKeys(definition.propagateToParent, identifiers);
      for (const key of keys) if (watch.keys.has(key)) return true;
    }
    return false;
  }

  close(): void {
    this.subscription?.unsubscribe();
  }

  private heard(subject: string, payload: Uint8Array): void {
    if (!subject.startsWith(PREFIX)) return;
    this.replicas.set(subject.slice(PREFIX.length), { keys: watchedKeys(payload), until: this.now() + this.timeoutMs });
  }
}

/** The keys a heartbeat lists; undefined (everything) when it lists none (an older replica), says `watch_all`, or cannot be read. */
function watchedKeys(payload: Uint8Array): ReadonlySet<string> | undefined {
  if (payload.length === 0) return undefined;
  try {
    const heartbeat = decode<ReplicaHeartbeat | null>(payload);
    if (!heartbeat || heartbeat.watch_all || !Array.isArray(heartbeat.watch)) return undefined;
    return new Set(heartbeat.watch.filter((key): key is string => typeof key === 'string'));
  } catch {
    return undefined;
  }
}
