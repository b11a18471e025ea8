import { spawn } from 'node:child_process';
import type { ApplicationUpJson, ApplicationWebhook, EventDefinition, JsonObject } from '@lorawan/api';
import type { WebhookDeliveryConfig } from '@lorawan/config';
import { WebhookReceiver } from '@lorawan/testing';
import type { WebhookStore } from '../webhook.store';
import { WebhookDeliveryWorker } from './webhook-delivery.worker';
import type { WebhookJobQueue } from './webhook-job';
import { WebhookIntegration } from '../webhook.integration';

/** A receiver in a child process (so the measurement is the sender's) counting distinct deliveries. */
async function startCountingReceiver(): Promise<{ url: string; stats(): Promise<{ count: number; unique: number }>; stop(): void }> {
  const script = `
    const seen = new Set(); let count = 0;
    const server = require('node:http').createServer((req, res) => {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        if (req.url === '/stats') return res.end(JSON.stringify({ count, unique: seen.size }));
        count++;
        seen.add(req.url + ' ' + JSON.parse(Buffer.concat(chunks).toString()).uplink_message.f_cnt);
        res.end('ok');
      });
    });
    server.keepAliveTimeout = 60000;
    server.listen(0, '127.0.0.1', () => console.log(server.address().port));`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((res, rej) => {
    child.once('error', rej);
    child.stdout.once('data', (d: Buffer) => res(d.toString().trim()));
  });
  const url = `http://127.0.0.1:${port}`;
  return { url, stats: async () => (await (await fetch(`${url}/stats`)).json()) as { count: number; unique: number }, stop: () => child.kill() };
}

/** One queue for one test: `remaining` counts the jobs still in it (undefined where it cannot tell). */
export interface QueueHarness {
  queue: WebhookJobQueue;
  /** Another queue on the same jobs: another replica, or the process started again. */
  reopen(): Promise<WebhookJobQueue>;
  remaining(): Promise<number | undefined>;
  close(): Promise<void>;
}

export type OpenQueue = (o: { ackWaitMs: number }) => Promise<QueueHarness>;

interface RecordedEvent {
  name: string;
  identifiers: unknown;
  correlation_ids: string[];
  data: JsonObject;
}

const BASE: WebhookDeliveryConfig = {
  allowPrivateNetworks: true,
  timeoutMs: 2000,
  maxAttempts: 5,
  retryBaseMs: 50,
  retryMaxMs: 200,
  concurrency: 4,
  ackWaitMs: 1500,
  queueMaxJobs: 100_000,
};
const PUBLIC_URL = 'https://stack.example.com/api/v3';
const sleep = (ms: number) => new Promise((res) => setTimeout(res, ms));

/** A webhook store that only lists and records health writes (what delivery uses). */
class FakeStore {
  webhooks: ApplicationWebhook[] = [];
  health: Array<{ webhook: string; status: JsonObject | undefined }> = [];
  listActive = async () => this.webhooks;
  setHealthStatus = async (_app: string, webhook: string, status: JsonObject | undefined) => {
    this.health.push({ webhook, status });
    return true;
  };
  healthOf(id: string) {
    return this.health.filter((h) => h.webhook === id).map((h) => h.status);
  }
}

/** One delivery set-up: the queue, a worker on it, the integration that feeds it, and what they recorded. */
class World {
  readonly store = new FakeStore();
  readonly events: RecordedEvent[] = [];
  readonly workers: WebhookDeliveryWorker[] = [];
  integration!: WebhookIntegration;
  harness!: QueueHarness;

  async open(openQueue: OpenQueue, config: Partial<WebhookDeliveryConfig> = {}): Promise<this> {
    this.harness = await openQueue({ ackWaitMs: config.ackWaitMs ?? BASE.ackWaitMs });
    const store = this.store as unknown as WebhookStore;
    this.integration = new WebhookIntegration({ get: (app) => store.listActive(app) }, this.harness.queue);
    this.startWorker(this.harness.queue, config);
    return this;
  }

