/**
 * Webhook delivery end to end with a real HTTP receiver on a loopback port, in both run modes
 * (issue 6; wire contract §8.2, §8.3, §9): simulated uplinks and join-accepts are POSTed to the
 * webhook's paths with the TTS body and headers; the receiver answers through the
 * `X-Downlink-Push`/`X-Downlink-Replace` URLs with the `X-Downlink-Apikey`; `downlink_queued` and
 * `downlink_failed` messages; a paused webhook; a receiver that is down (retries, then delivery, and
 * the webhook's health status); a slow receiver that must not hold up another webhook; a payload
 * formatter that never returns; and, in distributed mode, an AS killed in the middle of deliveries
 * (every message delivered after its restart).
 */
import { startDistributedStack, startEmbeddedStack, type StackUnderTest, WebhookReceiver } from '@lorawan/testing';
import { Access, bearer } from './access';
import { Api, createApplications, expectTtsError, expectValidationError, sleep, TIMESTAMP_6 } from './http-client';
import { EventStream } from './event-stream';
import { abpAsDevice, abpNsDevice, expectOk, isDevicesPath, randomDevAddr, randomEui, randomKey, Registries, uid } from './devices';
import { LPP, WEBHOOK_ENV } from './webhook-env';

type Start = () => Promise<StackUnderTest>;
const MODES: Array<[string, Start]> = [
  // The NS holds the downlink queue the webhooks' X-Downlink-Push/Replace fill.
  ['distributed', () => startDistributedStack({ components: ['is', 'ns', 'as', 'events'], env: WEBHOOK_ENV })],
  ['embedded', () => startEmbeddedStack({ env: WEBHOOK_ENV })],
];

type Json = Record<string, unknown>;
const INFINITE_LOOP = 'function decodeUplink(input) { while (true) {} }';

/** The stack, an application with an API key for downlinks, and helpers for devices and webhooks. */
class WebhookWorld {
  readonly api: Api;
  readonly reg: Registries;
  readonly access: Access;
  downlinkKey = '';

  constructor(
    private readonly stack: () => StackUnderTest,
    readonly app: string,
    /** Whether the stack runs an NS (which holds the downlink queue): devices with a session get one there too. */
    private readonly withNs = true,
  ) {
    this.api = new Api(stack);
    this.reg = new Registries(this.api);
    this.access = new Access(this.api);
  }

  async setUp(): Promise<void> {
    await createApplications(this.api, [this.app]);
    this.downlinkKey = (await this.access.createKey('application', this.app, ['RIGHT_APPLICATION_TRAFFIC_DOWN_WRITE', 'RIGHT_APPLICATION_TRAFFIC_READ'])).token;
  }

  /** A device in the IS and the AS, and with a session in the NS too (ABP session, EUIs, CayenneLPP or the given up formatter). */
  async device(
    formatters: Json = { up_formatter: 'FORMATTER_CAYENNELPP' },
    session = true,
  ): Promise<{ dev: string; devEui: string; joinEui: string; devAddr: string }> {
    const dev = uid('dev');
    const devEui = randomEui();
    const joinEui = randomEui();
    const devAddr = randomDevAddr();
    const ids = { device_id: dev, dev_eui: devEui, join_eui: joinEui };
    expectOk(await this.api.post(isDevicesPath(this.app), { end_device: { ids: { ...ids, application_ids: { application_id: this.app } } } }), 'IS create');
    const as = abpAsDevice(ids, devAddr, randomKey());
    const device = session ? { ...as.device, formatters } : { ids, formatters };
    const paths = [...(session ? as.paths : []), ...Object.keys(formatters).map((k) => `formatters.${k}`)];
    await this.reg.setOk('as', this.app, dev, device, paths);
    if (session && this.withNs) {
      const ns = abpNsDevice(ids, devAddr, randomKey());
      await this.reg.setOk('ns', this.app, dev, ns.device, ns.paths);
    }
    return { dev, devEui, joinEui, devAddr };
  }

  async webhook(id: string, webhook: Json): Promise<void> {
    const res = await this.api.put(`/api/v3/as/webhooks/${this.app}/${id}`, { webhook, field_mask: { paths: Object.keys(webhook) } });
    expectOk(res, `set webhook ${id}`);
  }

