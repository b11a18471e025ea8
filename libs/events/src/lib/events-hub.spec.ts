import {
  type EventJson,
  eventSubject,
  HEARTBEAT_WATCH_MAX,
  IS_EVENTS,
  type ReplicaHeartbeat,
  STREAM_REPLICA_SUBJECTS,
  streamControlSubject,
  type StreamMessage,
  streamSubject,
} from '@lorawan/api';
import { decode, encode, InProcessBroker, type Subscription } from '@lorawan/transport';
import { EventsHub, type EventsHubOptions } from './events-hub';
import { app, dev, filterFor, makeEvent } from './fixtures.conformance';
import type { EventHistory } from './history/event-history';
import { MemoryEventHistory } from './history/memory-history';
import { StreamFilter } from './stream-filter';

const UPDATE = IS_EVENTS.endDevice.update;
const APP_UPDATE = IS_EVENTS.application.update;
const tick = () => new Promise((resolve) => setImmediate(resolve));
const settle = async (turns = 5) => {
  for (let i = 0; i < turns; i++) await tick();
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('EventsHub (sessions and live fan-out of one replica)', () => {
  let transport: InProcessBroker;
  let hub: EventsHub;
  let history: EventHistory;
  let now: number;
  const subscriptions: Subscription[] = [];

  function start(o: Partial<EventsHubOptions> = {}, h: EventHistory = new MemoryEventHistory(1000, 3_600_000)): void {
    transport = new InProcessBroker();
    history = h;
    now = Date.now();
    hub = new EventsHub(transport, history, { bufferSize: 100, sessionTimeoutMs: 35_000, sweepIntervalMs: 10, flushBudget: 10_000, now: () => now, ...o });
    hub.start();
  }
  afterEach(async () => {
    for (const sub of subscriptions.splice(0)) sub.unsubscribe();
    hub.stop();
    await transport.close();
    jest.restoreAllMocks();
  });

  /** What the gateway receives on the session's subject. */
  function listen(id: string): StreamMessage[] {
    const got: StreamMessage[] = [];
    subscriptions.push(transport.subscribe(streamSubject(id), (payload) => got.push(decode<StreamMessage>(payload))));
    return got;
  }
  function publish(...events: EventJson[]): void {
    for (const event of events) transport.publish(eventSubject(event), encode(event));
  }
  const ids = (messages: StreamMessage[]) => messages.map((m) => ('event' in m ? m.event.unique_id : 'error' in m ? `error:${m.error.name}` : 'end'));

  it('hands on matching live events in order as {event} messages, nothing else', async () => {
    start();
    const got = listen('s1');
    hub.open({ id: 's1', filter: filterFor([app('app1')]) });
    await settle();
    const e1 = makeEvent(UPDATE, dev('app1', 'dev1'));
    const e2 = makeEvent(UPDATE, dev('app2', 'dev1'));
    const e3 = makeEvent(APP_UPDATE, app('app1'));
    const e4 = makeEvent(UPDATE, dev('app1', 'dev2'));
    publish(e1, e2, e3, e4);
    await settle();
    expect(got).toEqual([{ event: e1 }, { event: e3 }, { event: e4 }]);
  });

  it('takes a message of several events (a batch) as those events in order, and keeps them for history', async () => {
    start();
    const got = listen('s1');
    hub.open({ id: 's1', filter: filterFor([app('app1')]) });
    await settle();
    const events = [
      makeEvent(UPDATE, dev('app1', 'dev1')),
      makeEvent(UPDATE, dev('app2', 'dev1')),
      makeEvent(APP_UPDATE, app('app1')),
      makeEvent(UPDATE, dev('app1', 'dev2')),
    ];
    transport.publish('events.application._', Buffer.from(events.map((e) => JSON.stringify(e)).join('\n')));
    publish(makeEvent(UPDATE, dev('app1', 'dev3'))); // and a single event, as an older publisher sends it
    await settle();
    expect(ids(got)).toEqual([events[0].unique_id, events[2].unique_id, events[3].unique_id, expect.any(String)]);
    expect(got.slice(0, 3)).toEqual([{ event: events[0] }, { event: events[2] }, { event: events[3] }]);
    const tail = await history.query(filterFor([app('app1')]), { tail: 10 }, 10);
    expect(tail.map((e) => e.event.identifiers)).toEqual([[dev('app1', 'dev1')], [app('app1')], [dev('app1', 'dev2')], [dev('app1', 'dev3')]]);
  });

  it('sends nothing in the turn it opens a session (its start reply goes first)', async () => {
    start();
    const got = listen('s1');
    hub.open({ id: 's1', filter: filterFor([app('app1')]) });
    publish(makeEvent(UPDATE, dev('app1', 'dev1')));
    await Promise.resolve();
    await Promise.resolve();
    expect(got).toEqual([]);
    await settle();
    expect(got).toHaveLength(1);
  });

  it('sends an event matching through several identifiers once', async () => {
    start();
    const got = listen('s1');
    hub.open({ id: 's1', filter: filterFor([app('app1'), dev('app1', 'dev1')]) });
    await settle();
    publish(makeEvent(UPDATE, [dev('app1', 'dev1'), dev('app1', 'dev2')]));
    await settle();
    expect(got).toHaveLength(1);
  });

  it('replays history first (oldest first), then live events, without sending an event twice', async () => {
    start();
    const old = [0, 1, 2, 3].map((i) => makeEvent(UPDATE, dev('app1', `dev${i}`), { at: now - 10_000 + i }));
    publish(...old);
    await settle();
    const got = listen('s1');
    hub.open({ id: 's1', filter: filterFor([app('app1')]), history: { tail: 3 } });
    await settle();
    expect(ids(got)).toEqual([old[1], old[2], old[3]].map((e) => e.unique_id));
    const live = makeEvent(UPDATE, dev('app1', 'live'));
    publish(live, old[3]); // old[3] arrives again (JetStream had it before the subscription did)
    await settle();
    expect(ids(got)).toEqual([old[1], old[2], old[3], live].map((e) => e.unique_id));
  });

  it('holds live events back while the history is read, then sends them after it, once', async () => {
    const memory = new MemoryEventHistory(1000, 3_600_000);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    start(
      {},
      {
        recordsEvents: true,
        record: (e) => memory.record(e),
        query: async (...args) => (await gate, memory.query(...args)),
        healthy: async () => true,
        close: async () => undefined,
      },
    );
    const old = makeEvent(UPDATE, dev('app1', 'old'), { at: now - 1000 });
    publish(old);
    await settle();
    const got = listen('s1');
    hub.open({ id: 's1', filter: filterFor([app('app1')]), history: { afterMicros: (now - 60_000) * 1000 } });
    await settle();
    const during = [makeEvent(UPDATE, dev('app1', 'a')), makeEvent(UPDATE, dev('app1', 'b'))];
    publish(...during);
    await settle();
    expect(got).toEqual([]);
    release();
    await settle();
    // The history (read after they arrived) holds them too: each is sent once, history order.
    expect(ids(got)).toEqual([old, ...during].map((e) => e.unique_id));
    const later = makeEvent(UPDATE, dev('app1', 'c'));
    publish(later);
    await settle();
    expect(ids(got)).toEqual([old, ...during, later].map((e) => e.unique_id));
  });

  it('ends a session whose history (with what arrived meanwhile) is more than the buffer: buffer_full', async () => {
    start({ bufferSize: 5 });
    publish(...Array.from({ length: 10 }, (_, i) => makeEvent(UPDATE, dev('app1', `dev${i}`))));
    await settle();
    const big = listen('big');
    const small = listen('small');
    const plain = listen('plain');
    hub.open({ id: 'big', filter: filterFor([app('app1')]), history: { tail: 6 } });
    hub.open({ id: 'small', filter: filterFor([app('app1')]), history: { tail: 5 } });
    hub.open({ id: 'plain', filter: filterFor([app('app1')]) });
    await settle();
    expect(big).toEqual([{ error: expect.objectContaining({ namespace: 'pkg/events', name: 'buffer_full', code: 8, attributes: { max_messages: 5 } }) }]);
    expect(small).toHaveLength(5);
    const live = makeEvent(UPDATE, dev('app1', 'x'));
    publish(live);
    await settle();
    expect(big).toHaveLength(1);
    expect(small).toHaveLength(6);
    expect(plain).toEqual([{ event: live }]);
    expect(hub.stats().sessions).toBe(2);
  });

  it('ends only the session a burst overflows; the others get their events', async () => {
    start({ bufferSize: 100 });
    const flooded = listen('flooded');
    const other = listen('other');
    hub.open({ id: 'flooded', filter: filterFor([app('app1')]) });
    hub.open({ id: 'other', filter: filterFor([app('app2')]) });
    await settle();
    publish(...Array.from({ length: 150 }, (_, i) => makeEvent(UPDATE, dev('app1', `dev${i}`))));
    publish(makeEvent(UPDATE, dev('app2', 'dev1')));
    await settle();
    expect(ids(flooded)).toEqual(['error:buffer_full']);
    expect(other).toHaveLength(1);
    publish(makeEvent(UPDATE, dev('app1', 'later')));
    await settle();
    expect(flooded).toHaveLength(1);
  });

  it('hands on at most `flushBudget` messages per turn, taking sessions in turn', async () => {
    start({ flushBudget: 10 });
    const a = listen('a');
    const b = listen('b');
    hub.open({ id: 'a', filter: filterFor([app('app1')]) });
    hub.open({ id: 'b', filter: filterFor([app('app1')]) });
    await settle();
    publish(...Array.from({ length: 30 }, (_, i) => makeEvent(UPDATE, dev('app1', `dev${i}`))));
    await Promise.resolve();
    await tick();
    expect(a.length + b.length).toBeLessThanOrEqual(10);
    await settle(10);
    expect(a).toHaveLength(30);
    expect(b).toHaveLength(30);
  });

  it('keeps a pinged session; drops one not pinged for the timeout with session_expired', async () => {
    start({ sessionTimeoutMs: 1000 });
    const pinged = listen('pinged');
    const silent = listen('silent');
    hub.open({ id: 'pinged', filter: filterFor([app('app1')]) });
    hub.open({ id: 'silent', filter: filterFor([app('app1')]) });
    await settle();
    now += 800;
    transport.publish(streamControlSubject('pinged'), encode({ ping: true }));
    await settle();
    now += 700;
    await sleep(30);
    expect(ids(silent)).toEqual(['error:session_expired']);
    expect(silent[0]).toMatchObject({ error: { code: 4, attributes: { session_id: 'silent', timeout_ms: 1000 } } });
    expect(pinged).toEqual([]);
    now += 400;
    await sleep(30);
    expect(ids(pinged)).toEqual(['error:session_expired']);
    expect(hub.stats().sessions).toBe(0);
  });

  it('ends a session on {close} from the gateway, silently; ignores control messages of sessions it does not serve', async () => {
    start();
    const got = listen('s1');
    hub.open({ id: 's1', filter: filterFor([app('app1')]) });
    hub.open({ id: 's2', filter: filterFor([app('app1')]) });
    await settle();
    transport.publish(streamControlSubject('elsewhere'), encode({ close: true }));
    transport.publish(streamControlSubject('s2'), encode('garbage'));
    transport.publish(streamControlSubject('s1'), encode({ close: true }));
    await settle();
    publish(makeEvent(UPDATE, dev('app1', 'dev1')));
    await settle();
    expect(got).toEqual([]);
    expect(hub.stats().sessions).toBe(1);
  });

  it('refuses a session ID in use: pkg/events:session_exists', () => {
    start();
    hub.open({ id: 's1', filter: filterFor([app('app1')]) });
    expect(() => hub.open({ id: 's1', filter: filterFor([app('app1')]) })).toThrow(
      expect.objectContaining({ namespace: 'pkg/events', errorName: 'session_exists' }),
    );
  });

  it('ends a session whose history cannot be read with history_unavailable', async () => {
    start(
      {},
      {
        recordsEvents: false,
        record: () => undefined,
        query: () => Promise.reject(new Error('JetStream down')),
        healthy: async () => false,
        close: async () => undefined,
      },
    );
    jest.spyOn(hub['logger'], 'warn').mockImplementation(() => undefined);
    const got = listen('s1');
    hub.open({ id: 's1', filter: filterFor([app('app1')]), history: { tail: 5 } });
    await settle();
    expect(got).toEqual([{ error: expect.objectContaining({ name: 'history_unavailable', code: 14 }) }]);
  });

  it('matches an event against the sessions of its own identifiers only (the index), not every session', async () => {
    start();
    for (let i = 0; i < 1000; i++) hub.open({ id: `s${i}`, filter: filterFor([app(`app${i}`)]) });
    const got = listen('s500');
    await settle();
    const accepts = jest.spyOn(StreamFilter.prototype, 'accepts');
    publish(makeEvent(UPDATE, dev('app500', 'dev1')), makeEvent(UPDATE, dev('nobody', 'dev1')));
    await settle();
    expect(accepts).toHaveBeenCalledTimes(1);
    expect(got).toHaveLength(1);
  });

  it('leaves no session, index entry, timer or listener behind after 100 open/close cycles and stop', async () => {
    start();
    publish(makeEvent(UPDATE, dev('app1', 'old')));
    await settle();
    for (let i = 0; i < 100; i++) {
      const id = `cycle${i}`;
      hub.open({ id, filter: filterFor([app('app1'), dev('app2', `dev${i}`)]), history: i % 2 ? { tail: 1 } : undefined });
      if (i % 3 === 0) transport.publish(streamControlSubject(id), encode({ close: true })); // closed while opening
      await settle(2);
      publish(makeEvent(UPDATE, dev('app1', `dev${i}`)));
      if (i % 3 === 1) hub.close(id);
      else transport.publish(streamControlSubject(id), encode({ close: true }));
      await settle(2);
    }
    expect(hub.stats()).toEqual({ sessions: 0, indexKeys: 0, opening: 0, ready: 0, subscriptions: 2, timers: 1 });
    hub.stop();
    expect(hub.stats()).toEqual({ sessions: 0, indexKeys: 0, opening: 0, ready: 0, subscriptions: 0, timers: 0 });
    const internals = transport as unknown as { wildcards: Set<unknown>; listeners: Map<string, Set<unknown>> };
    expect(internals.wildcards.size).toBe(0);
  });

  it('ends every session with shutting_down when it stops', async () => {
    start();
    const got = listen('s1');
    hub.open({ id: 's1', filter: filterFor([app('app1')]) });
    await settle();
    hub.stop();
    await settle();
    expect(ids(got)).toEqual(['error:shutting_down']);
  });

  it('tells the gateways it is alive every heartbeatMs, on its own subject, from start to stop', async () => {
    const beats: string[] = [];
    start({ heartbeatMs: 20 });
    hub.stop();
    // The first beat goes out at start: listen on a fresh hub.
    transport = new InProcessBroker();
    subscriptions.push(transport.subscribe(STREAM_REPLICA_SUBJECTS, (_p, subject) => beats.push(subject)));
    hub = new EventsHub(transport, history, { bufferSize: 100, sessionTimeoutMs: 35_000, sweepIntervalMs: 10, flushBudget: 10_000, heartbeatMs: 20 });
    hub.start();
    expect(hub.replicaId).toMatch(/^[0-9A-Z]{26}$/);
    await sleep(110);
    expect(beats.length).toBeGreaterThanOrEqual(4);
    expect(new Set(beats)).toEqual(new Set([`stream-replica.${hub.replicaId}`]));
    expect(hub.stats().timers).toBe(2);
    hub.stop();
    const after = beats.length;
    await sleep(60);
    expect(beats).toHaveLength(after);
    expect(hub.stats().timers).toBe(0);
  });

  it('names in its heartbeat the keys its sessions watch, at once when a session watches a new one, and watch_all beyond HEARTBEAT_WATCH_MAX', async () => {
    transport = new InProcessBroker();
    const beats: ReplicaHeartbeat[] = [];
    subscriptions.push(transport.subscribe(STREAM_REPLICA_SUBJECTS, (payload) => beats.push(decode<ReplicaHeartbeat>(payload))));
    history = new MemoryEventHistory(1000, 3_600_000);
    hub = new EventsHub(transport, history, { bufferSize: 100, sessionTimeoutMs: 35_000, sweepIntervalMs: 10, flushBudget: 10_000, heartbeatMs: 60_000 });
    hub.start();
    await settle();
    expect(beats).toEqual([{ watch: [] }]);
    hub.open({ id: 's1', filter: filterFor([app('app1'), dev('app2', 'dev1')]) });
    await settle();
    expect(beats.at(-1)).toEqual({ watch: ['application:app1', 'device:app2.dev1'] });
    // A second session on keys already watched says nothing new.
    hub.open({ id: 's2', filter: filterFor([app('app1')]) });
    await settle();
    expect(beats).toHaveLength(2);
    hub.close('s1');
    hub.close('s2');
    for (let i = 0; i <= HEARTBEAT_WATCH_MAX; i++) hub.open({ id: `m${i}`, filter: filterFor([app(`many${i}`)]) });
    await settle();
    expect(beats.at(-1)).toEqual({ watch_all: true });
    expect(beats).toHaveLength(3);
  });
});
