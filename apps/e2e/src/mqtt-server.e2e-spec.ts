/**
 * The Application Server's MQTT server end to end (TTS's MQTT Server API), in both run modes and
 * with two AS replicas, driven by independent clients: MQTT.js (MQTT 3.1.1 and 5) and Debian's
 * `mosquitto_sub`/`mosquitto_pub` as spawned processes. An OTAA device (frames built and checked by
 * lora-packet) joins and sends uplinks through a simulated packet forwarder; the clients receive the
 * join-accept and the uplinks as webhooks' ApplicationUp JSON; a downlink published over MQTT reaches
 * the device in its RX1 window; bad passwords and keys without rights are refused; a QoS 1 client
 * with a persistent session gets what it missed while away; a deleted key is disconnected at once.
 * MQTT over WebSocket on the gateway's HTTP port (`ws://…/mqtt`, subprotocol `mqtt`) serves the same
 * clients the same way: piped to the AS's MQTT listener (distributed), handed to the in-process AS (embedded).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import loraPacket from 'lora-packet';
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import WebSocket from 'ws';
import { eventually, freePort, SimulatedUdpGateway, startDistributedStack, startEmbeddedStack, type StackUnderTest } from '@lorawan/testing';
import { Registries, registerOtaaDevice, uid } from './devices';
import { type ConnectedGateway, connectGateways } from './gateways';
import { Api, createApplications, expectStatus, sleep } from './http-client';
import { dataUplink } from './lora-frames';

type Start = () => Promise<StackUnderTest>;
const ALL = ['is', 'js', 'ns', 'as', 'events', 'gs'] as const;
const MODES: Array<[string, Start]> = [
  ['distributed', () => startDistributedStack({ components: [...ALL] })],
  ['embedded', () => startEmbeddedStack()],
];

interface Received {
  topic: string;
  up: { end_device_ids: { device_id: string }; uplink_message?: { f_cnt?: number; frm_payload?: string }; join_accept?: object; downlink_queued?: object };
}

/** An MQTT.js client of the stack's MQTT server, no reconnection; what it receives is collected. */
async function connectClient(server: number | string, o: IClientOptions): Promise<{ client: MqttClient; received: Received[] }> {
  const url = typeof server === 'number' ? `mqtt://127.0.0.1:${server}` : server;
  const client = mqtt.connect(url, { reconnectPeriod: 0, connectTimeout: 5000, ...o });
  // Listening before CONNACK: a persistent session's messages come right behind it, in the same read.
  const received: Received[] = [];
  client.on('message', (topic, payload) => received.push({ topic, up: JSON.parse(payload.toString()) as Received['up'] }));
  await new Promise<void>((resolve, reject) => {
    client.once('connect', () => resolve());
    client.once('error', reject);
  });
  return { client, received };
}

/** The CONNACK refusal of a connection attempt (its code), or undefined when it was accepted. */
async function refusalOf(server: number | string, o: IClientOptions): Promise<number | undefined> {
  try {
    const url = typeof server === 'number' ? `mqtt://127.0.0.1:${server}` : server;
    const client = await mqtt.connectAsync(url, { reconnectPeriod: 0, connectTimeout: 5000, ...o });
    await client.endAsync();
    return undefined;
  } catch (err) {
    return (err as { code?: number }).code;
  }
}

/** A mosquitto client process, its output kept. */
function mosquitto(cmd: 'mosquitto_sub' | 'mosquitto_pub', args: string[]): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  // Unbuffered: the test waits for its SUBACK line.
  const child = spawn('stdbuf', ['-o0', cmd, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const chunks: string[] = [];
  child.stdout?.on('data', (d: Buffer) => chunks.push(d.toString()));
  child.stderr?.on('data', (d: Buffer) => chunks.push(d.toString()));
  const exited = new Promise<number | null>((res) => child.once('exit', (code) => res(code)));
  return { child, output: () => chunks.join(''), exited };
}

/** A device in the IS and the AS only: enough for simulated uplinks (`/up/simulate`). */
async function simulatedDevice(api: Api, app: string): Promise<string> {
  const dev = uid('dev-s');
  const ids = { device_id: dev, application_ids: { application_id: app } };
  expectStatus(await api.post(`/api/v3/applications/${app}/devices`, { end_device: { ids } }), 200);
  await new Registries(api).setOk('as', app, dev, { ids, formatters: { up_formatter: 'FORMATTER_NONE' } }, ['formatters']);
  return dev;
}

/** Polls `check` until it holds (every 20 ms, 5 s at most). */
async function eventuallyAsync(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; !(await check()); i++) {
    if (i > 250) throw new Error('condition not met within 5 s');
    await sleep(20);
  }
}