  /** Test hygiene: webhooks whose receiver is gone would fail (and retry) on every later uplink of the application. */
  async deleteWebhooks(...ids: string[]): Promise<void> {
    for (const id of ids) expectOk(await this.api.delete(`/api/v3/as/webhooks/${this.app}/${id}`), `delete webhook ${id}`);
  }

  async getWebhook(id: string): Promise<Json> {
    const res = await this.api.get(`/api/v3/as/webhooks/${this.app}/${id}?field_mask=health_status`);
    expectOk(res, `get webhook ${id}`);
    return res.json as Json;
  }

  /** Simulate uplink that must answer `{}`. */
  async simulate(dev: string, up: Json): Promise<void> {
    const res = await this.api.post(`/api/v3/as/applications/${this.app}/devices/${dev}/up/simulate`, up);
    expectOk(res, `simulate ${dev}`);
    expect(res.json).toEqual({});
  }

  simulateRaw(dev: string, up: unknown) {
    return this.api.post(`/api/v3/as/applications/${this.app}/devices/${dev}/up/simulate`, up);
  }
}

const fCntsOf = (requests: Array<{ json: { uplink_message?: { f_cnt?: number } } }>) => new Set(requests.map((r) => r.json?.uplink_message?.f_cnt));

describe.each(MODES)('webhook delivery to a real receiver (%s)', (_mode, start) => {
  let stack: StackUnderTest;
  const world = new WebhookWorld(() => stack, uid('whd-app'));
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    await receiver.start();
    stack = await start();
    await world.setUp();
  });
  afterAll(async () => {
    await stack?.stop();
    await receiver.stop();
  });

  it('a simulated uplink is decoded and POSTed to <base>/up with the TTS body and headers; templates and field masks apply', async () => {
    const { dev, devEui, joinEui, devAddr } = await world.device();
    await world.webhook('main', {
      base_url: `${receiver.url}/main`,
      headers: { Authorization: 'Bearer receiver-secret' },
      downlink_api_key: world.downlinkKey,
    });
    await world.webhook('tpl', {
      base_url: `${receiver.url}/tpl{/appID,devID}`,
      uplink_message: { path: 'up{?devEUI}' },
      field_mask: { paths: ['end_device_ids', 'up.uplink_message.decoded_payload'] },
    });
    const before = receiver.requests.length;
    await world.simulate(dev, { uplink_message: { f_port: 1, f_cnt: 7, frm_payload: LPP, rx_metadata: [{ gateway_ids: { gateway_id: 'gw-1' }, rssi: -42 }] } });
    await receiver.waitFor(
      () => receiver.to('/main/up').some((r) => r.json?.end_device_ids?.device_id === dev) && receiver.to(`/tpl/${world.app}/${dev}`).length > 0,
      10000,
      'both deliveries',
    );
    const main = receiver.to('/main/up').find((r) => r.json?.end_device_ids?.device_id === dev);
    expect(main?.method).toBe('POST');
    expect(main?.headers['content-type']).toMatch(/^application\/json/);
    expect(main?.headers.authorization).toBe('Bearer receiver-secret');
    expect(main?.headers['x-downlink-apikey']).toBe(world.downlinkKey);
    const pub = `${stack.baseUrl}/api/v3/as/applications/${world.app}/webhooks/main/devices/${dev}/down`;
    expect(main?.headers['x-downlink-push']).toBe(`${pub}/push`);
    expect(main?.headers['x-downlink-replace']).toBe(`${pub}/replace`);
    expect(main?.headers['x-tts-domain']).toMatch(/^127\.0\.0\.1/);
    const body = main?.json;
    expect(body.end_device_ids).toEqual({
      device_id: dev,
      application_ids: { application_id: world.app },
      dev_eui: devEui,
      join_eui: joinEui,
      dev_addr: devAddr,
    });
    expect(body.simulated).toBe(true);
    expect(body.received_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(body.correlation_ids.some((c: string) => /^as:up:[0-9A-HJKMNP-TV-Z]{26}$/.test(c))).toBe(true);
    expect(body.uplink_message).toMatchObject({ f_port: 1, f_cnt: 7, frm_payload: LPP, rx_metadata: [{ gateway_ids: { gateway_id: 'gw-1' }, rssi: -42 }] });
    expect(body.uplink_message.decoded_payload).toEqual({ temperature_1: 27.2, relative_humidity_2: 50 });
    // Templates (§8.2): RFC 6570 expansion of base URL and path, EUIs upper-case hex.
    const tpl = receiver.to(`/tpl/${world.app}/${dev}`);
    expect(tpl.map((r) => r.url)).toEqual([`/tpl/${world.app}/${dev}/up?devEUI=${devEui}`]);
    // The field mask keeps only the listed paths; the downlink headers only come with a downlink API key.
    expect(tpl[0].json).toEqual({ end_device_ids: body.end_device_ids, uplink_message: { decoded_payload: { temperature_1: 27.2, relative_humidity_2: 50 } } });
    expect(tpl[0].headers['x-downlink-apikey']).toBeUndefined();
    expect(receiver.requests.length - before).toBe(2);
  });

  it('the receiver answers through X-Downlink-Push / X-Downlink-Replace with X-Downlink-Apikey; downlink_queued is delivered', async () => {
    const { dev } = await world.device();
    await world.webhook('down', {
      base_url: `${receiver.url}/down-hook`,
      downlink_api_key: world.downlinkKey,
      uplink_message: { path: '/up' },
      downlink_queued: { path: '/queued' },
    });
    await world.simulate(dev, { uplink_message: { f_port: 1, frm_payload: LPP } });
    await receiver.waitFor(() => receiver.to('/down-hook/up').some((r) => r.json?.end_device_ids?.device_id === dev), 10000, 'uplink');
    const up = receiver.to('/down-hook/up').find((r) => r.json?.end_device_ids?.device_id === dev);
    const key = String(up?.headers['x-downlink-apikey']);
    const pushUrl = String(up?.headers['x-downlink-push']);
    const replaceUrl = String(up?.headers['x-downlink-replace']);
    // The receiver's answer: a plain HTTP client with nothing but the headers it was given.
    const post = (url: string, body: unknown) =>
      fetch(url, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const pushed = await post(pushUrl, { downlinks: [{ f_port: 2, frm_payload: 'AQID', priority: 'NORMAL', confirmed: true }] });
    expect([pushed.status, await pushed.text()]).toEqual([200, '']);
    const list = await world.api.get(`/api/v3/as/applications/${world.app}/devices/${dev}/down`);
    expectOk(list, 'list');
    expect(list.json.downlinks).toEqual([expect.objectContaining({ f_port: 2, frm_payload: 'AQID', f_cnt: 1, confirmed: true, priority: 'NORMAL' })]);
    await receiver.waitFor(() => receiver.to('/down-hook/queued').some((r) => r.json?.end_device_ids?.device_id === dev), 10000, 'downlink_queued');
    const queued = receiver.to('/down-hook/queued').find((r) => r.json?.end_device_ids?.device_id === dev)?.json;
    expect(queued.downlink_queued).toMatchObject({ f_port: 2, frm_payload: 'AQID', f_cnt: 1, confirmed: true });
    expect(queued.downlink_queued.correlation_ids.some((c: string) => c.startsWith('as:downlink:'))).toBe(true);
    // Replace: the queue holds exactly the new items; an empty list clears it.
    const replaced = await post(replaceUrl, { downlinks: [{ f_port: 3, frm_payload: 'BAU=' }] });
    expect([replaced.status, await replaced.text()]).toEqual([200, '']);
    expect((await world.api.get(`/api/v3/as/applications/${world.app}/devices/${dev}/down`)).json.downlinks).toEqual([
      expect.objectContaining({ f_port: 3, frm_payload: 'BAU=', f_cnt: 2 }),
    ]);
    const cleared = await post(replaceUrl, { downlinks: [] });
    expect(cleared.status).toBe(200);
    expect((await world.api.get(`/api/v3/as/applications/${world.app}/devices/${dev}/down`)).json).toEqual({});
    // The key is checked: without it, 401; with a bad body, 400 and nothing queued.
    const anonymous = await fetch(pushUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ downlinks: [{ f_port: 2, frm_payload: 'AQID' }] }),
    });
    expect(anonymous.status).toBe(401);
    const bad = await post(pushUrl, { downlinks: [{ f_port: 0, frm_payload: 'AQID' }] });
    expect(bad.status).toBe(400);
    expect((await world.api.get(`/api/v3/as/applications/${world.app}/devices/${dev}/down`)).json).toEqual({});
  });

  it('a paused webhook answers push with 406 and receives nothing', async () => {
    const { dev } = await world.device();
    await world.webhook('paused', { base_url: `${receiver.url}/paused-hook`, downlink_api_key: world.downlinkKey, paused: true });
    await world.webhook('witness', { base_url: `${receiver.url}/witness` });
    await world.simulate(dev, { uplink_message: { f_port: 1, frm_payload: LPP } });
    await receiver.waitFor(() => receiver.to('/witness/up').some((r) => r.json?.end_device_ids?.device_id === dev), 10000, 'witness delivery');
    const res = await world.api.post(
      `/api/v3/as/applications/${world.app}/webhooks/paused/devices/${dev}/down/push`,
      { downlinks: [{ f_port: 1, frm_payload: 'AQID' }] },
      bearer(world.downlinkKey),
    );
    expect([res.status, res.text]).toEqual([406, '']);
    await sleep(300);
    expect(receiver.to('/paused-hook')).toEqual([]);
    expect((await world.api.get(`/api/v3/as/applications/${world.app}/devices/${dev}/down`)).json).toEqual({});
  });

  it('a simulated join-accept goes to <base>/join; a failed push is delivered as downlink_failed', async () => {
    const { dev } = await world.device();
    await world.webhook('join', { base_url: `${receiver.url}/join-hook`, join_accept: { path: '/join' }, downlink_failed: { path: '/failed' } });
    await world.simulate(dev, { join_accept: { session_key_id: 'AQIDBA==' } });
    await receiver.waitFor(() => receiver.to('/join-hook/join').some((r) => r.json?.end_device_ids?.device_id === dev), 10000, 'join-accept');
    const join = receiver.to('/join-hook/join').find((r) => r.json?.end_device_ids?.device_id === dev)?.json;
    expect(join).toMatchObject({ simulated: true, join_accept: { session_key_id: 'AQIDBA==' } });
    expect(join.uplink_message).toBeUndefined();
    // No session: the push fails with no_device_session and the webhook gets downlink_failed.
    const { dev: sessionless } = await world.device({ up_formatter: 'FORMATTER_NONE' }, false);
    const res = await world.api.post(`/api/v3/as/applications/${world.app}/devices/${sessionless}/down/push`, {
      downlinks: [{ f_port: 5, frm_payload: 'AQID' }],
    });
    expectTtsError(res, 400, 9, 'pkg/applicationserver', 'no_device_session');
    await receiver.waitFor(() => receiver.to('/join-hook/failed').some((r) => r.json?.end_device_ids?.device_id === sessionless), 10000, 'downlink_failed');
    const failed = receiver.to('/join-hook/failed').find((r) => r.json?.end_device_ids?.device_id === sessionless)?.json;
    expect(failed.downlink_failed.downlink).toMatchObject({ f_port: 5, frm_payload: 'AQID' });
    expect(failed.downlink_failed.error).toMatchObject({ namespace: 'pkg/applicationserver', name: 'no_device_session' });
  });

  it('a receiver that is down gets every message once it is back (retries with backoff); health_status goes unhealthy, then healthy', async () => {
    const down = await new WebhookReceiver().start();
    try {
      const { dev } = await world.device();
      await world.webhook('flaky', { base_url: `${down.url}/flaky` });
      await down.stop();
      for (let fCnt = 1; fCnt <= 3; fCnt++) await world.simulate(dev, { uplink_message: { f_port: 1, f_cnt: fCnt, frm_payload: LPP } });
      let health: Json | undefined;
      for (let i = 0; i < 50 && !(health && 'unhealthy' in health); i++) {
        await sleep(100);
        health = (await world.getWebhook('flaky')).health_status as Json | undefined;
      }
      expect(health).toMatchObject({
        unhealthy: { failed_attempts: expect.stringMatching(/^\d+$/), last_failed_attempt_at: expect.stringMatching(/^\d{4}-/) },
      });
      const details = (health?.unhealthy as Json).last_failed_attempt_details as Json;
      expect(details).toMatchObject({ namespace: 'pkg/applicationserver/io/web/sink', name: 'request' });
      await down.start();
      await down.waitFor(() => fCntsOf(down.to('/flaky/up')).size === 3, 15000, 'all three uplinks after the receiver returned');
      expect(fCntsOf(down.to('/flaky/up'))).toEqual(new Set([1, 2, 3]));
      let healthy: Json | undefined;
      for (let i = 0; i < 50 && !(healthy && 'healthy' in healthy); i++) {
        healthy = (await world.getWebhook('flaky')).health_status as Json | undefined;
        if (!(healthy && 'healthy' in healthy)) await sleep(100);
      }
      expect(healthy).toEqual({ healthy: {} });
    } finally {
      await down.stop();
      await world.deleteWebhooks('flaky');
    }
  });

  it('a receiver answering 503 is retried until it accepts; 4xx is not retried', async () => {
    let failures = 2;
    const flaky = await new WebhookReceiver((req) =>
      req.url.startsWith('/reject') ? { status: 400 } : failures-- > 0 ? { status: 503 } : { status: 204 },
    ).start();
    try {
      const { dev } = await world.device();
      await world.webhook('retry', { base_url: `${flaky.url}/retry` });
      await world.webhook('reject', { base_url: `${flaky.url}/reject` });
      await world.simulate(dev, { uplink_message: { f_port: 1, f_cnt: 1, frm_payload: LPP } });
      await flaky.waitFor(() => flaky.to('/retry/up').length === 3, 10000, 'two 503s and the accepted retry');
      await sleep(1500);
      expect(flaky.to('/retry/up')).toHaveLength(3);
      expect(flaky.to('/reject/up')).toHaveLength(1);
      expect(new Set(flaky.to('/retry/up').map((r) => r.text)).size).toBe(1);
    } finally {
      await flaky.stop();
      await world.deleteWebhooks('retry', 'reject');
    }
  });

  it('a slow receiver does not hold up another webhook', async () => {
    let holding = true;
    const slow = await new WebhookReceiver(() => (holding ? { hold: true } : undefined)).start();
    const fast = await new WebhookReceiver().start();
    try {
      const { dev } = await world.device();
      await world.webhook('slow', { base_url: `${slow.url}/slow` });
      await world.webhook('fast', { base_url: `${fast.url}/fast` });
      const started = Date.now();
      for (let fCnt = 1; fCnt <= 20; fCnt++) await world.simulate(dev, { uplink_message: { f_port: 1, f_cnt: fCnt, frm_payload: LPP } });
      await fast.waitFor(() => fCntsOf(fast.to('/fast/up')).size === 20, 10000, 'the fast webhook gets all 20');
      const fastDone = Date.now() - started;
      // The slow endpoint holds every request: at most WEBHOOK_CONCURRENCY (4) of them per replica.
      expect(slow.to('/slow/up').length).toBeLessThanOrEqual(4);
      expect(fastDone).toBeLessThan(10000);
      holding = false;
      slow.release();
      await slow.waitFor(() => fCntsOf(slow.to('/slow/up')).size === 20, 20000, 'the slow webhook gets all 20 once it answers');
    } finally {
      await slow.stop();
      await fast.stop();
      await world.deleteWebhooks('slow', 'fast');
    }
  });

  it('a JavaScript formatter that never returns times out: its simulated uplink is refused (400 decode_payload, script_timeout), nothing of it delivered, and the AS keeps serving', async () => {
    // Issue 29: a simulate whose script runs into a limit answers a clear 4xx (a radio uplink goes on without decoded_payload
    // and with as.up.data.decode.fail: tenant-safety/formatter-isolation.e2e-spec.ts).
    const { dev: looping } = await world.device({ up_formatter: 'FORMATTER_JAVASCRIPT', up_formatter_parameter: INFINITE_LOOP });
    const { dev: healthy } = await world.device();
    await world.webhook('js-hook', { base_url: `${receiver.url}/js-hook` });
    const t0 = Date.now();
    const refused = await world.simulateRaw(looping, { uplink_message: { f_port: 1, frm_payload: LPP } });
    expect(Date.now() - t0).toBeLessThan(5000);
    expectTtsError(refused, 400, 3, 'pkg/applicationserver', 'decode_payload');
    expect(refused.json.details[0].cause).toMatchObject({ namespace: 'pkg/scripting/javascript', name: 'script_timeout' });
    await world.simulate(healthy, { uplink_message: { f_port: 1, frm_payload: LPP } });
    await receiver.waitFor(() => receiver.to('/js-hook/up').some((r) => r.json?.end_device_ids?.device_id === healthy), 10000, 'the healthy uplink');
    expect(receiver.to('/js-hook/up').some((r) => r.json?.end_device_ids?.device_id === looping)).toBe(false);
    const okUp = receiver.to('/js-hook/up').find((r) => r.json?.end_device_ids?.device_id === healthy)?.json;
    expect(okUp.uplink_message.decoded_payload).toEqual({ temperature_1: 27.2, relative_humidity_2: 50 });
    expectOk(await world.reg.get('as', world.app, healthy, ['formatters']), 'AS still serving');
  });

  it('bad simulate requests are refused with 400 and deliver nothing', async () => {
    const { dev } = await world.device();
    await world.webhook('bad', { base_url: `${receiver.url}/bad-hook` });
    expectTtsError(
      await world.simulateRaw(dev, { simulated: true, uplink_message: { f_port: 1, frm_payload: LPP } }),
      400,
      3,
      'pkg/applicationserver/io/grpc',
      'simulated',
    );
    expectValidationError(await world.simulateRaw(dev, { uplink_message: { f_port: 1, frm_payload: 'not base64!' } }), 'frm_payload');
    expect((await world.simulateRaw(dev, {})).status).toBe(400);
    expect((await world.simulateRaw(dev, { uplink_message: { f_port: 1 }, join_accept: { session_key_id: 'AQ==' } })).status).toBe(400);
    expect((await world.simulateRaw(dev, '{"uplink_message":')).status).toBe(400);
    // An unknown device: accepted ({}), dropped, nothing delivered.
    const unknown = await world.simulateRaw(uid('nobody'), { uplink_message: { f_port: 1, frm_payload: LPP } });
    expect([unknown.status, unknown.json]).toEqual([200, {}]);
    await world.simulate(dev, { uplink_message: { f_port: 1, f_cnt: 99, frm_payload: LPP } });
    await receiver.waitFor(() => receiver.to('/bad-hook/up').length >= 1, 10000, 'the valid uplink');
    await sleep(300);
    expect(receiver.to('/bad-hook/up').map((r) => r.json.uplink_message.f_cnt)).toEqual([99]);
    expect(world.api.serverErrors).toEqual([]);
  });

  it('streams the uplink path’s events: as.up.data.receive (device), decode.fail, forward; as.webhook.fail without the webhook’s secrets', async () => {
    const failing = await new WebhookReceiver(() => ({ status: 500, body: 'receiver exploded' })).start();
    const stream = await EventStream.open(stack.baseUrl, {
      authorization: `Bearer ${stack.adminKey}`,
      body: { identifiers: [{ application_ids: { application_id: world.app } }], names: ['/^as\\.(up|webhook)\\./'] },
    });
    try {
      expect(stream.status).toBe(200);
      expect((await stream.nextEvent()).name).toBe('events.stream.start');
      const { dev } = await world.device({
        up_formatter: 'FORMATTER_JAVASCRIPT',
        up_formatter_parameter: 'function decodeUplink() { return { errors: ["nope"] }; }',
      });
      await world.webhook('ev-fail', {
        base_url: `${failing.url}/ev`,
        headers: { Authorization: 'Bearer very-secret-header' },
        downlink_api_key: world.downlinkKey,
      });
      await world.simulate(dev, { uplink_message: { f_port: 1, f_cnt: 5, frm_payload: LPP } });
      type Seen = { name: string; data?: Record<string, unknown>; correlation_ids?: string[]; identifiers?: Array<{ device_ids?: { device_id?: string } }> };
      const seen: Seen[] = [];
      const isOurFail = (e: Seen) => e.name === 'as.webhook.fail' && (e.data?.attributes as Record<string, unknown> | undefined)?.webhook_id === 'ev-fail';
      while (!(seen.some(isOurFail) && seen.some((e) => e.name === 'as.up.data.forward'))) {
        const event = (await stream.nextEvent(15000)) as Seen;
        // Other tests' webhooks of this application (their receivers gone) fail too: only this device's events count, and this webhook's failure.
        if (event.identifiers?.some((i) => i.device_ids?.device_id === dev)) seen.push(event);
      }
      // as.up.data.receive is a device event (TTS): an application subscriber does not get it.
      // Deliveries may fail before the simulate path publishes its forward event: only the AS's own order is fixed.
      const uplinkEvents = seen.filter((e) => e.name !== 'as.webhook.fail');
      expect(uplinkEvents.map((e) => e.name)).toEqual(['as.up.data.decode.fail', 'as.up.data.forward']);
      const forward = uplinkEvents[1];
      expect(forward.data).toMatchObject({ '@type': 'type.googleapis.com/ttn.lorawan.v3.ApplicationUp', uplink_message: { f_cnt: 5, frm_payload: LPP } });
      expect((forward.data?.uplink_message as Record<string, unknown>).decoded_payload).toBeUndefined();
      expect(forward.correlation_ids?.some((c) => c.startsWith('as:up:'))).toBe(true);
      const fail = seen.find(isOurFail);
      expect(fail?.data).toMatchObject({
        namespace: 'pkg/applicationserver/io/web/sink',
        name: 'request',
        attributes: { webhook_id: 'ev-fail', status_code: 500 },
      });
      expect(fail?.correlation_ids).toEqual(forward.correlation_ids);
      const text = stream.text;
      expect(text).not.toContain('very-secret-header');
      expect(text).not.toContain(world.downlinkKey.split('.')[2]);
    } finally {
      stream.close();
      await failing.stop();
      await world.deleteWebhooks('ev-fail');
    }
  });

  it('received_at and the caller’s correlation IDs are kept', async () => {
    const { dev } = await world.device();
    await world.webhook('corr', { base_url: `${receiver.url}/corr-hook` });
    await world.simulate(dev, { received_at: '2026-01-02T03:04:05.123456Z', correlation_ids: ['test:mine'], uplink_message: { f_port: 1, frm_payload: LPP } });
    await receiver.waitFor(() => receiver.to('/corr-hook/up').length === 1, 10000, 'delivery');
    const body = receiver.to('/corr-hook/up')[0].json;
    expect(body.received_at).toMatch(TIMESTAMP_6);
    expect(body.received_at).toBe('2026-01-02T03:04:05.123456Z');
    expect(body.correlation_ids).toEqual(expect.arrayContaining(['test:mine']));
  });
});