  startWorker(queue: WebhookJobQueue, config: Partial<WebhookDeliveryConfig> = {}): WebhookDeliveryWorker {
    const events = {
      publish: (def: EventDefinition, identifiers: unknown, o: { ctx?: { correlation_ids: string[] }; data?: unknown } = {}) => {
        this.events.push({ name: def.name, identifiers, correlation_ids: o.ctx?.correlation_ids ?? [], data: o.data as JsonObject });
        return undefined as never;
      },
    };
    const worker = new WebhookDeliveryWorker(
      queue,
      this.store as unknown as WebhookStore,
      events,
      { publicUrl: PUBLIC_URL, webhooks: { ...BASE, ...config } },
      { get: () => this.store.listActive() },
    );
    worker.start();
    this.workers.push(worker);
    return worker;
  }

  hook(id: string, baseUrl: string, fields: Partial<ApplicationWebhook> = {}): ApplicationWebhook {
    const webhook: ApplicationWebhook = {
      ids: { application_ids: { application_id: 'app1' }, webhook_id: id },
      base_url: baseUrl,
      format: 'json',
      uplink_message: { path: '/up' },
      ...fields,
    };
    this.store.webhooks.push(webhook);
    return webhook;
  }

  fails(id: string) {
    return this.events.filter((e) => e.name === 'as.webhook.fail' && (e.data.attributes as JsonObject | undefined)?.webhook_id === id);
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.stop()));
    await this.harness?.close();
  }
}

function uplink(fCnt: number, device = 'dev1'): ApplicationUpJson {
  return {
    end_device_ids: {
      device_id: device,
      application_ids: { application_id: 'app1' },
      dev_eui: '0011223344556677',
      join_eui: '70B3D57ED0000000',
      dev_addr: '26011234',
    },
    correlation_ids: [`test:up:${fCnt}`],
    received_at: '2026-11-22T08:00:00Z',
    uplink_message: { f_port: 1, f_cnt: fCnt, frm_payload: 'AQI=', decoded_payload: { n: fCnt } },
  };
}

/**
 * What webhook delivery does over any job queue (JetStream, a SQL table): run against a real HTTP
 * receiver on a loopback port. `redelivery` is when a job held by a process that dies comes back:
 * after the ack wait, to another replica (JetStream), or when the process starts again on the same
 * database (the SQL queue, whose process is its only user).
 */
