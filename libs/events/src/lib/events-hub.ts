import { Logger } from '@nestjs/common';
import {
  EVENT_SUBJECTS,
  newUlid,
  HEARTBEAT_WATCH_MAX,
  type ReplicaHeartbeat,
  replicaHeartbeatSubject,
  splitEventBatch,
  STREAM_CONTROL_SUBJECTS,
  type StreamControl,
  type StreamMessage,
  streamSubject,
} from '@lorawan/api';
import { eventsDelivered, eventsReceived, eventStreamsOpen } from '@lorawan/observability';
import { decode, encode, type PubSub, type Subscription } from '@lorawan/transport';
import { ErrBufferFull, ErrHistoryUnavailable, ErrSessionExists, ErrSessionExpired, ErrShuttingDown } from './errors';
import type { EventHistory, HistoryQuery } from './history/event-history';
import { PreparedEvent } from './prepared-event';
import type { StreamFilter } from './stream-filter';
import { StreamSession } from './stream-session';

export interface EventsHubOptions {
  /** EVENTS_STREAM_BUFFER: messages a session may have waiting before it ends with `buffer_full`. */
  bufferSize: number;
  /** A session not pinged for this long is dropped (STREAM_SESSION_TIMEOUT_MS). */
  sessionTimeoutMs: number;
  /** How often sessions are checked for missed pings. */
  sweepIntervalMs: number;
  /** Messages handed on per event-loop turn, over all sessions in turn, so one turn stays short. */
  flushBudget: number;
  /** How often the replica tells the gateways it is alive (STREAM_REPLICA_HEARTBEAT_MS); 0: never (tests). */
  heartbeatMs?: number;
  now?: () => number;
}

export interface OpenSession {
  id: string;
  filter: StreamFilter;
  /** Undefined: no history, live events only. */
  history?: HistoryQuery;
}

const CONTROL_PREFIX = STREAM_CONTROL_SUBJECTS.slice(0, -1);

/**
 * The sessions one events replica serves, and the fan-out of live events to them.
 *
 * Every replica subscribes once to `events.>` (no queue group: each gets every event and serves
 * its own sessions; a message may hold several events, `splitEventBatch`, taken in their order)
 * and once to `stream-control.*`. Sessions are indexed by the `identifierKey` of
 * each requested identifier, so an event is matched by looking up its own identifiers (and, for
 * events that propagate, its devices' applications): O(identifiers of the event + matching
 * sessions), independent of how many sessions are open. A match is queued on the session (the
 * `{event}` bytes are built once per event, shared by all sessions) and handed on to the transport
 * in a later turn, a bounded number per turn; a session with more than `bufferSize` waiting
 * (history bigger than that, a burst, or a stream that cannot keep up) ends with `buffer_full`
 * and never holds up the others. History (`tail`/`after`) is read while live events wait in the
 * queue, and goes first; live events the history holds already are dropped.
 */
export class EventsHub {
  private readonly logger = new Logger('Events');
  private readonly sessions = new Map<string, StreamSession>();
  private readonly index = new Map<string, Set<StreamSession>>();
  /** Registered, to begin (history or live) in the next turn, after their start reply went out. */
  private readonly opening = new Set<StreamSession>();
  /** Live sessions with messages waiting. */
  private readonly ready = new Set<StreamSession>();
  private subscriptions: Subscription[] = [];
  private sweepTimer?: NodeJS.Timeout;
  private heartbeatTimer?: NodeJS.Timeout;
  /** A heartbeat due in the next turn (a session watches a new key). */
  private beatSoon?: NodeJS.Immediate;
  private flushHandle?: NodeJS.Immediate;
  /** This replica's name in start replies and on its heartbeat subject (`@lorawan/api` stream.ts, step 4). */
  readonly replicaId = newUlid();
  private pass = 0;
  private readonly now: () => number;