/**
 * Joins an OTAA device through the simulated packet forwarder (the device opens the join-accept
 * with lora-packet) and waits until the NS and the AS hold its new session: a real device is not
 * heard again before its join-accept's RX window (5 s); this one is at once.
 */
async function joinThroughGateway(
  gateway: ConnectedGateway,
  reg: Registries,
  app: string,
  dev: string,
  sim: Awaited<ReturnType<typeof registerOtaaDevice>>['sim'],
): Promise<{ joined: ReturnType<typeof sim.acceptJoin>; session: { nwkSKey: string; appSKey: string } }> {
  const before = gateway.udp.downlinks.length;
  await gateway.udp.push({ rxpk: [SimulatedUdpGateway.rxpk(sim.joinRequest(), { tmst: 1_000_000 })] });
  const joined = sim.acceptJoin(Buffer.from((await gateway.udp.waitForDownlinks(before + 1, 5000))[before].txpk.data as string, 'base64'));
  await eventuallyAsync(async () => {
    const ns = (await reg.getOk('ns', app, dev, ['pending_session'])).json as { pending_session?: { dev_addr?: string } };
    const as = (await reg.getOk('as', app, dev, ['pending_session'])).json as { pending_session?: { dev_addr?: string } };
    return ns.pending_session?.dev_addr === joined.devAddr && as.pending_session?.dev_addr === joined.devAddr;
  });
  return { joined, session: joined.keys as { nwkSKey: string; appSKey: string } };
}

/** What the device gets in RX1 of its next uplink (FCnt 1, 1 s after it): the frame's FPort, MIC check and payload, by lora-packet. */
async function nextRx1Downlink(
  gateway: ConnectedGateway,
  session: { nwkSKey: string; appSKey: string },
  devAddr: string,
): Promise<{ fPort: number | null; micOk: boolean; payload: string }> {
  const before = gateway.udp.downlinks.length;
  await gateway.udp.push({ rxpk: [SimulatedUdpGateway.rxpk(dataUplink(session, devAddr, 1, 1, Buffer.from('again')), { tmst: 20_000_000 })] });
  const down = (await gateway.udp.waitForDownlinks(before + 1, 3000))[before];
  expect(down.txpk).toMatchObject({ tmst: 21_000_000 });
  const frame = loraPacket.fromWire(Buffer.from(down.txpk.data as string, 'base64'));
  const [nwkSKey, appSKey] = [Buffer.from(session.nwkSKey, 'hex'), Buffer.from(session.appSKey, 'hex')];
  return { fPort: frame.getFPort(), micOk: loraPacket.verifyMIC(frame, nwkSKey), payload: loraPacket.decrypt(frame, appSKey, nwkSKey).toString() };
}

async function createKey(api: Api, app: string, rights: string[]): Promise<{ id: string; key: string }> {
  const res = await api.post(`/api/v3/applications/${app}/api-keys`, { name: 'mqtt', rights });
  expectStatus(res, 200);
  return { id: res.json.id as string, key: res.json.key as string };
}

