import { connect, DiscardPolicy, nanos, type NatsConnection, StorageType } from 'nats';
import { type EventJson, eventSubject, IS_EVENTS } from '@lorawan/api';
import { TEST_NATS_URL, uniqueSuffix } from '@lorawan/testing';
import { encode, NatsLink, NatsPubSub } from '@lorawan/transport';
import { app, dev, filterFor, makeEvent, rightsOn } from '../fixtures.conformance';
import type { PreparedEvent } from '../prepared-event';
import { eventStreamName, JetStreamEventHistory } from './jetstream-history';

const UPDATE = IS_EVENTS.endDevice.update;
const APP_UPDATE = IS_EVENTS.application.update;
const devices = (events: PreparedEvent[]) => events.map((e) => (e.event.identifiers[0] as { device_ids: { device_id: string } }).device_ids.device_id);

/** History read from a real JetStream stream, as components publish into it. */
describe('JetStreamEventHistory', () => {
  const prefix = `t${uniqueSuffix()}`;
  const T0 = Date.now() - 60_000;
  let admin: NatsConnection;
  let link: NatsLink;
  let publisher: NatsPubSub;
  let history: JetStreamEventHistory;
  const created: string[] = [];

  async function waitForMessages(stream: string, count: number): Promise<void> {
    const jsm = await admin.jetstreamManager();
    for (let i = 0; i < 100; i++) {
      if ((await jsm.streams.info(stream)).state.messages >= count) return;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`stream ${stream} did not get ${count} messages`);
  }
  function publish(...events: EventJson[]): void {
    for (const event of events) publisher.publish(eventSubject(event), encode(event));
  }

  beforeAll(async () => {
    admin = await connect({ servers: TEST_NATS_URL });
    history = await JetStreamEventHistory.open({ url: TEST_NATS_URL, subjectPrefix: prefix, retentionMs: 3_600_000, scanMax: 1000 });
    created.push(history.streamName);
    link = await NatsLink.connect(TEST_NATS_URL, 'publisher', prefix);
    publisher = new NatsPubSub(link);
    // dev0…dev9 of app1, one second apart, app2's events and app1's own update interleaved.
    for (let i = 0; i < 10; i++) {
      publish(makeEvent(UPDATE, dev('app1', `dev${i}`), { at: T0 + i * 1000 }), makeEvent(UPDATE, dev('app2', `other${i}`), { at: T0 + i * 1000 }));
    }
    publish(makeEvent(APP_UPDATE, app('app1'), { at: T0 + 20_000 }));
    await waitForMessages(history.streamName, 21);
  });
  afterAll(async () => {
    await history.close();
    await link.close();
    const jsm = await admin.jetstreamManager();
    for (const name of created) await jsm.streams.delete(name).catch(() => undefined);
    await admin.close();
  });

  it('creates the stream: EVENTS_<prefix>, every event subject under the prefix, max_age = retention, 1 GiB by default (oldest dropped), file, one replica', async () => {
    const jsm = await admin.jetstreamManager();
    const { config } = await jsm.streams.info(eventStreamName(prefix));
    expect(config).toMatchObject({
      name: `EVENTS_${prefix}`,
      subjects: [`${prefix}.events.>`],
      max_age: nanos(3_600_000),
      max_bytes: 1024 ** 3,
      discard: DiscardPolicy.Old,
      storage: StorageType.File,
      num_replicas: 1,
    });
    expect(eventStreamName()).toBe('EVENTS');
  });

  it('bounds the stream to EVENTS_HISTORY_MAX_BYTES, also when it exists already', async () => {
    const bounded = await JetStreamEventHistory.open({
      url: TEST_NATS_URL,
      subjectPrefix: prefix,
      retentionMs: 3_600_000,
      scanMax: 1000,
      maxBytes: 8 * 1024 * 1024,
    });
    try {
      const jsm = await admin.jetstreamManager();
      expect((await jsm.streams.info(eventStreamName(prefix))).config.max_bytes).toBe(8 * 1024 * 1024);
    } finally {
      await bounded.close();
    }
  });

  it('answers the last `tail` matching events, oldest first', async () => {
    expect(devices(await history.query(filterFor([dev('app1', 'dev1'), app('app1')], { names: ['end_device.update'] }), { tail: 3 }, 100))).toEqual([
      'dev7',
      'dev8',
      'dev9',
    ]);
    expect(devices(await history.query(filterFor([app('app2')]), { tail: 100 }, 1000))).toHaveLength(10);
  });

  it('answers the events after `after`, and with both the last `tail` of those', async () => {
    const after = (T0 + 6000) * 1000;
    expect(devices(await history.query(filterFor([app('app1')], { names: ['end_device.update'] }), { afterMicros: after }, 100))).toEqual([
      'dev7',
      'dev8',
      'dev9',
    ]);
    expect(devices(await history.query(filterFor([app('app1')], { names: ['end_device.update'] }), { afterMicros: after, tail: 2 }, 100))).toEqual([
      'dev8',
      'dev9',
    ]);
    expect(await history.query(filterFor([app('app1')]), { afterMicros: (Date.now() + 60_000) * 1000 }, 100)).toEqual([]);
  });

  it('filters with the stream’s matcher: identifiers, propagation, visibility', async () => {
    expect(devices(await history.query(filterFor([dev('app1', 'dev4')]), { tail: 10 }, 100))).toEqual(['dev4']);
    const infoOnly = filterFor([app('app1')], { rights: rightsOn({ 'application:app1': ['RIGHT_APPLICATION_INFO'] }) });
    expect((await history.query(infoOnly, { tail: 10 }, 100)).map((e) => e.name)).toEqual(['application.update']);
  });

  it('without a tail, stops once more than `limit` matched', async () => {
    expect(await history.query(filterFor([app('app2')]), { afterMicros: 0 }, 4)).toHaveLength(5);
  });

  it('reads at most the stream’s last `scanMax` messages', async () => {
    const bounded = await JetStreamEventHistory.open({ url: TEST_NATS_URL, subjectPrefix: prefix, retentionMs: 3_600_000, scanMax: 7 });
    try {
      // The last 7 messages: dev7, other7, dev8, other8, dev9, other9, application.update.
      expect(devices(await bounded.query(filterFor([app('app1')], { names: ['end_device.update'] }), { tail: 10 }, 100))).toEqual(['dev7', 'dev8', 'dev9']);
    } finally {
      await bounded.close();
    }
  });

  it('does not wait for events published after the query began (they come live)', async () => {
    const started = Date.now();
    const result = history.query(filterFor([app('app3')]), { tail: 5 }, 100);
    publish(makeEvent(UPDATE, dev('app3', 'dev1')));
    expect((await result).length).toBeLessThanOrEqual(1);
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('leaves no consumer behind', async () => {
    const jsm = await admin.jetstreamManager();
    for (let i = 0; i < 50 && (await jsm.streams.info(history.streamName)).state.consumer_count > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect((await jsm.streams.info(history.streamName)).state.consumer_count).toBe(0);
  });

  it('lets replicas starting together all ensure the stream, and updates its retention', async () => {
    const p2 = `t${uniqueSuffix()}`;
    created.push(eventStreamName(p2));
    const replicas = await Promise.all(
      [1, 2, 3, 4].map(() => JetStreamEventHistory.open({ url: TEST_NATS_URL, subjectPrefix: p2, retentionMs: 60_000, scanMax: 10 })),
    );
    const racing = await Promise.all(
      [1, 2, 3].map((i) => JetStreamEventHistory.open({ url: TEST_NATS_URL, subjectPrefix: p2, retentionMs: 60_000 * (i + 1), scanMax: 10 })),
    );
    const changed = await JetStreamEventHistory.open({ url: TEST_NATS_URL, subjectPrefix: p2, retentionMs: 120_000, scanMax: 10 });
    const jsm = await admin.jetstreamManager();
    expect((await jsm.streams.info(eventStreamName(p2))).config.max_age).toBe(nanos(120_000));
    for (const h of [...replicas, ...racing, changed]) await h.close();
  });
});