  constructor(
    private readonly pubsub: PubSub,
    private readonly history: EventHistory,
    private readonly options: EventsHubOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  start(): void {
    if (this.subscriptions.length > 0) return;
    this.subscriptions = [
      this.pubsub.subscribe(EVENT_SUBJECTS, (payload) => {
        for (const event of splitEventBatch(payload)) this.receive(event);
      }),
      this.pubsub.subscribe(STREAM_CONTROL_SUBJECTS, (payload, subject) => this.control(subject, payload)),
    ];
    this.sweepTimer = setInterval(() => this.sweep(), this.options.sweepIntervalMs);
    this.sweepTimer.unref();
    const heartbeatMs = this.options.heartbeatMs ?? 0;
    if (heartbeatMs > 0) {
      this.beat();
      this.heartbeatTimer = setInterval(() => this.beat(), heartbeatMs);
      this.heartbeatTimer.unref();
    }
  }

  /** The replica's heartbeat, with the keys its sessions watch (`ReplicaHeartbeat`). */
  private beat(): void {
    this.beatSoon = undefined;
    const heartbeat: ReplicaHeartbeat = this.index.size > HEARTBEAT_WATCH_MAX ? { watch_all: true } : { watch: [...this.index.keys()] };
    this.pubsub.publish(replicaHeartbeatSubject(this.replicaId), encode(heartbeat));
  }

  /** Unsubscribes, stops its timers and ends every session (`shutting_down`). */
  stop(): void {
    for (const sub of this.subscriptions.splice(0)) sub.unsubscribe();
    clearInterval(this.sweepTimer);
    this.sweepTimer = undefined;
    clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = undefined;
    if (this.beatSoon) clearImmediate(this.beatSoon);
    this.beatSoon = undefined;
    if (this.flushHandle) clearImmediate(this.flushHandle);
    this.flushHandle = undefined;
    for (const session of [...this.sessions.values()]) this.end(session, { error: ErrShuttingDown.with().toDetails() });
  }

  /** Registers a session; its history and live events follow on `streamSubject(id)` from the next turn. */
  open(o: OpenSession): void {
    if (this.sessions.has(o.id)) throw ErrSessionExists.with({ session_id: o.id });
    const session = new StreamSession(o.id, o.filter, o.history, this.now());
    this.sessions.set(o.id, session);
    eventStreamsOpen.set({ component: 'events' }, this.sessions.size);
    for (const key of o.filter.keys) {
      let set = this.index.get(key);
      if (!set) {
        this.index.set(key, (set = new Set()));
        // Publishers write traffic events' data only for watched keys: they hear of this one at once, not at the next beat.
        if (this.heartbeatTimer) this.beatSoon ??= setImmediate(() => this.beat());
      }
      set.add(session);
    }
    this.opening.add(session);
    this.scheduleFlush();
  }

  /** Ends a session without a message (the gateway closed it). */
  close(id: string): void {
    const session = this.sessions.get(id);
    if (session) this.end(session);
  }

  /** What the hub holds (tests: nothing may be left behind). */
  stats(): { sessions: number; indexKeys: number; opening: number; ready: number; subscriptions: number; timers: number } {
    return {
      sessions: this.sessions.size,
      indexKeys: this.index.size,
      opening: this.opening.size,
      ready: this.ready.size,
      subscriptions: this.subscriptions.length,
      timers: (this.sweepTimer ? 1 : 0) + (this.heartbeatTimer ? 1 : 0) + (this.flushHandle ? 1 : 0) + (this.beatSoon ? 1 : 0),
    };
  }

  /** One published event (one of a message's, `splitEventBatch`): kept for history (embedded), then queued on every session it matches. */
  receive(payload: Uint8Array): void {
    eventsReceived.inc();
    if (this.sessions.size === 0 && !this.history.recordsEvents) return;
    const event = PreparedEvent.fromBytes(payload);
    if (!event) return;
    this.history.record(event);
    if (this.sessions.size === 0) return;
    const pass = ++this.pass;
    for (const key of event.lookupKeys) {
      const sessions = this.index.get(key);
      if (!sessions) continue;
      for (const session of sessions) {
        if (session.pass === pass) continue;
        session.pass = pass;
        if (session.filter.accepts(event)) this.enqueue(session, event);
      }
    }
  }

  private control(subject: string, payload: Uint8Array): void {
    if (!subject.startsWith(CONTROL_PREFIX)) return;
    // Every replica hears every session's control messages: only the one serving it acts.
    const session = this.sessions.get(subject.slice(CONTROL_PREFIX.length));
    if (!session) return;
    let message: Partial<Record<'ping' | 'close', unknown>> | null;
    try {
      message = decode<StreamControl | null>(payload) as typeof message;
    } catch {
      return;
    }
    if (message?.close) this.end(session);
    else if (message?.ping) session.lastSeen = this.now();
  }

  private enqueue(session: StreamSession, event: PreparedEvent): void {
    if (session.historyIds?.has(event.uniqueId)) return;
    if (session.queued >= this.options.bufferSize) return this.overflow(session);
    session.push(event);
    eventsDelivered.inc();
    if (session.state === 'live') {
      this.ready.add(session);
      this.scheduleFlush();
    }
  }

  private scheduleFlush(): void {
    this.flushHandle ??= setImmediate(() => this.flush());
  }

  private flush(): void {
    this.flushHandle = undefined;
    for (const session of this.opening) {
      this.opening.delete(session);
      this.begin(session);
    }
    let budget = this.options.flushBudget;
    for (const session of this.ready) {
      if (session.state !== 'live') {
        this.ready.delete(session);
        continue;
      }
      let event: PreparedEvent | undefined;
      while (budget > 0 && (event = session.shift())) {
        this.publish(session.id, event.message);
        budget--;
      }
      this.ready.delete(session);
      if (session.queued > 0) this.ready.add(session); // its turn again after the others
      if (budget === 0) break;
    }
    if (this.ready.size > 0) this.scheduleFlush();
  }

  private begin(session: StreamSession): void {
    if (session.state !== 'opening') return;
    const query = session.history;
    if (!query) return this.goLive(session);
    session.state = 'history';
    this.history.query(session.filter, query, this.options.bufferSize).then(
      (events) => {
        if (session.state !== 'history') return;
        session.prependHistory(events);
        if (session.queued > this.options.bufferSize) return this.overflow(session);
        this.goLive(session);
      },
      (err: unknown) => {
        if (session.state === 'closed') return;
        const error = ErrHistoryUnavailable.with();
        this.logger.warn(`history of stream ${session.id} failed (correlation ${error.correlationId}): ${(err as Error)?.message ?? String(err)}`);
        this.end(session, { error: error.toDetails() });
      },
    );
  }

  private goLive(session: StreamSession): void {
    session.state = 'live';
    if (session.queued > 0) {
      this.ready.add(session);
      this.scheduleFlush();
    }
  }

  private overflow(session: StreamSession): void {
    this.end(session, { error: ErrBufferFull.with({ max_messages: this.options.bufferSize }).toDetails() });
  }

  private sweep(): void {
    const now = this.now();
    for (const session of [...this.sessions.values()]) {
      if (now - session.lastSeen > this.options.sessionTimeoutMs) {
        this.end(session, { error: ErrSessionExpired.with({ session_id: session.id, timeout_ms: this.options.sessionTimeoutMs }).toDetails() });
      }
    }
  }

  /** Removes the session from every index, drops what it had waiting, and sends `final` if given. */
  private end(session: StreamSession, final?: StreamMessage): void {
    if (session.state === 'closed') return;
    session.state = 'closed';
    this.sessions.delete(session.id);
    eventStreamsOpen.set({ component: 'events' }, this.sessions.size);
    for (const key of session.filter.keys) {
      const set = this.index.get(key);
      if (!set) continue;
      set.delete(session);
      if (set.size === 0) this.index.delete(key);
    }
    this.opening.delete(session);
    this.ready.delete(session);
    session.clear();
    if (final) this.publish(session.id, encode(final));
  }

  private publish(sessionId: string, payload: Uint8Array): void {
    try {
      this.pubsub.publish(streamSubject(sessionId), payload);
    } catch (err) {
      this.logger.warn(`stream ${sessionId}: message not sent: ${(err as Error).message}`);
    }
  }
}