describe.each(MODES)('MQTT server (%s)', (_mode, start) => {
  let stack: StackUnderTest;
  let api: Api;
  let reg: Registries;
  let gateway: ConnectedGateway;
  let port: number;
  const app = uid('mqtt-app');
  const other = uid('mqtt-other');
  const keys: Record<'full' | 'read' | 'info', string> = { full: '', read: '', info: '' };
  const opened: Array<{ close(): void }> = [];
  const clients: MqttClient[] = [];
  const track = <T extends { client: MqttClient }>(c: T): T => {
    clients.push(c.client);
    return c;
  };

  beforeAll(async () => {
    stack = await start();
    api = new Api(() => stack);
    reg = new Registries(api);
    port = stack.mqttPort as number;
    await createApplications(api, [app, other]);
    keys.full = (await createKey(api, app, ['RIGHT_APPLICATION_ALL'])).key;
    keys.read = (await createKey(api, app, ['RIGHT_APPLICATION_TRAFFIC_READ'])).key;
    keys.info = (await createKey(api, app, ['RIGHT_APPLICATION_INFO'])).key;
    [gateway] = await connectGateways(api, stack, { count: 1, replicas: false });
    opened.push(gateway.udp);
  }, 120_000);

  afterAll(async () => {
    for (const client of clients) client.end(true);
    for (const o of opened) o.close();
    await stack?.stop();
  });

  it('refuses wrong passwords (3.1.1: 4, MQTT 5: 0x86) and keys without rights (5, 0x87); SUBACK fails outside the application', async () => {
    expect(await refusalOf(port, { username: app, password: 'NNSXS.NOPE.NOPE', protocolVersion: 4 })).toBe(4);
    expect(await refusalOf(port, { username: app, password: 'NNSXS.NOPE.NOPE', protocolVersion: 5 })).toBe(0x86);
    expect(await refusalOf(port, { username: app, protocolVersion: 4 })).toBe(4);
    // A key of this application has no rights on another.
    expect(await refusalOf(port, { username: other, password: keys.full, protocolVersion: 4 })).toBe(5);
    expect(await refusalOf(port, { username: other, password: keys.full, protocolVersion: 5 })).toBe(0x87);
    expect(await refusalOf(port, { username: app, password: keys.full, protocolVersion: 5 })).toBeUndefined();

    const v4 = track(await connectClient(port, { username: app, password: keys.full, protocolVersion: 4 }));
    // MQTT.js rejects a SUBACK whose only grant is a failure (3.1.1: 0x80; MQTT 5: 0x87 not authorized).
    await expect(v4.client.subscribeAsync(`v3/${other}/devices/+/up`)).rejects.toMatchObject({ packet: { granted: [0x80] } });
    expect((await v4.client.subscribeAsync(`v3/${app}/devices/+/up`, { qos: 1 })).map((g) => g.qos)).toEqual([1]);
    // Without RIGHT_APPLICATION_TRAFFIC_READ, no subscription; without TRAFFIC_DOWN_WRITE, no downlink.
    const info = track(await connectClient(port, { username: app, password: keys.info, protocolVersion: 5 }));
    await expect(info.client.subscribeAsync(`v3/${app}/#`)).rejects.toMatchObject({ packet: { granted: [0x87] } });
    const read = track(await connectClient(port, { username: app, password: keys.read, protocolVersion: 5 }));
    await expect(read.client.publishAsync(`v3/${app}/devices/dev/down/push`, '{"downlinks":[]}', { qos: 1 })).rejects.toThrow(/Not authorized/i);

    const sub = mosquitto('mosquitto_sub', ['-h', '127.0.0.1', '-p', String(port), '-u', app, '-P', 'NNSXS.WRONG.KEY', '-t', '#', '-C', '1', '-W', '5']);
    expect(await sub.exited).not.toBe(0);
    expect(sub.output()).toMatch(/bad user name or password|not authori[sz]ed/i);
  });

  it('delivers the join-accept and uplinks to MQTT.js (3.1.1 and 5) and mosquitto_sub; a downlink published over MQTT reaches the device in RX1', async () => {
    const { dev, sim } = await registerOtaaDevice(api, app, 'FORMATTER_NONE');
    const v5 = track(await connectClient(port, { username: app, password: keys.full, protocolVersion: 5 }));
    await v5.client.subscribeAsync([`v3/${app}/devices/${dev}/join`, `v3/+/devices/${dev}/up`, `v3/${app}/devices/${dev}/down/queued`]);
    const v4 = track(await connectClient(port, { username: app, password: keys.read, protocolVersion: 4 }));
    await v4.client.subscribeAsync('#');
    const sub = mosquitto('mosquitto_sub', [
      '-h',
      '127.0.0.1',
      '-p',
      String(port),
      '-u',
      app,
      '-P',
      keys.read,
      '-V',
      'mqttv311',
      '-t',
      `v3/${app}/devices/${dev}/#`,
      '-v',
      '-d',
      '-C',
      '2',
      '-W',
      '30',
    ]);
    await eventually(() => /SUBACK/.test(sub.output()), 5000);

    const { joined, session } = await joinThroughGateway(gateway, reg, app, dev, sim);
    await eventually(() => v5.received.some((m) => m.topic === `v3/${app}/devices/${dev}/join`), 10_000);
    expect(v5.received.find((m) => m.topic.endsWith('/join'))?.up).toMatchObject({
      end_device_ids: { device_id: dev },
      join_accept: { session_key_id: expect.any(String) },
    });

    await gateway.udp.push({ rxpk: [SimulatedUdpGateway.rxpk(dataUplink(session, joined.devAddr, 0, 1, Buffer.from('hi')), { tmst: 10_000_000 })] });
    await eventually(() => v5.received.some((m) => m.topic === `v3/${app}/devices/${dev}/up`), 10_000);
    const up = v5.received.find((m) => m.topic.endsWith('/up'))?.up;
    expect(up).toMatchObject({ end_device_ids: { device_id: dev }, uplink_message: { f_cnt: 0, frm_payload: Buffer.from('hi').toString('base64') } });
    await eventually(() => v4.received.filter((m) => m.up.end_device_ids.device_id === dev).length >= 2, 5000);
    expect(v4.received.filter((m) => m.up.end_device_ids.device_id === dev).map((m) => m.topic)).toEqual([
      `v3/${app}/devices/${dev}/join`,
      `v3/${app}/devices/${dev}/up`,
    ]);
    expect(await sub.exited).toBe(0);
    const lines = sub
      .output()
      .split('\n')
      .filter((l) => l.startsWith('v3/'));
    expect(lines.map((l) => l.split(' ')[0])).toEqual([`v3/${app}/devices/${dev}/join`, `v3/${app}/devices/${dev}/up`]);
    expect(JSON.parse(lines[1].slice(lines[1].indexOf(' ') + 1))).toMatchObject({ uplink_message: { f_cnt: 0 } });

    // mosquitto_pub queues a downlink; it goes out in RX1 of the next uplink.
    const pub = mosquitto('mosquitto_pub', [
      ...['-h', '127.0.0.1', '-p', String(port), '-u', app, '-P', keys.full, '-q', '1'],
      ...[
        '-t',
        `v3/${app}/devices/${dev}/down/push`,
        '-m',
        JSON.stringify({ downlinks: [{ f_port: 9, frm_payload: Buffer.from('from mqtt').toString('base64') }] }),
      ],
    ]);
    expect(await pub.exited).toBe(0);
    await eventually(() => v5.received.some((m) => m.topic === `v3/${app}/devices/${dev}/down/queued`), 10_000);
    expect(await nextRx1Downlink(gateway, session, joined.devAddr)).toEqual({ fPort: 9, micOk: true, payload: 'from mqtt' });

    // MQTT.js (5, QoS 1: PUBACK once queued, with the queue's refusal as its reason code) pushes, then replaces the queue: only the replacement is left.
    await v5.client.publishAsync(`v3/${app}/devices/${dev}/down/push`, JSON.stringify({ downlinks: [{ f_port: 3, frm_payload: 'AQ==' }] }), { qos: 1 });
    await v5.client.publishAsync(`v3/${app}/devices/${dev}/down/replace`, JSON.stringify({ downlinks: [{ f_port: 4, frm_payload: 'Ag==' }] }), { qos: 1 });
    const queue = await api.get(`/api/v3/as/applications/${app}/devices/${dev}/down`);
    expectStatus(queue, 200);
    expect((queue.json as { downlinks: Array<{ f_port: number; frm_payload: string }> }).downlinks.map((d) => [d.f_port, d.frm_payload])).toEqual([
      [4, 'Ag=='],
    ]);
  }, 90_000);

  it("serves MQTT over WebSocket on the gateway's HTTP port: the same credentials, an OTAA device's join and uplink, a downlink pushed over it reaches RX1", async () => {
    const ws = `${stack.baseUrl.replace(/^http/, 'ws')}/mqtt`;
    // As over TCP: a wrong key is a bad password (4, 0x86), a key of this application is not authorized on another (5, 0x87).
    expect(await refusalOf(ws, { username: app, password: 'NNSXS.NOPE.NOPE', protocolVersion: 4 })).toBe(4);
    expect(await refusalOf(ws, { username: app, password: 'NNSXS.NOPE.NOPE', protocolVersion: 5 })).toBe(0x86);
    expect(await refusalOf(ws, { username: other, password: keys.full, protocolVersion: 4 })).toBe(5);
    expect(await refusalOf(ws, { username: other, password: keys.full, protocolVersion: 5 })).toBe(0x87);

    const { dev, sim } = await registerOtaaDevice(api, app, 'FORMATTER_NONE');
    const v5 = track(await connectClient(ws, { username: app, password: keys.full, protocolVersion: 5 }));
    await v5.client.subscribeAsync([`v3/${app}/devices/${dev}/join`, `v3/${app}/devices/${dev}/up`, `v3/${app}/devices/${dev}/down/queued`], { qos: 1 });
    const v4 = track(await connectClient(ws, { username: app, password: keys.read, protocolVersion: 4 }));
    await v4.client.subscribeAsync(`v3/${app}/devices/${dev}/up`);

    const { joined, session } = await joinThroughGateway(gateway, reg, app, dev, sim);
    await eventually(() => v5.received.some((m) => m.topic === `v3/${app}/devices/${dev}/join`), 10_000);
    await gateway.udp.push({ rxpk: [SimulatedUdpGateway.rxpk(dataUplink(session, joined.devAddr, 0, 1, Buffer.from('over ws')), { tmst: 10_000_000 })] });
    await eventually(() => v5.received.some((m) => m.topic.endsWith('/up')) && v4.received.length === 1, 10_000);
    for (const c of [v5, v4])
      expect(c.received.find((m) => m.topic === `v3/${app}/devices/${dev}/up`)?.up).toMatchObject({
        end_device_ids: { device_id: dev },
        uplink_message: { f_cnt: 0, frm_payload: Buffer.from('over ws').toString('base64') },
      });

    // A downlink pushed over the WebSocket (QoS 1: PUBACK once queued) is in the queue, then in RX1 of the next uplink.
    await v5.client.publishAsync(
      `v3/${app}/devices/${dev}/down/push`,
      JSON.stringify({ downlinks: [{ f_port: 12, frm_payload: Buffer.from('via ws').toString('base64') }] }),
      { qos: 1 },
    );
    const queue = await api.get(`/api/v3/as/applications/${app}/devices/${dev}/down`);
    expectStatus(queue, 200);
    expect((queue.json as { downlinks: Array<{ f_port: number }> }).downlinks.map((d) => d.f_port)).toEqual([12]);
    await eventually(() => v5.received.some((m) => m.topic === `v3/${app}/devices/${dev}/down/queued`), 10_000);
    expect(await nextRx1Downlink(gateway, session, joined.devAddr)).toEqual({ fPort: 12, micOk: true, payload: 'via ws' });

    // Counted on the gateway (and, handed over in one process, on the AS as transport ws).
    const metrics = await (await fetch(`${stack.baseUrl}/metrics`)).text();
    expect(metrics).toMatch(new RegExp(`lorawan_http_mqtt_websockets\\{upstream="${stack.mode === 'embedded' ? 'in_process' : 'tcp'}"\\} 2`));
    if (stack.mode === 'embedded') expect(metrics).toMatch(/lorawan_as_mqtt_connections\{transport="ws"\} 2/);
  }, 90_000);

  it('closes a WebSocket that sends text frames or bytes that are no MQTT, and refuses upgrades without the mqtt subprotocol; the gateway goes on', async () => {
    const url = `${stack.baseUrl.replace(/^http/, 'ws')}/mqtt`;
    const closeCode = (ws: WebSocket) => new Promise<number>((res) => ws.once('close', (code) => res(code)));
    const text = new WebSocket(url, 'mqtt');
    await new Promise((res) => text.once('open', res));
    text.send('{"not":"mqtt"}');
    expect(await closeCode(text)).toBe(1003);
    const garbage = new WebSocket(url, 'mqtt');
    await new Promise((res) => garbage.once('open', res));
    // A CONNECT whose remaining length never ends: the MQTT server drops the connection, the WebSocket closes.
    garbage.send(Buffer.from([0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00]));
    expect([1000, 1001, 1005]).toContain(await closeCode(garbage));
    const noProtocol = new WebSocket(url);
    const refused = await new Promise<{ status?: number; body: string }>((res) =>
      noProtocol.once('unexpected-response', (_req, r) => {
        let body = '';
        r.on('data', (d: Buffer) => (body += d.toString()));
        r.on('end', () => res({ status: r.statusCode, body }));
      }),
    );
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body)).toMatchObject({ code: 3, details: [expect.objectContaining({ name: 'websocket_subprotocol' })] });
    expectStatus(await api.get(`/api/v3/applications/${app}`), 200);
  });

  it.each([
    ['3.1.1, clean session false', { protocolVersion: 4 as const, clean: false }],
    ['5, session expiry', { protocolVersion: 5 as const, clean: false, properties: { sessionExpiryInterval: 300 } }],
  ])('a QoS 1 client with a persistent session (MQTT %s) gets what it missed while away', async (_name, o) => {
    const dev = await simulatedDevice(api, app);
    const clientId = uid('persistent');
    const simulate = (fCnt: number) =>
      api.post(`/api/v3/as/applications/${app}/devices/${dev}/up/simulate`, { uplink_message: { f_port: 1, f_cnt: fCnt, frm_payload: 'AQ==' } });
    const first = await connectClient(port, { username: app, password: keys.read, clientId, ...o });
    expect((await first.client.subscribeAsync(`v3/${app}/devices/${dev}/up`, { qos: 1 })).map((g) => g.qos)).toEqual([1]);
    expectStatus(await simulate(1), 200);
    await eventually(() => first.received.length === 1, 5000);
    await first.client.endAsync();
    // The server has seen the client go (else a message may still reach it, and it acknowledges it).
    await sleep(300);
    expect(first.received.length).toBe(1);
    for (const fCnt of [2, 3]) expectStatus(await simulate(fCnt), 200);
    await sleep(300);
    const again = track(await connectClient(port, { username: app, password: keys.read, clientId, ...o }));
    await eventually(() => again.received.length === 2, 5000).catch((err) => {
      throw new Error(`${(err as Error).message}: ${JSON.stringify(again.received.map((m) => [m.topic, m.up.uplink_message?.f_cnt]))}`);
    });
    expect(again.received.map((m) => m.up.uplink_message?.f_cnt)).toEqual([2, 3]);
    // A clean start ends the session: nothing more is kept for it.
    await again.client.endAsync();
    const clean = track(await connectClient(port, { username: app, password: keys.read, clientId, protocolVersion: o.protocolVersion, clean: true }));
    await sleep(300);
    expect(clean.received).toEqual([]);
  });

  it('disconnects a client at once when its key is deleted, and counts connections and messages', async () => {
    const { id, key } = await createKey(api, app, ['RIGHT_APPLICATION_TRAFFIC_READ']);
    const { client } = track(await connectClient(port, { username: app, password: key, protocolVersion: 5 }));
    const closed = new Promise<void>((res) => client.once('close', () => res()));
    expectStatus(await api.delete(`/api/v3/applications/${app}/api-keys/${id}`), 200);
    const t0 = Date.now();
    await closed;
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(await refusalOf(port, { username: app, password: key, protocolVersion: 4 })).toBe(4);

    const metricsUrl = stack.mode === 'embedded' ? `${stack.baseUrl}/metrics` : `http://127.0.0.1:${stack.healthPorts.get('as#0')}/metrics`;
    const metrics = await (await fetch(metricsUrl)).text();
    expect(metrics).toMatch(/lorawan_as_mqtt_connections\{transport="tcp"\} [1-9]/);
    expect(metrics).toMatch(/lorawan_as_mqtt_messages_total\{direction="out"\} [1-9]/);
    expect(metrics).toMatch(/lorawan_as_mqtt_messages_total\{direction="in"\} [1-9]/);
  });
});

