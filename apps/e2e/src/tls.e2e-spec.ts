/**
 * TLS and broker access between components: the distributed stack (every component and the
 * gateway as its own process) on a NATS and a MariaDB of the suite's own, both with TLS from a CA
 * this suite makes (openssl), NATS with mutual TLS and the users and subject permissions
 * `npm run nats-config` generates, the database user `REQUIRE SSL`, and the gateway serving HTTPS.
 * Asserted: a device registration over HTTPS works end to end (IS, JS, NS, AS); a NATS client
 * without TLS, without a client certificate or with a wrong password is refused; a client with the
 * AS's credentials cannot publish an IS request nor subscribe to another component's subjects.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect as connectSocket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type NatsConnection, type NatsError } from 'nats';
import { createConnection } from 'mysql2/promise';
import { Agent, fetch } from 'undici';
import WebSocket from 'ws';
import { healthSubject, NATS_PRINCIPALS, type NatsPrincipal, natsAuthorization, RPCS } from '@lorawan/api';
import { encodeRequest } from '@lorawan/transport';
import {
  makeCertificates,
  missingPrograms,
  type PrivateService,
  SimulatedOtaaDevice,
  SimulatedUdpGateway,
  startDistributedStack,
  startPrivateMariaDb,
  startPrivateNats,
  type StackUnderTest,
} from '@lorawan/testing';
import { abpAsDevice, NS_OTAA, NS_OTAA_PATHS, otaaIds, randomDevAddr, randomEui, randomKey, registryDevicePath, sampleDevice, uid } from './devices';

const COMPONENTS = ['is', 'js', 'ns', 'as', 'events', 'gs'] as const;
const PREFIX = `tls${Date.now().toString(36)}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The user a process of the stack connects as: its component's (`is#0` → `is`), or the gateway's. */
const principalOf = (name: string) => name.split('#')[0] as NatsPrincipal;

const missing = [...missingPrograms('nats'), ...missingPrograms('mariadb')];
if (missing.length > 0) throw new Error(`tls.e2e-spec needs ${missing.map((m) => `${m.path} (${m.package}, or ${m.env})`).join(', ')}`);

