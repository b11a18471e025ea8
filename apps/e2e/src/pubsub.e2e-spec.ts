/**
 * Pub/Sub integrations end to end, in both run modes (TTS `ApplicationPubSubRegistry`): the
 * registry over HTTP (formats, CRUD, 400s for invalid input, secrets hidden from a key that only
 * reads traffic); an OTAA device joins and sends an uplink through a simulated UDP gateway (frames
 * by `lora-packet`), and its join-accept and uplink arrive on the user's MQTT broker (a mosquitto of
 * the suite's own, read by an independent MQTT.js client and by `mosquitto_sub`) and on a NATS
 * subject (read with nats.js); a downlink published on the push topic reaches the device in the RX1
 * window of its next uplink.
 */
import { spawn } from 'node:child_process';
import loraPacket from 'lora-packet';
import { connect as mqttConnect, type MqttClient } from 'mqtt';
import { connect as natsConnect, type NatsConnection } from 'nats';
import {
  type PrivateService,
  SimulatedUdpGateway,
  startDistributedStack,
  startEmbeddedStack,
  startPrivateMosquitto,
  type StackUnderTest,
  TEST_NATS_URL,
} from '@lorawan/testing';
import { Registries, registerOtaaDevice, uid } from './devices';
import { dataUplink } from './lora-frames';
import { type ConnectedGateway, connectGateways } from './gateways';
import { Api, createApplications, expectStatus, expectTtsError, sleep } from './http-client';

type Start = () => Promise<StackUnderTest>;
const env = { NS_DEFAULT_MAC_SETTINGS: JSON.stringify({ status_count_periodicity: 0, status_time_periodicity: '0s' }) };
const ALL = ['is', 'js', 'ns', 'as', 'events', 'gs'] as const;
const MODES: Array<[string, Start]> = [
  ['distributed', () => startDistributedStack({ components: [...ALL], env })],
  ['embedded', () => startEmbeddedStack({ env })],
];
const BROKER_PASSWORD = 'broker-pass-e2e-51';

/** An ApplicationUp as read from a broker: the fields checked here. */
interface Up {
  end_device_ids: { device_id: string };
  join_accept?: Record<string, unknown>;
  uplink_message?: Record<string, unknown>;
}

/** Polls `check` until it holds. */
async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(50);
  }
}

