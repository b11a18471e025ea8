import { connect, type NatsConnection } from 'nats';
import {
  type EntityIdentifiersJson,
  type EventJson,
  IS_EVENTS,
  NS_EVENTS,
  rightsEntityOf,
  splitEventBatch,
  STREAM_REPLICA_TIMEOUT_MS,
  type StreamMessage,
  streamSubject,
} from '@lorawan/api';
import { EventPublisher, type RunningComponent, startComponent } from '@lorawan/component';
import { loadConfig } from '@lorawan/config';
import { callRpc, rpcContext, TEST_NATS_URL, uniqueSuffix } from '@lorawan/testing';
import { connectMessaging, decode, encode, type Messaging, type Subscription } from '@lorawan/transport';
import { EventsModule } from './events.module';
import { app, dev, gtw, streamCaller } from './fixtures.conformance';
import { eventStreamName } from './history/jetstream-history';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const BURST = 300;

/**
 * A component's EventPublisher over real NATS sends its events in batches: the events service
 * (live streams and the JetStream history) sees every event once, in order, as if sent one by one.
 */
describe('events published in batches over NATS', () => {
  const prefix = `t${uniqueSuffix()}`;
  let messagings: Messaging[];
  let replica: RunningComponent;
  let raw: NatsConnection;
  const subscriptions: Subscription[] = [];
  /** What a plain subscriber of `events.>` gets: messages, and their events split in order. */
  const messages: string[] = [];
  const received: EventJson[] = [];

  beforeAll(async () => {
    const config = loadConfig({ NATS_URL: TEST_NATS_URL, NATS_SUBJECT_PREFIX: prefix, LOG_LEVEL: 'error', EVENTS_STREAM_BUFFER: '1000' });
    messagings = await Promise.all(['events', 'gateway', 'publisher'].map((name) => connectMessaging(config, name)));
    replica = await startComponent(EventsModule, { component: 'events', config, messaging: messagings[0], logger: false });
    raw = await connect({ servers: TEST_NATS_URL });
    raw.subscribe(`${prefix}.events.>`, {
      callback: (_err, msg) => {
        messages.push(msg.subject.slice(prefix.length + 1));
        for (const bytes of splitEventBatch(msg.data)) received.push(decode<EventJson>(bytes));
      },
    });
    await raw.flush();
    await sleep(100); // subscriptions reach the server
  });
  afterAll(async () => {
    for (const sub of subscriptions.splice(0)) sub.unsubscribe();
    await replica.close();
    for (const m of messagings) await m.close();
    const jsm = await raw.jetstreamManager();
    await jsm.streams.delete(eventStreamName(prefix)).catch(() => undefined);
    await raw.close();
  });

  /** Opens a stream with all rights on `application` (app1), as the gateway does. */
  async function open(body: Record<string, unknown>, application = 'app1'): Promise<StreamMessage[]> {
    const id = `S${uniqueSuffix()}${Math.random().toString(36).slice(2, 6)}`.toUpperCase();
    const got: StreamMessage[] = [];
    subscriptions.push(messagings[1].pubsub.subscribe(streamSubject(id), (payload) => got.push(decode<StreamMessage>(payload))));
    const ctx = rpcContext('Events.Stream', streamCaller([[{ kind: 'application', id: application }, ['RIGHT_APPLICATION_ALL']]]));
    const reply = await callRpc(messagings[1].client(), 'Events.Stream', { ...body, session_id: id }, ctx);
    if ('error' in reply) throw new Error(JSON.stringify(reply.error));
    return got;
  }
  async function until(check: () => boolean, ms = 5000): Promise<void> {
    for (const deadline = Date.now() + ms; !check() && Date.now() < deadline;) await sleep(10);
  }
  const inApp1 = (e: EventJson) => e.identifiers.some((ids) => rightsEntityOf(ids).kind === 'application' && rightsEntityOf(ids).id === 'app1');
  const uniqueIds = (got: StreamMessage[]) => got.map((m) => ('event' in m ? m.event.unique_id : JSON.stringify(m)));

  it('delivers a burst to a stream subscriber once and in order, and tail/after return the same events', async () => {
    const live = await open({ identifiers: [app('app1')] });
    await sleep(50);
    const before = new Date(Date.now() - 1000).toISOString();
    const publisher = new EventPublisher(messagings[2].pubsub);
    const published: EntityIdentifiersJson[] = [];
    for (let i = 0; i < BURST; i++) {
      // app1's devices and the application itself, app2's devices, and now and then a gateway (another kind: a batch ends).
      const ids = i % 11 === 10 ? gtw(`gw-${i}`) : i % 3 === 2 ? dev('app2', `dev${i}`) : i % 5 === 4 ? app('app1') : dev('app1', `dev${i}`);
      const definition = 'gateway_ids' in ids ? IS_EVENTS.gateway.update : 'application_ids' in ids ? IS_EVENTS.application.update : IS_EVENTS.endDevice.update;
      publisher.publish(definition, ids, { data: [`field${i}`] });
      published.push(ids);
    }
    const expected = () => received.filter(inApp1).map((e) => e.unique_id);
    await until(() => received.length >= BURST && live.length >= expected().length);
    await sleep(100);

    // Every event once, in the order published, in fewer messages than events; no batch mixes kinds.
    expect(received.map((e) => e.identifiers)).toEqual(published.map((ids) => [ids]));
    expect(received.map((e) => (e.data as { value: string[] }).value[0])).toEqual(published.map((_, i) => `field${i}`));
    expect(messages.length).toBeLessThan(BURST / 3);
    expect(messages.every((s) => /^events\.(application|gateway)\.[a-z0-9_-]+$/.test(s))).toBe(true);
    expect(messages).toContain('events.application._');
    // The stream: exactly app1's events (devices included), each once, in order.
    expect(expected().length).toBeGreaterThan(100);
    expect(uniqueIds(live)).toEqual(expected());
    expect(live.every((m) => 'event' in m && received.some((e) => JSON.stringify(e) === JSON.stringify(m.event)))).toBe(true);

    // History: the JetStream stream holds the batches; tail and after split them back.
    const jsm = await raw.jetstreamManager();
    for (let i = 0; i < 100 && (await jsm.streams.info(eventStreamName(prefix))).state.messages < messages.length; i++) await sleep(20);
    const tail = await open({ identifiers: [app('app1')], tail: 25 });
    const after = await open({ identifiers: [app('app1')], after: before, names: ['end_device.update'] });
    const deviceUpdates = received.filter((e) => inApp1(e) && e.name === 'end_device.update').map((e) => e.unique_id);
    await until(() => tail.length >= 25 && after.length >= deviceUpdates.length);
    await sleep(100);
    expect(uniqueIds(tail)).toEqual(expected().slice(-25));
    expect(uniqueIds(after)).toEqual(deviceUpdates);
  });

  it('with EVENTS_DATA=watched, writes a traffic event’s data only while a stream watches one of its entities', async () => {
    const config = loadConfig({ NATS_URL: TEST_NATS_URL, NATS_SUBJECT_PREFIX: prefix, LOG_LEVEL: 'error', EVENTS_DATA: 'watched' });
    const publisher = new EventPublisher(messagings[2].pubsub, config);
    // Until it may have heard every replica's heartbeat, it writes every event's data.
    await sleep(STREAM_REPLICA_TIMEOUT_MS + 200);
    const live = await open({ identifiers: [app('app1')], names: ['ns.up.data.receive'] });
    await sleep(50);
    received.length = 0;
    const frame = { raw_payload: 'QAECAwSAAQAB', received_at: '2026-01-01T00:00:00Z' };
    const error = { namespace: 'pkg/networkserver', name: 'device_not_found', message_format: 'device not found', code: 5 };
    publisher.publish(NS_EVENTS.dataReceive, dev('app1', 'dev1'), { data: frame });
    publisher.publish(NS_EVENTS.dataReceive, dev('app3', 'dev1'), { data: frame });
    publisher.publish(NS_EVENTS.dataDrop, dev('app3', 'dev1'), { data: error });
    await until(() => received.length >= 3 && live.length >= 1);
    const [watched, unwatched, drop] = received;
    expect(watched.data).toEqual({ '@type': 'type.googleapis.com/ttn.lorawan.v3.UplinkMessage', ...frame });
    // Nobody watches app3: the event, its identifiers and correlation IDs without the frame; errors keep theirs.
    expect(unwatched).toMatchObject({ name: 'ns.up.data.receive', identifiers: [dev('app3', 'dev1')] });
    expect(unwatched.data).toBeUndefined();
    expect(drop.data).toEqual({ '@type': 'type.googleapis.com/ttn.lorawan.v3.ErrorDetails', ...error });
    expect(live.map((m) => 'event' in m && m.event.data)).toEqual([watched.data]);
    // A stream on a new key: the replica says so at once, and its events carry their data from then on.
    const later = await open({ identifiers: [dev('app3', 'dev1')], names: ['ns.up.data.receive'] }, 'app3');
    await sleep(50);
    publisher.publish(NS_EVENTS.dataReceive, dev('app3', 'dev1'), { data: frame });
    await until(() => later.length >= 1);
    expect(later.map((m) => 'event' in m && m.event.data)).toEqual([watched.data]);
    publisher.onApplicationShutdown();
  });

  it('still takes single-event messages (an older publisher) alongside batches', async () => {
    const live = await open({ identifiers: [app('app1')] });
    await sleep(50);
    const single = { ...received[0], unique_id: `01J${uniqueSuffix().toUpperCase().padEnd(23, '0').slice(0, 23)}` };
    messagings[2].pubsub.publish('events.application.app1', encode(single));
    await until(() => live.length >= 1);
    await sleep(50);
    expect(live).toEqual([{ event: single }]);
  });
});