describe('TLS and broker access between components', () => {
  let dir: string;
  let certs: ReturnType<typeof makeCertificates>;
  let passwords: Record<NatsPrincipal, string>;
  let nats: PrivateService;
  let mariadb: PrivateService;
  let stack: StackUnderTest;
  let https: Agent;
  const clients: NatsConnection[] = [];
  let registeredApp = '';

  /** A NATS client as a component would be (TLS with the CA and the client certificate), with `o` over that. */
  const natsClient = async (user: string, password: string, o: { clientCert?: boolean } = {}) => {
    const nc = await connect({
      servers: nats.url,
      user,
      pass: password,
      inboxPrefix: `_INBOX_${user}`,
      timeout: 5000,
      reconnect: false,
      tls: { caFile: certs.ca, ...(o.clientCert === false ? {} : { certFile: certs.clientCert, keyFile: certs.clientKey }) },
    });
    clients.push(nc);
    return nc;
  };

  /** The permission errors the server sends a connection, as nats.js reports them. */
  const errorsOf = (nc: NatsConnection) => {
    const errors: string[] = [];
    void (async () => {
      for await (const status of nc.status()) {
        if (String(status.type) === 'error') errors.push(`${String(status.data)}: ${status.permissionContext?.operation} ${status.permissionContext?.subject}`);
      }
    })();
    return errors;
  };

  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${stack.baseUrl}${path}`, {
      method,
      dispatcher: https,
      headers: { authorization: `Bearer ${stack.adminKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    return { status: res.status, text, json: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lw-tls-'));
    certs = makeCertificates(dir);
    https = new Agent({ connect: { ca: readFileSync(certs.ca) } });
    passwords = Object.fromEntries(NATS_PRINCIPALS.map((p) => [p, `pw-${p}-${Math.random().toString(36).slice(2)}`])) as Record<NatsPrincipal, string>;
    const tls = { cert_file: certs.serverCert, key_file: certs.serverKey, ca_file: certs.ca, verify: true, timeout: 5 };
    nats = await startPrivateNats({
      tls: true,
      config: `tls: ${JSON.stringify(tls)}\nauthorization: ${JSON.stringify(natsAuthorization(passwords, PREFIX))}\n`,
    });
    mariadb = await startPrivateMariaDb({ ssl: { caFile: certs.ca, certFile: certs.serverCert, keyFile: certs.serverKey } });
    // The stack's database user may only connect over TLS.
    const root = await createConnection({ host: '127.0.0.1', port: mariadb.port, user: 'root' });
    try {
      await root.query(`CREATE USER 'lw'@'127.0.0.1' IDENTIFIED BY 'lw-secret' REQUIRE SSL`);
      await root.query(`GRANT ALL PRIVILEGES ON *.* TO 'lw'@'127.0.0.1'`);
    } finally {
      await root.end();
    }
    stack = await startDistributedStack({
      components: [...COMPONENTS],
      natsUrl: nats.url,
      mysqlUrl: `mysql://lw:lw-secret@127.0.0.1:${mariadb.port}`,
      mysqlTls: { caFile: certs.ca },
      httpsCa: readFileSync(certs.ca, 'utf8'),
      env: {
        NATS_SUBJECT_PREFIX: PREFIX,
        NATS_TLS_CA_FILE: certs.ca,
        NATS_TLS_CERT_FILE: certs.clientCert,
        NATS_TLS_KEY_FILE: certs.clientKey,
        DB_TLS_CA_FILE: certs.ca,
        HTTP_TLS_CERT_FILE: certs.serverCert,
        HTTP_TLS_KEY_FILE: certs.serverKey,
      },
      envOf: (name) => ({ NATS_USER: principalOf(name), NATS_PASSWORD: passwords[principalOf(name)] }),
    });
  });

  afterAll(async () => {
    for (const nc of clients) await nc.close().catch(() => undefined);
    await stack?.stop();
    await https?.close();
    await nats?.stop();
    await mariadb?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('registers a device over HTTPS through the gateway, in the IS, JS, NS and AS', async () => {
    expect(stack.baseUrl).toMatch(/^https:\/\//);
    const app = (registeredApp = uid('tls-app'));
    const created = await api('POST', '/api/v3/users/admin/applications', { application: { ids: { application_id: app } } });
    expect(created.status).toBe(200);
    const dev = uid('dev');
    const ids = otaaIds(dev);
    const inIs = await api('POST', `/api/v3/applications/${app}/devices`, {
      end_device: { ids: { ...ids, application_ids: { application_id: app } }, name: 'over TLS' },
    });
    expect(inIs.status).toBe(200);
    for (const c of ['js', 'ns', 'as'] as const) {
      const s = c === 'ns' ? { device: { ids, ...NS_OTAA }, paths: NS_OTAA_PATHS } : sampleDevice(c, ids);
      const set = await api('PUT', registryDevicePath(c, app, dev), {
        end_device: { ...s.device, ids: { ...ids, application_ids: { application_id: app } } },
        field_mask: { paths: s.paths },
      });
      expect({ c, status: set.status, text: set.text }).toEqual({ c, status: 200, text: expect.any(String) });
    }
    const got = await api('GET', `${registryDevicePath('ns', app, dev)}?field_mask=frequency_plan_id`);
    expect(got.json).toEqual(expect.objectContaining({ frequency_plan_id: 'EU_863_870' }));
    const fromIs = await api('GET', `/api/v3/applications/${app}/devices/${dev}?field_mask=name`);
    expect(fromIs.json).toEqual(expect.objectContaining({ name: 'over TLS' }));
    // Plain HTTP on the HTTPS port gets no API answer.
    const plain = await globalThis.fetch(stack.baseUrl.replace('https:', 'http:') + '/readyz').then(
      (res) => res.status,
      () => 'refused',
    );
    expect(plain).not.toBe(200);
  });

  it('streams the events of the registration over HTTPS (events service, its JetStream history, the gateway)', async () => {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 15_000);
    let text = '';
    try {
      const res = await fetch(`${stack.baseUrl}/api/v3/events`, {
        method: 'POST',
        dispatcher: https,
        signal: controller.signal,
        headers: { authorization: `Bearer ${stack.adminKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ identifiers: [{ application_ids: { application_id: registeredApp } }], tail: 20 }),
      });
      expect(res.status).toBe(200);
      const decoder = new TextDecoder();
      for await (const chunk of res.body ?? []) {
        text += decoder.decode(chunk as Uint8Array, { stream: true });
        if (text.includes('end_device.create')) break;
      }
    } finally {
      clearTimeout(timer);
      controller.abort();
    }
    expect(text).toContain('end_device.create');
  });

  it('joins an OTAA device through a UDP gateway: GS → NS (dedup KV) → JS → NS → GS → join-accept, over TLS NATS', async () => {
    const app = registeredApp;
    const eui = randomEui();
    const gatewayId = uid('gtw');
    const gateway = await api('POST', '/api/v3/users/admin/gateways', {
      gateway: { ids: { gateway_id: gatewayId, eui }, frequency_plan_id: 'EU_863_870_TTN' },
    });
    expect(gateway.status).toBe(200);
    const udp = new SimulatedUdpGateway(eui, { host: '127.0.0.1', port: stack.udpPort ?? 0 });
    await udp.open();
    try {
      expect(await udp.pull()).toBe(0x04);
      const dev = uid('dev');
      const [devEui, joinEui] = [randomEui(), randomEui()];
      const ids = { device_id: dev, dev_eui: devEui, join_eui: joinEui, application_ids: { application_id: app } };
      const appKey = randomKey();
      expect((await api('POST', `/api/v3/applications/${app}/devices`, { end_device: { ids } })).status).toBe(200);
      const sets: Array<['js' | 'ns' | 'as', Record<string, unknown>, string[]]> = [
        ['js', { ids, root_keys: { app_key: { key: appKey } } }, ['root_keys.app_key.key']],
        ['ns', { ids, ...NS_OTAA, frequency_plan_id: 'EU_863_870_TTN' }, NS_OTAA_PATHS],
        ['as', { ids }, []],
      ];
      for (const [c, device, paths] of sets)
        expect((await api('PUT', registryDevicePath(c, app, dev), { end_device: device, field_mask: { paths } })).status).toBe(200);
      const sim = new SimulatedOtaaDevice({ joinEui, devEui, appKey, macVersion: 'MAC_V1_0_3' });
      await udp.push({ rxpk: [SimulatedUdpGateway.rxpk(sim.joinRequest(), { tmst: 100_000 })] });
      const [down] = await udp.waitForDownlinks(1, 10_000);
      const joined = sim.acceptJoin(Buffer.from(down.txpk.data as string, 'base64'));
      expect(joined.devAddr).toMatch(/^[0-9A-F]{8}$/);
    } finally {
      udp.close();
    }
  });

  it('a Basics Station gateway’s key is checked by the IS for the GS through its NATS permissions: the link key opens, a wrong key gets 401 (not 503)', async () => {
    const eui = randomEui();
    const gatewayId = uid('lbs');
    expect(
      (await api('POST', '/api/v3/users/admin/gateways', { gateway: { ids: { gateway_id: gatewayId, eui }, frequency_plan_id: 'EU_863_870' } })).status,
    ).toBe(200);
    const key = await api('POST', `/api/v3/gateways/${gatewayId}/api-keys`, { name: 'lns', rights: ['RIGHT_GATEWAY_LINK'] });
    expect(key.status).toBe(200);
    const open = (authorization: string) =>
      new Promise<number>((resolve, reject) => {
        const ws = new WebSocket(`ws://127.0.0.1:${stack.lbsPort}/traffic/eui-${eui}`, { headers: { authorization } });
        ws.once('open', () => {
          ws.close();
          resolve(101);
        });
        ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.once('error', reject);
      });
    expect(await open(`Bearer ${key.json?.key as string}`)).toBe(101);
    expect(await open(`Bearer ${(key.json?.key as string).slice(0, -4)}AAAA`)).toBe(401);
  });

  it('the gateway credentials reach a component over TLS (the positive control)', async () => {
    const nc = await natsClient('gateway', passwords.gateway);
    const reply = await nc.request(`${PREFIX}.${healthSubject('is')}`, encodeRequest({}), { timeout: 5000 });
    expect(reply.data.length).toBeGreaterThan(0);
  });

  it('refuses a client without TLS', async () => {
    const port = Number(new URL(nats.url).port);
    const answer = await new Promise<string>((resolve) => {
      const socket = connectSocket({ host: '127.0.0.1', port });
      let seen = '';
      const timer = setTimeout(() => done('timeout'), 5000);
      const done = (why: string) => {
        clearTimeout(timer);
        socket.destroy();
        resolve(`${why}: ${seen}`);
      };
      socket.on('data', (d: Buffer) => {
        seen += d.toString();
        if (seen.startsWith('INFO ') && !seen.includes('CONNECT-SENT')) {
          socket.write(`CONNECT ${JSON.stringify({ user: 'gateway', pass: passwords.gateway, verbose: false, pedantic: false })}\r\nPING\r\n`);
          seen += 'CONNECT-SENT';
        }
        if (seen.includes('PONG')) done('pong');
        if (seen.includes('-ERR')) done('error');
      });
      socket.on('close', () => done('closed'));
      socket.on('error', () => done('closed'));
    });
    expect(answer).not.toMatch(/^pong/);
    expect(answer).not.toMatch(/^timeout/);
  });

  it('refuses a client without a client certificate, or with a wrong password', async () => {
    await expect(natsClient('gateway', passwords.gateway, { clientCert: false })).rejects.toThrow();
    await expect(natsClient('as', 'not-the-password')).rejects.toThrow(/Authorization|AUTHORIZATION/);
    await expect(natsClient('nobody', passwords.as)).rejects.toThrow(/Authorization|AUTHORIZATION/);
  });

  it("queues a webhook delivery: the AS's JetStream publishes are acknowledged on its own inbox", async () => {
    const app = registeredApp;
    const dev = uid('abp');
    const ids = { ...otaaIds(dev), application_ids: { application_id: app } };
    expect((await api('POST', `/api/v3/applications/${app}/devices`, { end_device: { ids } })).status).toBe(200);
    const as = abpAsDevice(ids, randomDevAddr(), randomKey());
    expect((await api('PUT', registryDevicePath('as', app, dev), { end_device: as.device, field_mask: { paths: as.paths } })).status).toBe(200);
    const webhook = await api('PUT', `/api/v3/as/webhooks/${app}/hook`, {
      webhook: {
        ids: { webhook_id: 'hook', application_ids: { application_id: app } },
        base_url: 'https://webhooks.example.com',
        format: 'json',
        uplink_message: {},
      },
      field_mask: { paths: ['base_url', 'format', 'uplink_message'] },
    });
    expect(webhook.status).toBe(200);
    // Answered once the delivery job is in the WEBHOOKS stream (the stream's acknowledgement received).
    const simulated = await api('POST', `/api/v3/as/applications/${app}/devices/${dev}/up/simulate`, {
      uplink_message: { f_port: 1, f_cnt: 1, frm_payload: Buffer.from('hello').toString('base64') },
    });
    expect({ status: simulated.status, json: simulated.json }).toEqual({ status: 200, json: {} });
  });

  it('no process of the stack met a permissions violation on its own subjects', () => {
    expect(stack.logs()).not.toMatch(/PERMISSIONS_VIOLATION|Permissions Violation/i);
  });

  it("does not let the AS's credentials publish an IS request, nor requests of the HTTP API", async () => {
    const nc = await natsClient('as', passwords.as);
    const errors = errorsOf(nc);
    const isCreate = `${PREFIX}.${RPCS['ApplicationRegistry.Create'].subject}`;
    const isAuthorize = `${PREFIX}.${RPCS['EntityAccess.Authorize'].subject}`;
    const jsJoin = `${PREFIX}.${RPCS['NsJs.HandleJoin'].subject}`;
    for (const subject of [isCreate, isAuthorize, jsJoin]) nc.publish(subject, new TextEncoder().encode('{}'));
    // What the AS may publish goes through (an AS → NS call), without an error.
    nc.publish(`${PREFIX}.${RPCS['AsNs.DownlinkQueueList'].subject}`, new TextEncoder().encode('{}'));
    await nc.flush();
    for (let i = 0; i < 50 && errors.length < 3; i++) await sleep(100);
    expect(errors).toEqual(expect.arrayContaining([expect.stringContaining(isCreate), expect.stringContaining(isAuthorize), expect.stringContaining(jsJoin)]));
    expect(errors.every((e) => e.startsWith('PERMISSIONS_VIOLATION: publish '))).toBe(true);
    expect(errors.some((e) => e.includes('AsNs'))).toBe(false);
  });

  it("does not let the AS's credentials subscribe to other components' subjects", async () => {
    const nc = await natsClient('as', passwords.as);
    const denied = async (subject: string) =>
      new Promise<string>((resolve) => {
        const timer = setTimeout(() => resolve('allowed'), 3000);
        nc.subscribe(subject, {
          callback: (err: NatsError | null) => {
            if (!err) return;
            clearTimeout(timer);
            resolve(err.message);
          },
        });
      });
    for (const subject of [`${PREFIX}.rpc.is.>`, `${PREFIX}.stream.*`, '_INBOX_gateway.>', `${PREFIX}.events.>`, `${PREFIX}.ns.dedup.>`]) {
      expect({ subject, answer: await denied(subject) }).toEqual({ subject, answer: expect.stringMatching(/Permissions Violation for Subscription/i) });
    }
    // Its own RPC subjects it may serve; the IS's access invalidations it follows (its MQTT clients' keys).
    expect(await denied(`${PREFIX}.${RPCS['NsAs.HandleUplink'].subject}`)).toBe('allowed');
    expect(await denied(`${PREFIX}.access.invalidate`)).toBe('allowed');
  });
});