describe.each(MODES)('Pub/Sub integrations (%s)', (_mode, start) => {
  let stack: StackUnderTest;
  let broker: PrivateService;
  let api: Api;
  let reg: Registries;
  let gateway: ConnectedGateway;
  let reader: MqttClient;
  let nc: NatsConnection;
  const app = uid('ps-app');
  const base = `e2e/${app}`;
  const subject = `e2e.${app}`;
  const mqttMessages: Array<{ topic: string; json: Up }> = [];
  const natsMessages: Array<{ subject: string; json: Up }> = [];
  const opened: Array<() => unknown> = [];
  /** The device of the traffic case (the delete case sends one more uplink). */
  let device: { dev: string; devAddr: string; keys: { nwkSKey: string; appSKey: string } } | undefined;

  beforeAll(async () => {
    broker = await startPrivateMosquitto({ users: { as: BROKER_PASSWORD, reader: 'reader-pass' } });
    stack = await start();
    api = new Api(() => stack);
    reg = new Registries(api);
    await createApplications(api, [app]);
    [gateway] = await connectGateways(api, stack, { count: 1, replicas: false });
    opened.push(() => gateway.udp.close());
    reader = mqttConnect(broker.url, { username: 'reader', password: 'reader-pass' });
    opened.push(() => reader.end(true));
    await new Promise<void>((resolve, reject) => reader.once('connect', () => resolve()).once('error', reject));
    reader.on('message', (topic, payload) => mqttMessages.push({ topic, json: JSON.parse(payload.toString()) }));
    await reader.subscribeAsync(`${base}/#`);
    nc = await natsConnect({ servers: TEST_NATS_URL });
    opened.push(() => nc.close());
    nc.subscribe(`${subject}.>`, {
      callback: (_err, msg) => natsMessages.push({ subject: msg.subject, json: JSON.parse(new TextDecoder().decode(msg.data)) }),
    });
    await nc.flush();
  }, 120_000);

  afterAll(async () => {
    for (const close of opened) await close();
    await stack?.stop();
    await broker?.stop();
  });

  const mqttPubSub = {
    ids: { pub_sub_id: 'broker' },
    mqtt: { server_url: '', client_id: 'lorawan-e2e', username: 'as', password: BROKER_PASSWORD, publish_qos: 'AT_LEAST_ONCE', subscribe_qos: 'AT_LEAST_ONCE' },
    base_topic: '',
    uplink_message: { topic: 'up' },
    join_accept: { topic: 'join' },
    downlink_push: { topic: 'down/push' },
    downlink_replace: { topic: 'down/replace' },
  };
  const MQTT_PATHS = ['provider.mqtt', 'base_topic', 'uplink_message', 'join_accept', 'downlink_push', 'downlink_replace'];

  it('answers the formats, sets an MQTT and a NATS Pub/Sub, and hides the secrets from a key that only reads traffic', async () => {
    expect((await api.get('/api/v3/as/pubsub-formats')).json).toEqual({ formats: { json: 'JSON' } });
    const body = { pubsub: { ...mqttPubSub, mqtt: { ...mqttPubSub.mqtt, server_url: broker.url }, base_topic: base }, field_mask: { paths: MQTT_PATHS } };
    const set = await api.put(`/api/v3/as/pubsub/${app}/broker`, body);
    expectStatus(set, 200);
    expect(set.json).toMatchObject({
      ids: { application_ids: { application_id: app }, pub_sub_id: 'broker' },
      format: 'json',
      base_topic: base,
      mqtt: { password: BROKER_PASSWORD },
    });
    const nats = await api.post(`/api/v3/as/pubsub/${app}`, {
      pubsub: {
        ids: { pub_sub_id: 'nats' },
        nats: { server_url: TEST_NATS_URL },
        base_topic: subject,
        uplink_message: { topic: 'up' },
        join_accept: { topic: 'join' },
      },
      field_mask: { paths: ['provider.nats.server_url', 'base_topic', 'uplink_message', 'join_accept'] },
    });
    expectStatus(nats, 200);

    const key = await api.post(`/api/v3/applications/${app}/api-keys`, { name: 'traffic reader', rights: ['RIGHT_APPLICATION_TRAFFIC_READ'] });
    expectStatus(key, 200);
    const asReader = { headers: { authorization: `Bearer ${key.json.key as string}` } };
    const got = await api.get(`/api/v3/as/pubsub/${app}/broker?field_mask=provider.mqtt,uplink_message`, asReader);
    expectStatus(got, 200);
    expect(got.json.mqtt).toEqual({
      server_url: broker.url,
      client_id: 'lorawan-e2e',
      username: 'as',
      publish_qos: 'AT_LEAST_ONCE',
      subscribe_qos: 'AT_LEAST_ONCE',
    });
    const listed = await api.get(`/api/v3/as/pubsub/${app}?field_mask=provider`, asReader);
    expect(listed.json.pubsubs.map((p: { ids: { pub_sub_id: string } }) => p.ids.pub_sub_id)).toEqual(['broker', 'nats']);
    expect(JSON.stringify(listed.json)).not.toContain(BROKER_PASSWORD);
    // The reader may not change it.
    expect((await api.put(`/api/v3/as/pubsub/${app}/broker`, body, asReader)).status).toBe(403);
  });

  it('refuses invalid input with 400 TTS errors', async () => {
    const put = (id: string, pubsub: Record<string, unknown>, paths: string[]) =>
      api.put(`/api/v3/as/pubsub/${app}/${id}`, { pubsub: { ids: { pub_sub_id: id }, ...pubsub }, field_mask: { paths } });
    expectTtsError(
      await put('aws', { aws_iot: { region: 'eu-west-1' } }, ['provider.aws_iot']),
      400,
      9,
      'pkg/applicationserver/io/pubsub',
      'provider_disabled',
      { provider: 'aws_iot' },
    );
    expectTtsError(await put('none', { base_topic: 'x' }, ['base_topic']), 400, 3, 'pkg/applicationserver/io/pubsub', 'no_provider');
    expectTtsError(await put('badurl', { nats: { server_url: 'http://127.0.0.1:4222' } }, ['provider.nats.server_url']), 400, 3, 'pkg/errors', 'validation', {
      field: 'nats.server_url',
    });
    expect((await put('Bad_ID', { nats: { server_url: TEST_NATS_URL } }, ['provider.nats'])).status).toBe(400);
    expect((await put('longclient', { mqtt: { server_url: broker.url, client_id: 'x'.repeat(24) } }, ['provider.mqtt'])).status).toBe(400);
    expect((await put('qos', { mqtt: { server_url: broker.url, publish_qos: 'SOMETIMES' } }, ['provider.mqtt'])).status).toBe(400);
    expectTtsError(await put('mask', { nats: { server_url: TEST_NATS_URL } }, ['base_url']), 400, 3, 'pkg/rpcmiddleware/validator', 'field_mask_paths');
    expectTtsError(await api.get(`/api/v3/as/pubsub/${app}/missing`), 404, 5, 'pkg/redis', 'not_found');
  });

  it("publishes the device's join-accept and uplink to the MQTT broker (MQTT.js and mosquitto_sub) and to NATS", async () => {
    const sub = spawn('mosquitto_sub', ['-h', '127.0.0.1', '-p', String(broker.port), '-u', 'reader', '-P', 'reader-pass', '-t', `${base}/up`, '-C', '1']);
    opened.push(() => sub.kill());
    let subOut = '';
    sub.stdout.on('data', (d: Buffer) => (subOut += d.toString()));
    await sleep(300);
    const d = (device = await joinedDevice());
    await until(
      'join-accept on MQTT and NATS',
      () => mqttMessages.some((m) => m.topic === `${base}/join`) && natsMessages.some((m) => m.subject === `${subject}.join`),
    );
    const join = mqttMessages.find((m) => m.topic === `${base}/join`)?.json;
    expect(join?.end_device_ids.device_id).toBe(d.dev);
    expect(join?.join_accept).toBeDefined();
    await gateway.udp.push({ rxpk: [SimulatedUdpGateway.rxpk(dataUplink(d.keys, d.devAddr, 0, 5, Buffer.from('hi')), { tmst: 10_000_000 })] });
    await until('uplink on MQTT and NATS', () => mqttMessages.some((m) => m.topic === `${base}/up`) && natsMessages.some((m) => m.subject === `${subject}.up`));
    for (const up of [mqttMessages.find((m) => m.topic === `${base}/up`)?.json, natsMessages.find((m) => m.subject === `${subject}.up`)?.json]) {
      expect(up?.end_device_ids.device_id).toBe(d.dev);
      expect(up?.uplink_message).toMatchObject({ f_port: 5, f_cnt: 0, frm_payload: Buffer.from('hi').toString('base64') });
    }
    await until('mosquitto_sub printed the uplink', () => subOut.includes('\n'));
    expect(JSON.parse(subOut).uplink_message.frm_payload).toBe(Buffer.from('hi').toString('base64'));

    // A downlink published on the push topic goes out in RX1 of the next uplink; the device decrypts it.
    const writer = mqttConnect(broker.url, { username: 'reader', password: 'reader-pass' });
    opened.push(() => writer.end(true));
    const downlink = {
      end_device_ids: { device_id: d.dev, application_ids: { application_id: app } },
      downlinks: [{ f_port: 12, frm_payload: Buffer.from('from broker').toString('base64') }],
    };
    await writer.publishAsync(`${base}/down/push`, JSON.stringify(downlink), { qos: 1 });
    await until(
      'the downlink queued',
      async () => ((await api.get(`/api/v3/as/applications/${app}/devices/${d.dev}/down`)).json?.downlinks ?? []).length === 1,
    );
    const before = gateway.udp.downlinks.length;
    await gateway.udp.push({ rxpk: [SimulatedUdpGateway.rxpk(dataUplink(d.keys, d.devAddr, 1, 5, Buffer.from('again')), { tmst: 20_000_000 })] });
    const down = (await gateway.udp.waitForDownlinks(before + 1, 3000))[before];
    expect(down.txpk).toMatchObject({ tmst: 21_000_000 });
    const frame = loraPacket.fromWire(Buffer.from(down.txpk.data as string, 'base64'));
    expect(frame.getFPort()).toBe(12);
    expect(loraPacket.verifyMIC(frame, Buffer.from(d.keys.nwkSKey, 'hex'))).toBe(true);
    expect(loraPacket.decrypt(frame, Buffer.from(d.keys.appSKey, 'hex'), Buffer.from(d.keys.nwkSKey, 'hex')).toString()).toBe('from broker');
  }, 60_000);

  it('deletes a Pub/Sub: nothing more is published to it, the other one goes on', async () => {
    expectStatus(await api.delete(`/api/v3/as/pubsub/${app}/nats`), 200);
    const [natsBefore, mqttBefore] = [natsMessages.length, mqttMessages.length];
    if (!device) throw new Error('the traffic case joined no device');
    await gateway.udp.push({ rxpk: [SimulatedUdpGateway.rxpk(dataUplink(device.keys, device.devAddr, 2, 5, Buffer.from('after')), { tmst: 30_000_000 })] });
    await until('the uplink on MQTT', () => mqttMessages.slice(mqttBefore).some((m) => m.topic === `${base}/up`));
    await sleep(500);
    expect(natsMessages.length).toBe(natsBefore);
    expectTtsError(await api.get(`/api/v3/as/pubsub/${app}/nats`), 404, 5, 'pkg/redis', 'not_found');
    const list = await api.get(`/api/v3/as/pubsub/${app}`);
    expect(list.json.pubsubs.map((p: { ids: { pub_sub_id: string } }) => p.ids.pub_sub_id)).toEqual(['broker']);
  });

  /** An OTAA device joined through the gateway: its DevAddr and session keys (lora-packet via SimulatedOtaaDevice). */
  async function joinedDevice() {
    const { dev, sim } = await registerOtaaDevice(api, app, 'FORMATTER_NONE');
    const before = gateway.udp.downlinks.length;
    await gateway.udp.push({ rxpk: [SimulatedUdpGateway.rxpk(sim.joinRequest(), { tmst: 1_000_000 })] });
    const down = (await gateway.udp.waitForDownlinks(before + 1, 5000))[before];
    const joined = sim.acceptJoin(Buffer.from(down.txpk.data as string, 'base64'));
    await until('the pending session stored', async () => {
      const ns = (await reg.getOk('ns', app, dev, ['pending_session'])).json as { pending_session?: { dev_addr?: string } };
      const as = (await reg.getOk('as', app, dev, ['pending_session'])).json as { pending_session?: { dev_addr?: string } };
      return ns.pending_session?.dev_addr === joined.devAddr && as.pending_session?.dev_addr === joined.devAddr;
    });
    return { dev, devAddr: joined.devAddr, keys: joined.keys as { nwkSKey: string; appSKey: string } };
  }
});
