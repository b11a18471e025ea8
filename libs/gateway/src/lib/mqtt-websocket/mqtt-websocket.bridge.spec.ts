import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect as connectTcp, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as connectTls } from 'node:tls';
import type { Duplex } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import mqtt, { type MqttClient } from 'mqtt';
import * as mqttPacket from 'mqtt-packet';
import WebSocket from 'ws';
import { mqttWebSockets, mqttWebSocketsRefused } from '@lorawan/observability';
import { makeCertificates } from '@lorawan/testing';
import { MqttWebSocketBridge } from './mqtt-websocket.bridge';
import { inProcessMqttUpstream, type MqttUpstream, tcpMqttUpstream } from './mqtt-upstream';

/**
 * A small MQTT 3.1.1 server over any byte stream, parsed and written with mqtt-packet: password
 * `good` is accepted (anything else CONNACK 5, then the connection ends), a SUBSCRIBE is granted
 * and answered with one message on `v3/app/devices/dev/up`, a PUBLISH is kept (PUBACK at QoS 1),
 * a malformed packet closes the connection. The bridge is tested against it over TCP and in-process.
 */
class SmallMqttServer {
  readonly published: Array<{ topic: string; payload: string }> = [];
  connections = 0;
  closed = 0;

  serve(stream: Duplex): void {
    this.connections++;
    const parser = mqttPacket.parser();
    const send = (packet: mqttPacket.Packet) => stream.write(mqttPacket.generate(packet));
    parser.on('packet', (packet) => {
      switch (packet.cmd) {
        case 'connect':
          if (packet.password?.toString() !== 'good') {
            send({ cmd: 'connack', returnCode: 5, sessionPresent: false });
            stream.end();
            return;
          }
          return void send({ cmd: 'connack', returnCode: 0, sessionPresent: false });
        case 'subscribe':
          send({ cmd: 'suback', messageId: packet.messageId, granted: packet.subscriptions.map(() => 0) });
          return void send({ cmd: 'publish', topic: 'v3/app/devices/dev/up', payload: Buffer.from('{"f_cnt":7}'), qos: 0, dup: false, retain: false });
        case 'publish':
          this.published.push({ topic: packet.topic, payload: packet.payload.toString() });
          if (packet.qos === 1) send({ cmd: 'puback', messageId: packet.messageId });
          return;
        case 'pingreq':
          return void send({ cmd: 'pingresp' });
        case 'disconnect':
          return void stream.end();
        // Nothing else is answered by this server.
        case 'auth':
        case 'connack':
        case 'pingresp':
        case 'puback':
        case 'pubcomp':
        case 'pubrec':
        case 'pubrel':
        case 'suback':
        case 'unsuback':
        case 'unsubscribe':
          return;
      }
    });
    parser.on('error', () => stream.destroy());
    stream.on('data', (data: Buffer) => parser.parse(data));
    stream.on('error', () => stream.destroy());
    stream.on('close', () => this.closed++);
  }
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  return (server.address() as AddressInfo).port;
}

/** An HTTP server (HTTPS with `https`) with the bridge at `/mqtt` (and `/ping`, an ordinary route). */
async function edge(
  upstream: MqttUpstream | undefined,
  https?: { cert: Buffer; key: Buffer },
): Promise<{ app: FastifyInstance; bridge: MqttWebSocketBridge; port: number }> {
  const app = (https ? Fastify({ https }) : Fastify()) as unknown as FastifyInstance;
  const bridge = new MqttWebSocketBridge({ path: '/mqtt', upstream, maxPayload: 64 * 1024 });
  bridge.register(app);
  app.get('/ping', async () => 'pong');
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, bridge, port: (app.server.address() as AddressInfo).port };
}

async function connectClient(url: string, password: string): Promise<MqttClient> {
  return mqtt.connectAsync(url, { username: 'app', password, protocolVersion: 4, reconnectPeriod: 0, connectTimeout: 5000 });
}

/** The raw HTTP answer to `request`, read until the server closes or `until` matches (over TLS with `ca`). */
function rawHttp(port: number, request: string, until?: RegExp, ca?: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket: Socket = ca
      ? connectTls({ host: '127.0.0.1', port, ca }, () => socket.write(request))
      : connectTcp(port, '127.0.0.1', () => socket.write(request));
    let text = '';
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1');
      if (until?.test(text)) {
        socket.destroy();
        resolve(text);
      }
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(text));
  });
}

function closeCode(ws: WebSocket): Promise<number> {
  return new Promise((res) => ws.once('close', (code) => res(code)));
}

function until(check: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const poll = () => (check() ? resolve() : setTimeout(poll, 10));
    poll();
  });
}

async function gauge(upstream: string): Promise<number> {
  return (await mqttWebSockets.get()).values.find((v) => v.labels.upstream === upstream)?.value ?? 0;
}