describe('MQTT server with two AS replicas', () => {
  let stack: StackUnderTest;
  let api: Api;
  const app = uid('mqtt-two');
  const clients: MqttClient[] = [];

  beforeAll(async () => {
    stack = await startDistributedStack({ components: ['is', 'as'], replicas: 2 });
    api = new Api(() => stack);
    await createApplications(api, [app]);
  }, 120_000);

  afterAll(async () => {
    for (const client of clients) client.end(true);
    await stack?.stop();
  });

  it('each replica delivers every application message to its own clients, whichever replica handled it', async () => {
    const { key } = await createKey(api, app, ['RIGHT_APPLICATION_TRAFFIC_READ']);
    const dev = await simulatedDevice(api, app);
    const subscribers: Array<{ client: MqttClient; received: Received[] }> = [];
    for (const replica of ['as#0', 'as#1']) {
      const c = await connectClient(stack.mqttPorts?.get(replica) as number, { username: app, password: key, protocolVersion: 5 });
      clients.push(c.client);
      await c.client.subscribeAsync(`v3/${app}/devices/+/up`);
      subscribers.push(c);
    }
    // The gateway's RPCs go to either replica (queue group): each message is handled by one.
    for (let fCnt = 1; fCnt <= 6; fCnt++)
      expectStatus(
        await api.post(`/api/v3/as/applications/${app}/devices/${dev}/up/simulate`, { uplink_message: { f_port: 1, f_cnt: fCnt, frm_payload: 'AQ==' } }),
        200,
      );
    await eventually(() => subscribers.every((s) => s.received.length === 6), 5000);
    for (const s of subscribers) expect(s.received.map((m) => m.up.uplink_message?.f_cnt)).toEqual([1, 2, 3, 4, 5, 6]);
  });
});

