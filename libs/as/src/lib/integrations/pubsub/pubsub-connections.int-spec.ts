/**
 * The Pub/Sub connections against real brokers: a mosquitto of the suite's own (with a password
 * file) and the run's NATS, two AS replicas (two PubSubConnections on one transport), the SQL store
 * on SQLite with secrets sealed. Independent clients (MQTT.js, nats.js) read what the AS publishes
 * and publish the downlinks.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as mqttConnect, type MqttClient } from 'mqtt';
import { connect as natsConnect, type NatsConnection } from 'nats';
import type { ApplicationPubSub, ApplicationUpJson } from '@lorawan/api';
import { loadConfig } from '@lorawan/config';
import { KeyVault, parseKeks, SecretBox } from '@lorawan/crypto';
import { openDataSource } from '@lorawan/persistence';
import { registryDataSourceOptions } from '@lorawan/registry';
import { eventually, type PrivateService, startPrivateMosquitto, TEST_NATS_URL } from '@lorawan/testing';
import { InProcessBroker } from '@lorawan/transport';
import type { DataSource } from 'typeorm';
import { AS_MIGRATIONS } from '../../migrations';
import { type RecordedEvent, recordingPublisher } from '../../testing/as-test-kit';
import { PubSubConnections } from './pubsub-connections.service';
import { SqlPubSubStore } from './pubsub.store';
import { MqttProviderDriver } from './providers/mqtt.provider';
import { NatsProviderDriver } from './providers/nats.provider';
import { PubSubDownlinks } from './downlink/pubsub-downlinks.service';
import type { DownlinkQueue } from '../../downlinks/downlink-queue.service';

const APP = `ps-${Date.now().toString(36)}`;
const PASSWORD = 'broker-secret-9f3';
const KEKS = 'as=000102030405060708090A0B0C0D0E0F';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const uplink = (device = 'dev1'): ApplicationUpJson =>
  ({
    end_device_ids: { device_id: device, application_ids: { application_id: APP } },
    correlation_ids: ['as:up:01TEST'],
    received_at: '2026-11-28T20:00:00.000000Z',
    uplink_message: { f_port: 1, frm_payload: 'AQID' },
  }) as unknown as ApplicationUpJson;

const ids = (pub_sub_id: string) => ({ application_ids: { application_id: APP }, pub_sub_id });

describe('Pub/Sub connections (real mosquitto and NATS, two AS replicas)', () => {
  let broker: PrivateService;
  let dir: string;
  let ds: DataSource;
  let store: SqlPubSubStore;
  const transport = new InProcessBroker();
  const events: RecordedEvent[] = [];
  const replicas: PubSubConnections[] = [];
  const queued: Array<{ replica: number; operation: string; body: unknown }> = [];
  const clients: Array<{ end(): unknown }> = [];

  /** A Set as the registry does it: stored, then reloaded on this replica and broadcast to the other. */
  async function set(pubsub: ApplicationPubSub): Promise<void> {
    const now = new Date().toISOString();
    await store.put({ created_at: now, updated_at: now, format: 'json', ...pubsub });
    await replicas[0].changed(pubsub.ids);
  }

  async function mqttClient(): Promise<MqttClient> {
    const client = mqttConnect(broker.url, { username: 'reader', password: 'reader-pass', reconnectPeriod: 200 });
    clients.push({ end: () => client.end(true) });
    await new Promise<void>((resolve, reject) => {
      client.once('connect', () => resolve());
      client.once('error', reject);
    });
    return client;
  }

  beforeAll(async () => {
    broker = await startPrivateMosquitto({ users: { as: PASSWORD, reader: 'reader-pass' } });
    dir = mkdtempSync(join(tmpdir(), 'lw-as-pubsub-'));
    ds = await openDataSource(registryDataSourceOptions('as', AS_MIGRATIONS, { databaseUrls: {}, dataDir: dir }), true);
    store = new SqlPubSubStore(ds, new SecretBox(new KeyVault(parseKeks(KEKS)), 'as'));
    const config = loadConfig({ AS_PUBSUB_RECONNECT_MAX_MS: '1000', AS_PUBSUB_SHARE_GROUP: `g${APP}` });
    for (const replica of [0, 1]) {
      const connections = new PubSubConnections(
        store,
        { mqtt: new MqttProviderDriver(), nats: new NatsProviderDriver() },
        transport,
        recordingPublisher(events),
        config,
      );
      // The real downlink entry point, its queue recording what reaches it.
      const queue = {
        push: async (req: unknown) => void queued.push({ replica, operation: 'push', body: req }),
        replace: async (req: unknown) => void queued.push({ replica, operation: 'replace', body: req }),
      };
      new PubSubDownlinks(connections, queue as unknown as DownlinkQueue).onModuleInit();
      await connections.onApplicationBootstrap();
      replicas.push(connections);
    }
  });

  afterAll(async () => {
    for (const client of clients) client.end();
    for (const replica of replicas) await replica.onApplicationShutdown();
    await ds?.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
    await broker?.stop();
  });

  it('keeps the MQTT password sealed in the database, and opens it for the connection', async () => {
    await set({
      ids: ids('mqtt1'),
      mqtt: { server_url: broker.url, username: 'as', password: PASSWORD, publish_qos: 'AT_LEAST_ONCE' },
      base_topic: `${APP}`,
      uplink_message: { topic: 'up' },
      downlink_push: { topic: 'down/push' },
    });
    const rows = (await ds.query('SELECT fields, secrets FROM pubsubs WHERE pub_sub_id = ?', ['mqtt1'])) as Array<{ fields: string; secrets: string }>;
    expect(rows[0].fields + rows[0].secrets).not.toContain(PASSWORD);
    expect(JSON.parse(rows[0].secrets).password.key_id).toBe('as');
    expect((await store.get(APP, 'mqtt1'))?.mqtt?.password).toBe(PASSWORD);
    await eventually(() => replicas.every((r) => r.isConnected(ids('mqtt1'))), 10_000);
    expect(events.filter((e) => e.name === 'as.pubsub.start')).toHaveLength(2);
  });

  it('publishes the ApplicationUp JSON on base_topic/topic, to an independent MQTT client', async () => {
    const reader = await mqttClient();
    const received: Array<{ topic: string; body: string }> = [];
    reader.on('message', (topic, payload) => received.push({ topic, body: payload.toString() }));
    await reader.subscribeAsync(`${APP}/#`);
    const up = uplink();
    replicas[0].publish(up);
    await eventually(() => received.length === 1, 5000);
    expect(received[0].topic).toBe(`${APP}/up`);
    expect(JSON.parse(received[0].body)).toEqual(up);
    // A kind the Pub/Sub does not enable is not published.
    replicas[0].publish({ ...up, uplink_message: undefined, join_accept: { session_key_id: 'AQ==' } } as unknown as ApplicationUpJson);
    await sleep(300);
    expect(received).toHaveLength(1);
  });

  it('queues a downlink published on the push topic once, on one replica (shared subscription)', async () => {
    const writer = await mqttClient();
    const request = { end_device_ids: { device_id: 'dev1', application_ids: { application_id: APP } }, downlinks: [{ f_port: 7, frm_payload: 'AQI=' }] };
    for (let i = 0; i < 6; i++) await writer.publishAsync(`${APP}/down/push`, JSON.stringify(request), { qos: 1 });
    await eventually(() => queued.length === 6, 5000);
    await sleep(500);
    expect(queued).toHaveLength(6);
    expect(queued.every((q) => q.operation === 'push')).toBe(true);
    expect(queued[0].body).toEqual(request);
  });

  it('refuses a bad downlink payload and one for another application with as.pubsub.fail, queuing nothing', async () => {
    queued.length = 0;
    const before = events.length;
    const writer = await mqttClient();
    await writer.publishAsync(`${APP}/down/push`, 'not json', { qos: 1 });
    await writer.publishAsync(
      `${APP}/down/push`,
      JSON.stringify({ end_device_ids: { device_id: 'dev1', application_ids: { application_id: 'other-app' } }, downlinks: [] }),
      { qos: 1 },
    );
    await eventually(() => events.slice(before).filter((e) => e.name === 'as.pubsub.fail').length >= 2, 5000);
    const fails = JSON.stringify(events.slice(before));
    expect(fails).toContain('downlink_operation');
    expect(fails).toContain('payload is not JSON');
    expect(fails).toContain(`end_device_ids must name a device of application ${APP}`);
    expect(queued).toHaveLength(0);
  });

  it('reports a refused password as as.pubsub.fail without the password, and drops messages while down', async () => {
    const before = events.length;
    await set({
      ids: ids('badpass'),
      mqtt: { server_url: broker.url, username: 'as', password: 'wrong-secret-77' },
      base_topic: `${APP}-bad`,
      uplink_message: { topic: 'up' },
    });
    await eventually(() => events.slice(before).some((e) => e.name === 'as.pubsub.fail'), 10_000);
    const fail = events.slice(before).find((e) => e.name === 'as.pubsub.fail');
    expect(JSON.stringify(fail)).toContain('connect_failed');
    expect(JSON.stringify(events)).not.toContain('wrong-secret-77');
    expect(JSON.stringify(events)).not.toContain(PASSWORD);
    expect(replicas[0].isConnected(ids('badpass'))).toBe(false);
    const started = Date.now();
    replicas[0].publish(uplink());
    expect(Date.now() - started).toBeLessThan(50);
  });

  it('reconnects with backoff after the broker dies, dropping (not buffering) what came meanwhile', async () => {
    await broker.kill();
    await eventually(() => !replicas[0].isConnected(ids('mqtt1')), 5000);
    replicas[0].publish(uplink('lost'));
    await broker.start();
    await eventually(() => replicas.every((r) => r.isConnected(ids('mqtt1'))), 15_000);
    const reader = await mqttClient();
    const received: string[] = [];
    reader.on('message', (_topic, payload) => received.push(payload.toString()));
    await reader.subscribeAsync(`${APP}/up`);
    replicas[1].publish(uplink('after'));
    await eventually(() => received.length === 1, 5000);
    expect(JSON.parse(received[0]).end_device_ids.device_id).toBe('after');
  });

  it('publishes to NATS on base_topic.topic and takes each downlink once (queue group)', async () => {
    const nc: NatsConnection = await natsConnect({ servers: TEST_NATS_URL });
    clients.push({ end: () => void nc.close() });
    const subject = `${APP}.nats`;
    const received: string[] = [];
    nc.subscribe(`${subject}.>`, { callback: (_err, msg) => received.push(`${msg.subject} ${new TextDecoder().decode(msg.data)}`) });
    await set({
      ids: ids('nats1'),
      nats: { server_url: TEST_NATS_URL },
      base_topic: `.${subject}.`,
      uplink_message: { topic: 'up' },
      downlink_replace: { topic: 'down.replace' },
    });
    await eventually(() => replicas.every((r) => r.isConnected(ids('nats1'))), 10_000);
    await nc.flush();
    const up = uplink('natsdev');
    replicas[1].publish(up);
    await eventually(() => received.some((r) => r.startsWith(`${subject}.up `)), 5000);
    expect(JSON.parse(received.find((r) => r.startsWith(`${subject}.up `))?.slice(`${subject}.up `.length) ?? '')).toEqual(up);
    queued.length = 0;
    const request = { end_device_ids: { device_id: 'natsdev', application_ids: { application_id: APP } }, downlinks: [{ f_port: 9, frm_payload: 'Cg==' }] };
    for (let i = 0; i < 4; i++) nc.publish(`${subject}.down.replace`, JSON.stringify(request));
    await nc.flush();
    await eventually(() => queued.length === 4, 5000);
    await sleep(300);
    expect(queued.map((q) => q.operation)).toEqual(['replace', 'replace', 'replace', 'replace']);
  });

  it('closes the connection on every replica when the Pub/Sub is deleted', async () => {
    await store.delete(APP, 'mqtt1');
    await replicas[0].changed(ids('mqtt1'));
    await eventually(() => replicas.every((r) => !r.isConnected(ids('mqtt1'))), 5000);
    expect(events.filter((e) => e.name === 'as.pubsub.stop').length).toBeGreaterThanOrEqual(2);
  });
});