async function refused(reason: string): Promise<number> {
  return (await mqttWebSocketsRefused.get()).values.find((v) => v.labels.reason === reason)?.value ?? 0;
}

describe.each([
  ['tcp', 'piped to the MQTT server over TCP'],
  ['in_process', 'handed to the MQTT server of the process'],
] as const)('MqttWebSocketBridge (%s: %s)', (kind, _how) => {
  const mqttServer = new SmallMqttServer();
  const tcp = createServer((socket) => mqttServer.serve(socket));
  let port: number;
  let running: Awaited<ReturnType<typeof edge>>;
  const clients: MqttClient[] = [];

  beforeAll(async () => {
    const tcpPort = await listen(tcp);
    running = await edge(
      kind === 'tcp' ? tcpMqttUpstream({ host: '127.0.0.1', port: tcpPort }, 2000) : inProcessMqttUpstream({ accept: (s) => mqttServer.serve(s) }),
    );
    port = running.port;
  });

  afterAll(async () => {
    for (const c of clients) c.end(true);
    await running.app.close();
    await new Promise<void>((res) => tcp.close(() => res()));
  });

  it('carries MQTT both ways: CONNECT, SUBSCRIBE and its message, a QoS 1 PUBLISH and its PUBACK; counted while open', async () => {
    const client = await connectClient(`ws://127.0.0.1:${port}/mqtt`, 'good');
    clients.push(client);
    expect(await gauge(kind)).toBe(1);
    const message = new Promise<[string, string]>((res) => client.once('message', (topic, payload) => res([topic, payload.toString()])));
    await client.subscribeAsync('v3/app/devices/+/up');
    expect(await message).toEqual(['v3/app/devices/dev/up', '{"f_cnt":7}']);
    await client.publishAsync('v3/app/devices/dev/down/push', '{"downlinks":[]}', { qos: 1 });
    expect(mqttServer.published).toContainEqual({ topic: 'v3/app/devices/dev/down/push', payload: '{"downlinks":[]}' });
    const closedBefore = mqttServer.closed;
    await client.endAsync();
    await until(() => mqttServer.closed === closedBefore + 1);
    await until(() => running.bridge['open'].size === 0);
    expect(await gauge(kind)).toBe(0);
  });

  it("passes the server's CONNACK refusal on (wrong password: 5, not authorized), then closes", async () => {
    const closed = mqttServer.closed;
    await expect(connectClient(`ws://127.0.0.1:${port}/mqtt`, 'wrong')).rejects.toMatchObject({ code: 5 });
    await until(() => mqttServer.closed === closed + 1);
  });

  it('closes with 1003 on a text frame, without passing it on; the MQTT connection ends too', async () => {
    const connections = mqttServer.connections;
    const closed = mqttServer.closed;
    const ws = new WebSocket(`ws://127.0.0.1:${port}/mqtt`, 'mqtt');
    await new Promise((res) => ws.once('open', res));
    expect(ws.protocol).toBe('mqtt');
    ws.send('\u0010\u0000');
    expect(await closeCode(ws)).toBe(1003);
    await until(() => mqttServer.closed === closed + 1);
    expect(mqttServer.connections).toBe(connections + 1);
  });

  it('closes cleanly when the bytes are no MQTT (the server drops the connection), and serves the next client', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/mqtt`, ['mqttv3.1']);
    await new Promise((res) => ws.once('open', res));
    expect(ws.protocol).toBe('mqttv3.1');
    ws.send(Buffer.from([0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]));
    expect([1000, 1001, 1005, 1006]).toContain(await closeCode(ws));
    const client = await connectClient(`ws://127.0.0.1:${port}/mqtt`, 'good');
    await client.endAsync();
  });

  it('closes with 1009 on a message over maxPayload', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/mqtt`, 'mqtt');
    await new Promise((res) => ws.once('open', res));
    ws.send(Buffer.alloc(64 * 1024 + 1));
    expect(await closeCode(ws)).toBe(1009);
  });

  it('refuses before the upgrade, in the API error shape: no mqtt subprotocol 400, another path 404, a malformed handshake 400; a plain GET is 426', async () => {
    const handshake = (path: string, protocol?: string, key = 'dGhlIHNhbXBsZSBub25jZQ==') =>
      `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${key}\r\n${protocol ? `Sec-WebSocket-Protocol: ${protocol}\r\n` : ''}\r\n`;
    const before = await refused('subprotocol');
    const noProtocol = await rawHttp(port, handshake('/mqtt'));
    expect(noProtocol).toMatch(/^HTTP\/1.1 400 /);
    expect(JSON.parse(noProtocol.slice(noProtocol.indexOf('\r\n\r\n') + 4))).toMatchObject({
      code: 3,
      details: [expect.objectContaining({ namespace: 'pkg/applicationserver/io/mqtt', name: 'websocket_subprotocol' })],
    });
    expect(await rawHttp(port, handshake('/mqtt', 'graphql-ws'))).toMatch(/^HTTP\/1.1 400 /);
    expect(await refused('subprotocol')).toBe(before + 2);
    const elsewhere = await rawHttp(port, handshake('/api/v3/mqtt', 'mqtt'));
    expect(elsewhere).toMatch(/^HTTP\/1.1 404 /);
    expect(elsewhere).toContain('{"code":5,"message":"Not Found"}');
    const badKey = await rawHttp(port, handshake('/mqtt', 'mqtt', 'short'));
    expect(badKey).toMatch(/^HTTP\/1.1 400 /);
    expect(badKey).toContain('Sec-WebSocket-Key');
    const plain = await fetch(`http://127.0.0.1:${port}/mqtt`);
    expect(plain.status).toBe(426);
    expect(plain.headers.get('upgrade')).toBe('websocket');
    expect(await plain.json()).toMatchObject({ code: 3, details: [expect.objectContaining({ name: 'websocket_upgrade_required' })] });
  });

  it('answers other upgrades (h2c) as ordinary HTTP/1.1 requests, keeping the connection', async () => {
    const h2c = 'GET /ping HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA\r\n\r\n';
    const answer = await rawHttp(port, `${h2c}GET /ping HTTP/1.1\r\nHost: x\r\n\r\n`, /pong[\s\S]*pong/);
    expect(answer.match(/HTTP\/1.1 200 OK/g)).toHaveLength(2);
    expect(answer).not.toMatch(/101 Switching/);
  });

  it('closes its WebSockets with 1001 when the gateway shuts down, and refuses new ones (503)', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/mqtt`, 'mqtt');
    await new Promise((res) => ws.once('open', res));
    const code = closeCode(ws);
    running.bridge.close();
    expect(await code).toBe(1001);
    const again = new WebSocket(`ws://127.0.0.1:${port}/mqtt`, 'mqtt');
    const status = await new Promise<number | undefined>((res) => again.once('unexpected-response', (_req, response) => res(response.statusCode)));
    expect(status).toBe(503);
  });
});