describe('MQTT server over TLS (embedded)', () => {
  let stack: StackUnderTest;
  let api: Api;
  let tlsPort: number;
  const dir = mkdtempSync(join(tmpdir(), 'mqtt-tls-'));
  const app = uid('mqtt-tls');
  const clients: MqttClient[] = [];

  beforeAll(async () => {
    // A self-signed certificate for 127.0.0.1, made by openssl.
    execFileSync(
      'openssl',
      [
        ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2'],
        ...['-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'],
      ],
      { stdio: 'pipe' },
    );
    tlsPort = await freePort();
    stack = await startEmbeddedStack({
      env: { MQTT_TLS_PORT: String(tlsPort), MQTT_TLS_CERT_FILE: join(dir, 'cert.pem'), MQTT_TLS_KEY_FILE: join(dir, 'key.pem') },
    });
    api = new Api(() => stack);
    await createApplications(api, [app]);
  }, 120_000);

  afterAll(async () => {
    for (const client of clients) client.end(true);
    await stack?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves MQTT.js and mosquitto_sub over TLS (MQTTS), with the same credentials', async () => {
    const { key } = await createKey(api, app, ['RIGHT_APPLICATION_TRAFFIC_READ']);
    const dev = await simulatedDevice(api, app);
    const ca = readFileSync(join(dir, 'cert.pem'));
    const tls = await connectClient(`mqtts://127.0.0.1:${tlsPort}`, { username: app, password: key, protocolVersion: 5, ca });
    clients.push(tls.client);
    await tls.client.subscribeAsync(`v3/${app}/devices/+/up`);
    const sub = mosquitto('mosquitto_sub', [
      ...['-h', '127.0.0.1', '-p', String(tlsPort), '--cafile', join(dir, 'cert.pem'), '-u', app, '-P', key],
      ...['-t', `v3/${app}/devices/${dev}/up`, '-v', '-d', '-C', '1', '-W', '20'],
    ]);
    await eventually(() => /SUBACK/.test(sub.output()), 5000);
    expectStatus(
      await api.post(`/api/v3/as/applications/${app}/devices/${dev}/up/simulate`, { uplink_message: { f_port: 1, f_cnt: 1, frm_payload: 'AQ==' } }),
      200,
    );
    await eventually(() => tls.received.length === 1, 5000);
    expect(tls.received.map((m) => m.topic)).toEqual([`v3/${app}/devices/${dev}/up`]);
    expect(await sub.exited).toBe(0);
    expect(sub.output()).toContain(`v3/${app}/devices/${dev}/up {`);
    const metrics = await (await fetch(`${stack.baseUrl}/metrics`)).text();
    expect(metrics).toMatch(/lorawan_as_mqtt_connections\{transport="tls"\} [1-9]/);
  });
});