export function describeWebhookDeliveryConformance(name: string, openQueue: OpenQueue, o: { redelivery: 'after-ack-wait' | 'on-restart' }): void {
  describe(`webhook delivery conformance: ${name}`, () => {
    const receivers: WebhookReceiver[] = [];
    let world: World;
    const receiver = async (behaviour?: ConstructorParameters<typeof WebhookReceiver>[0]) => {
      const r = await new WebhookReceiver(behaviour).start();
      receivers.push(r);
      return r;
    };

    afterEach(async () => {
      for (const r of receivers) r.release();
      await world?.close();
      await Promise.all(receivers.splice(0).map((r) => r.stop()));
    });

    it('POSTs the ApplicationUp with the TTS headers to the expanded URL', async () => {
      world = await new World().open(openQueue);
      const r = await receiver();
      world.hook('wh1', `${r.url}/hooks{/appID,devID}`, {
        headers: { Authorization: 'Bearer secret' },
        downlink_api_key: 'NNSXS.KEY',
        uplink_message: { path: 'up{?devEUI}' },
      });
      world.hook('masked', `${r.url}/masked`, { field_mask: { paths: ['end_device_ids', 'up.uplink_message.decoded_payload'] } });
      world.hook('joins-only', `${r.url}/joins`, { uplink_message: undefined, join_accept: {} });
      const up = uplink(1);
      await world.integration.publish(up);
      await r.waitFor(() => r.requests.length >= 2, 5000, 'two deliveries');
      const main = r.to('/hooks/')[0];
      expect(main.method).toBe('POST');
      expect(main.url).toBe('/hooks/app1/dev1/up?devEUI=0011223344556677');
      expect(main.headers).toMatchObject({
        authorization: 'Bearer secret',
        'content-type': 'application/json',
        'x-downlink-apikey': 'NNSXS.KEY',
        'x-downlink-push': `${PUBLIC_URL}/as/applications/app1/webhooks/wh1/devices/dev1/down/push`,
        'x-downlink-replace': `${PUBLIC_URL}/as/applications/app1/webhooks/wh1/devices/dev1/down/replace`,
        'x-tts-domain': 'stack.example.com',
      });
      expect(main.headers['user-agent']).toMatch(/^lorawan-stack/);
      expect(main.json).toEqual(up);
      expect(r.to('/masked/up')[0].json).toEqual({ end_device_ids: up.end_device_ids, uplink_message: { decoded_payload: { n: 1 } } });
      await sleep(200);
      expect(r.requests).toHaveLength(2);
      expect(world.events).toEqual([]);
      expect(await world.harness.remaining()).not.toBeGreaterThan(0);
    });

    it('retries 5xx with backoff: delivered once, a webhookFail per failure, unhealthy then healthy', async () => {
      world = await new World().open(openQueue);
      const r = await receiver((_req, i) => ({ status: i < 2 ? 500 : 200, body: i < 2 ? `boom ${i}` : 'ok' }));
      world.hook('flaky', r.url, { health_status: { healthy: {} } });
      await world.integration.publish(uplink(2));
      await r.waitFor(() => r.requests.length >= 3, 5000, 'three attempts');
      await sleep(300);
      expect(r.requests.map((q) => q.json.uplink_message.f_cnt)).toEqual([2, 2, 2]);
      expect(r.requests[1].at - r.requests[0].at).toBeGreaterThanOrEqual(20);
      const fails = world.fails('flaky');
      expect(fails).toHaveLength(2);
      expect(fails[0]).toMatchObject({
        identifiers: { device_ids: { device_id: 'dev1', application_ids: { application_id: 'app1' }, dev_eui: '0011223344556677' } },
        correlation_ids: ['test:up:2'],
        data: {
          namespace: 'pkg/applicationserver/io/web/sink',
          name: 'request',
          code: 14,
          attributes: { webhook_id: 'flaky', url: `${r.url}/up`, status_code: 500 },
          details: [{ '@type': 'type.googleapis.com/google.protobuf.Struct', value: { body: 'boom 0' } }],
        },
      });
      const health = world.store.healthOf('flaky');
      expect(health.map((h) => (h?.unhealthy as JsonObject | undefined)?.failed_attempts ?? 'healthy')).toEqual(['1', '2', 'healthy']);
      expect(health[1]).toMatchObject({
        unhealthy: { last_failed_attempt_at: expect.stringMatching(/^\d{4}-.*Z$/), last_failed_attempt_details: { name: 'request' } },
      });
      expect(health[2]).toEqual({ healthy: {} });
      expect(await world.harness.remaining()).not.toBeGreaterThan(0);
    });

    it('keeps retrying while the receiver is down (connection refused) and delivers once it is up', async () => {
      world = await new World().open(openQueue);
      const r = await receiver();
      await r.stop();
      world.hook('down', r.url);
      await world.integration.publish(uplink(3));
      await sleep(250);
      await r.start();
      await r.waitFor(() => r.requests.length >= 1, 5000, 'the delivery');
      await sleep(300);
      expect(r.requests).toHaveLength(1);
      const fails = world.fails('down');
      expect(fails.length).toBeGreaterThanOrEqual(1);
      expect(fails[0].data).toMatchObject({ name: 'request', attributes: { webhook_id: 'down' }, cause: { name: 'transport' } });
      expect((fails[0].data.attributes as JsonObject).status_code).toBeUndefined();
    });

    it('sends each attempt with the webhook as it is then: a URL fixed during retries is used, the queue holds no headers or keys', async () => {
      world = await new World().open(openQueue, { retryBaseMs: 300, retryMaxMs: 300 });
      const wrong = await receiver(() => ({ status: 503 }));
      const right = await receiver();
      const hook = world.hook('moving', `${wrong.url}/old`, { headers: { Authorization: 'Bearer hook-secret' }, downlink_api_key: 'NNSXS.HOOKKEY' });
      await world.integration.publish(uplink(10));
      await wrong.waitFor(() => wrong.requests.length >= 1, 5000, 'the first attempt');
      hook.base_url = `${right.url}/new`;
      await right.waitFor(() => right.requests.length >= 1, 5000, 'the retry to the fixed URL');
      expect(right.requests.map((q) => [q.url, q.headers.authorization, q.headers['x-downlink-apikey']])).toEqual([
        ['/new/up', 'Bearer hook-secret', 'NNSXS.HOOKKEY'],
      ]);
      expect(wrong.requests).toHaveLength(1);
    });

    it('a webhook deleted (or paused) before its job is sent gets nothing; the job is dropped', async () => {
      world = await new World().open(openQueue, { retryBaseMs: 300, retryMaxMs: 300 });
      const r = await receiver(() => ({ status: 503 }));
      world.hook('short-lived', r.url);
      await world.integration.publish(uplink(11));
      await r.waitFor(() => r.requests.length >= 1, 5000, 'the first attempt');
      world.store.webhooks = [];
      await sleep(900);
      expect(r.requests).toHaveLength(1);
      expect(await world.harness.remaining()).not.toBeGreaterThan(0);
    });

    it('gives up at once on 4xx and on redirects (never followed)', async () => {
      world = await new World().open(openQueue);
      const r = await receiver((req) =>
        req.url.startsWith('/gone') ? { status: 404 } : req.url.startsWith('/moved') ? { status: 302, headers: { location: '/elsewhere' } } : undefined,
      );
      world.hook('gone', `${r.url}/gone`);
      world.hook('moved', `${r.url}/moved`);
      await world.integration.publish(uplink(4));
      await r.waitFor(() => r.requests.length >= 2, 5000, 'both attempts');
      await sleep(500);
      expect(r.requests.map((q) => q.url).sort()).toEqual(['/gone/up', '/moved/up']);
      expect(world.fails('gone').map((e) => (e.data.attributes as JsonObject).status_code)).toEqual([404]);
      expect(world.fails('moved').map((e) => (e.data.attributes as JsonObject).status_code)).toEqual([302]);
      expect(await world.harness.remaining()).not.toBeGreaterThan(0);
    });

    it('gives up after maxAttempts and removes the job', async () => {
      world = await new World().open(openQueue, { maxAttempts: 3 });
      const r = await receiver(() => ({ status: 503 }));
      world.hook('dead', r.url);
      await world.integration.publish(uplink(5));
      await r.waitFor(() => r.requests.length >= 3, 5000, 'three attempts');
      await sleep(600);
      expect(r.requests).toHaveLength(3);
      expect(world.fails('dead')).toHaveLength(3);
      expect(world.store.healthOf('dead').map((h) => (h?.unhealthy as JsonObject).failed_attempts)).toEqual(['1', '2', '3']);
      expect(await world.harness.remaining()).not.toBeGreaterThan(0);
    });

    it('a slow webhook does not delay another one', async () => {
      world = await new World().open(openQueue);
      const slow = await receiver(() => ({ hold: true }));
      const fast = await receiver();
      world.hook('slow', slow.url, { uplink_message: undefined, join_accept: {} });
      world.hook('fast', fast.url, { uplink_message: undefined, downlink_queued: {} });
      const join = (i: number): ApplicationUpJson => ({
        end_device_ids: { device_id: `dev${i}`, application_ids: { application_id: 'app1' } },
        join_accept: { session_key_id: 'AQI=' },
      });
      const queued = (i: number): ApplicationUpJson => ({
        end_device_ids: { device_id: `dev${i}`, application_ids: { application_id: 'app1' } },
        downlink_queued: { f_port: 1, f_cnt: i },
      });
      await Promise.all(Array.from({ length: 200 }, (_, i) => world.integration.publish(join(i))));
      await slow.waitFor(() => slow.requests.length >= 4, 5000, 'the slow webhook busy');
      const started = Date.now();
      await Promise.all(Array.from({ length: 50 }, (_, i) => world.integration.publish(queued(i))));
      await fast.waitFor(() => fast.requests.length >= 50, 3000, 'all fast deliveries');
      const took = Date.now() - started;
      expect(took).toBeLessThan(1000);
      // At most `concurrency` (4) requests in flight to the slow one.
      expect(slow.requests).toHaveLength(4);
      slow.behaviour = () => undefined;
      slow.release();
      await slow.waitFor(() => new Set(slow.requests.map((q) => q.json.end_device_ids.device_id)).size >= 200, 10000, 'all slow deliveries');
    });

    it('refuses private destinations unless allowed (SSRF guard), without retrying', async () => {
      world = await new World().open(openQueue, { allowPrivateNetworks: false });
      const r = await receiver();
      world.hook('loopback', r.url);
      world.hook('by-name', r.url.replace('127.0.0.1', 'localhost'));
      world.hook('metadata', 'http://169.254.169.254/latest');
      await world.integration.publish(uplink(6));
      const deadline = Date.now() + 5000;
      while (world.events.length < 3 && Date.now() < deadline) await sleep(20);
      await sleep(300);
      expect(r.requests).toHaveLength(0);
      for (const id of ['loopback', 'by-name', 'metadata']) {
        const fails = world.fails(id);
        expect(fails).toHaveLength(1);
        expect(fails[0].data).toMatchObject({ name: 'request', cause: { name: 'forbidden_destination', code: 7 } });
      }
      expect(await world.harness.remaining()).not.toBeGreaterThan(0);
    });

    it(
      o.redelivery === 'after-ack-wait'
        ? 'hands what a crashed worker held to another worker after the ack wait'
        : 'hands what a crashed process held out again when it starts again',
      async () => {
        world = await new World().open(openQueue, { ackWaitMs: 1500 });
        const r = await receiver((_req, i) => (i === 0 ? { hold: true } : undefined));
        world.hook('crash', r.url);
        await world.integration.publish(uplink(7));
        await r.waitFor(() => r.requests.length >= 1, 5000, 'the first attempt');
        // The replica dies mid-request: its connection drops without an ack.
        const crashedAt = Date.now();
        await world.harness.queue.close();
        world.startWorker(await world.harness.reopen(), { ackWaitMs: 1500 });
        await r.waitFor(() => r.requests.length >= 2, 10000, 'the redelivery');
        if (o.redelivery === 'after-ack-wait') expect(r.requests[1].at - crashedAt).toBeGreaterThanOrEqual(1000);
        expect(r.requests[1].json).toEqual(r.requests[0].json);
        await sleep(300);
        expect(r.requests).toHaveLength(2);
        expect(world.events).toEqual([]);
        expect(await world.harness.remaining()).toBe(0);
      },
    );

    it('throughput: 5000 deliveries to a loopback receiver in another process', async () => {
      world = await new World().open(openQueue, { concurrency: 32, ackWaitMs: 30_000 });
      const r = await startCountingReceiver();
      try {
        for (let w = 0; w < 5; w++) world.hook(`tp${w}`, `${r.url}/tp${w}`);
        const started = Date.now();
        for (let batch = 0; batch < 10; batch++) await Promise.all(Array.from({ length: 100 }, (_, i) => world.integration.publish(uplink(batch * 100 + i))));
        const queued = Date.now() - started;
        let stats = await r.stats();
        for (const deadline = Date.now() + 60_000; stats.unique < 5000 && Date.now() < deadline; stats = await r.stats()) await sleep(20);
        const seconds = (Date.now() - started) / 1000;
        console.log(
          `webhook delivery (${name}): 5000 deliveries in ${seconds.toFixed(2)} s = ${Math.round(5000 / seconds)}/s (jobs queued in ${queued} ms; ${stats.count - stats.unique} duplicates)`,
        );
        expect(stats.unique).toBe(5000);
      } finally {
        r.stop();
      }
    });
  });
}