describe('MqttWebSocketBridge without a reachable MQTT server', () => {
  it.each([
    ['none configured', () => undefined],
    ['nothing listening at MQTT_WS_UPSTREAM', () => tcpMqttUpstream({ host: '127.0.0.1', port: closedPort }, 2000)],
  ])('answers 503 in the API error shape (%s)', async (_name, upstream) => {
    const running = await edge(upstream());
    try {
      const ws = new WebSocket(`ws://127.0.0.1:${running.port}/mqtt`, 'mqtt');
      const response = await new Promise<{ status?: number; body: string }>((res) =>
        ws.once('unexpected-response', (_req, r) => {
          let body = '';
          r.on('data', (d: Buffer) => (body += d.toString()));
          r.on('end', () => res({ status: r.statusCode, body }));
        }),
      );
      expect(response.status).toBe(503);
      expect(JSON.parse(response.body)).toMatchObject({ code: 14, details: [expect.objectContaining({ name: 'mqtt_unavailable' })] });
    } finally {
      await running.app.close();
    }
  });

  let closedPort = 0;
  beforeAll(async () => {
    // A port that was free a moment ago: nothing listens there now.
    const server = createServer();
    closedPort = await listen(server);
    await new Promise<void>((res) => server.close(() => res()));
  });
});

describe('MqttWebSocketBridge on HTTPS (wss)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mqtt-wss-'));
  const files = makeCertificates(dir);
  const ca = readFileSync(files.ca);
  const mqttServer = new SmallMqttServer();
  let running: Awaited<ReturnType<typeof edge>>;

  beforeAll(async () => {
    running = await edge(inProcessMqttUpstream({ accept: (s) => mqttServer.serve(s) }), {
      cert: readFileSync(files.serverCert),
      key: readFileSync(files.serverKey),
    });
  });

  afterAll(async () => {
    await running.app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves MQTT over wss://, and h2c upgrades inside TLS as ordinary requests', async () => {
    const client = await mqtt.connectAsync(`wss://127.0.0.1:${running.port}/mqtt`, {
      username: 'app',
      password: 'good',
      protocolVersion: 4,
      reconnectPeriod: 0,
      connectTimeout: 5000,
      ca,
    });
    await client.publishAsync('v3/app/devices/dev/down/replace', '{"downlinks":[]}', { qos: 1 });
    expect(mqttServer.published).toEqual([{ topic: 'v3/app/devices/dev/down/replace', payload: '{"downlinks":[]}' }]);
    await client.endAsync();
    const h2c = 'GET /ping HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA\r\n\r\n';
    const answer = await rawHttp(running.port, `${h2c}GET /ping HTTP/1.1\r\nHost: x\r\n\r\n`, /pong[\s\S]*pong/, ca);
    expect(answer.match(/HTTP\/1.1 200 OK/g)).toHaveLength(2);
  });
});