describe('an AS killed in the middle of webhook deliveries (distributed)', () => {
  let stack: StackUnderTest;
  const world = new WebhookWorld(() => stack, uid('kill-app'), false);
  // 150 ms per request and 4 at a time: 60 deliveries take about 2 s, so the kill lands mid-way.
  const receiver = new WebhookReceiver(() => ({ delayMs: 150 }));

  beforeAll(async () => {
    await receiver.start();
    stack = await startDistributedStack({ components: ['is', 'as'], env: { ...WEBHOOK_ENV, WEBHOOK_ACK_WAIT_MS: '3000' } });
    await world.setUp();
  });
  afterAll(async () => {
    await stack?.stop();
    await receiver.stop();
  });

  it('every accepted message is delivered after the restart (duplicates allowed, loss not)', async () => {
    const { dev } = await world.device();
    await world.webhook('durable', { base_url: `${receiver.url}/durable` });
    const total = 60;
    await Promise.all(Array.from({ length: total }, (_, i) => world.simulate(dev, { uplink_message: { f_port: 1, f_cnt: i + 1, frm_payload: LPP } })));
    await receiver.waitFor(() => receiver.to('/durable/up').length >= 8, 10000, 'the first deliveries');
    const beforeKill = fCntsOf(receiver.to('/durable/up')).size;
    expect(beforeKill).toBeLessThan(total);
    if (!stack.restart) throw new Error('the distributed stack must support restart');
    await stack.restart('as#0');
    await receiver.waitFor(() => fCntsOf(receiver.to('/durable/up')).size === total, 60000, `all ${total} uplinks after the restart`);
    expect(fCntsOf(receiver.to('/durable/up'))).toEqual(new Set(Array.from({ length: total }, (_, i) => i + 1)));
    expect(stack.logs()).toContain('--- as#0 restarted');
  });
});
