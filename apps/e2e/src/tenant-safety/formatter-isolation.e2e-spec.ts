/**
 * One application's payload formatter cannot harm the AS or another application (issue 29,
 * finding 2), in both run modes. The probe's scripts (a memory bomb, an endless loop, a 5000-deep
 * result, endless recursion) and a native call that never yields each fail with a clear error:
 * SimulateUplink answers 400 `decode_payload` with the script's error as its cause, a downlink
 * push 400 `encode_payload`, and a real uplink from a gateway is still delivered, without
 * `decoded_payload`, with `as.up.data.decode.fail`. An application whose scripts keep running away
 * is suspended for the rest of the minute (429 `formatter_suspended`, its uplinks still
 * delivered). While abusive applications run them at 10/s, another's simulated uplinks are
 * decoded and its API calls answered; the AS process stays up and its memory bounded. Each abusive
 * script has an application of its own, so that only the suspension case meets the runaway
 * budget. Speed is the bench's to measure (`formatter_isolation`); the bounds here are generous
 * liveness bounds.
 */
import { readFileSync } from 'node:fs';
import type { EventJson } from '@lorawan/api';
import {
  ABUSIVE_FORMATTERS,
  type AbusiveFormatter,
  isErrorOf,
  SimulatedUdpGateway,
  startDistributedStack,
  startEmbeddedStack,
  type StackUnderTest,
  WebhookReceiver,
} from '@lorawan/testing';
import { abpAsDevice, abpNsDevice, randomDevAddr, randomEui, randomKey, Registries, uid } from '../devices';
import { EventStream } from '../event-stream';
import { type ConnectedGateway, connectGateways } from '../gateways';
import { Api, createApplications, expectStatus, expectTtsError, sleep } from '../http-client';
import { dataUplink } from '../lora-frames';
import { setJsonWebhook } from '../webhook-env';

type Start = () => Promise<StackUnderTest>;
interface AbpDevice {
  app: string;
  dev: string;
  devAddr: string;
  keys: { nwkSKey: string; appSKey: string };
  fCnt: number;
}
const ENV = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', NS_DEFAULT_MAC_SETTINGS: JSON.stringify({ status_count_periodicity: 0, status_time_periodicity: '0s' }) };
const MODES: Array<[string, Start, string]> = [
  ['distributed', () => startDistributedStack({ components: ['is', 'ns', 'as', 'events', 'gs'], env: ENV }), 'as#0'],
  ['embedded', () => startEmbeddedStack({ env: ENV }), 'stack'],
];
/** The victim's formatter: an ordinary decoder. */
const DECODER = 'function decodeUplink(input) { return { data: { first: input.bytes[0], port: input.fPort } }; }';
/**
 * What the formatter workers may add to the AS process's memory with the default FORMATTER_*
 * settings (docs/integrations.md "Payload formatter isolation"): 2 workers × (32 MiB of QuickJS heap + 40 MB of
 * V8 heap + ~10 MB of thread), one more while a terminated worker is being replaced, and margin.
 * The memory bomb alone took the AS from 143 MB to 1.6 GB.
 */
const RSS_BOUND_MB = 300;
/** A generous liveness bound on one of the other application's requests (they take milliseconds; the bomb stalled them 13 s). */
const ANSWER_BOUND_MS = 5000;

function rssMb(pid: number): number {
  const rss = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return rss ? Number(rss[1]) / 1024 : 0;
}

describe.each(MODES)('payload formatter isolation (%s)', (_mode, start, asProcess) => {
  let stack: StackUnderTest;
  let api: Api;
  let reg: Registries;
  let receiver: WebhookReceiver;
  let gateway: ConnectedGateway;
  let victim: string;
  /** A device of its own application for each abusive script. */
  const devices = new Map<string, AbpDevice>();
  let victimDev: string;
  let baselineRss = 0;
  let maxRss = 0;
  let sampler: NodeJS.Timeout | undefined;
  const asPid = () => stack.processes.get(asProcess)?.pid ?? 0;

  /** An ABP device (IS, NS session, AS AppSKey) with a JavaScript formatter for both directions. */
  async function abpDevice(app: string, script: string): Promise<AbpDevice> {
    const dev = uid('dev');
    const ids = { device_id: dev, dev_eui: randomEui() };
    const devAddr = randomDevAddr();
    const keys = { nwkSKey: randomKey(), appSKey: randomKey() };
    expectStatus(await api.post(`/api/v3/applications/${app}/devices`, { end_device: { ids: { ...ids, application_ids: { application_id: app } } } }), 200);
    const ns = abpNsDevice(ids, devAddr, keys.nwkSKey, { frequency_plan_id: 'EU_863_870_TTN' });
    await reg.setOk('ns', app, dev, ns.device, ns.paths);
    const as = abpAsDevice(ids, devAddr, keys.appSKey);
    const formatters = {
      up_formatter: 'FORMATTER_JAVASCRIPT',
      up_formatter_parameter: script,
      down_formatter: 'FORMATTER_JAVASCRIPT',
      down_formatter_parameter: script,
    };
    await reg.setOk('as', app, dev, { ...as.device, formatters }, [...as.paths, 'formatters']);
    return { app, dev, devAddr, keys, fCnt: 0 };
  }

  /** A new application with the webhook `/up` of `receiver`. */
  async function application(prefix: string): Promise<string> {
    const app = uid(prefix);
    await createApplications(api, [app]);
    await setJsonWebhook(api, app, 'hook', receiver.url, { uplink_message: '/up' });
    return app;
  }

  /** Sends a data uplink of `d` through the gateway. */
  async function radioUplink(d: AbpDevice, payload: Buffer): Promise<void> {
    const frame = dataUplink(d.keys, d.devAddr, d.fCnt++, 2, payload);
    await gateway.udp.push({ rxpk: [SimulatedUdpGateway.rxpk(frame, { tmst: 1_000_000 + d.fCnt })] });
  }

  /** The next `count` `as.up.data.decode.fail` events of the applications, by device ID (the stream opened before `act`). */
  async function decodeFailures(apps: string[], count: number, act: () => Promise<void>): Promise<Map<string | undefined, { name?: string }>> {
    const events = await EventStream.open(stack.baseUrl, {
      authorization: `Bearer ${stack.adminKey}`,
      body: { identifiers: apps.map((app) => ({ application_ids: { application_id: app } })), names: ['as.up.data.decode.fail'] },
    });
    try {
      expect((await events.nextEvent()).name).toBe('events.stream.start');
      await act();
      const failures: EventJson[] = await events.nextEvents(count, 30_000);
      return new Map(failures.map((e) => [(e.identifiers?.[0] as { device_ids?: { device_id?: string } }).device_ids?.device_id, e.data as { name?: string }]));
    } finally {
      events.close();
    }
  }

  const simulate = (app: string, dev: string, bytes: number[]) =>
    api.post(`/api/v3/as/applications/${app}/devices/${dev}/up/simulate`, {
      uplink_message: { f_port: 2, frm_payload: Buffer.from(bytes).toString('base64') },
    });
  const deviceOf = (f: AbusiveFormatter) => devices.get(f.name) as AbpDevice;
  const uplinksOf = (dev: string) => receiver.to('/up').filter((r) => r.json?.end_device_ids?.device_id === dev);
  /** The uplinks of `dev` that came from the gateway (not simulated). */
  const radioUplinksOf = (dev: string) => uplinksOf(dev).filter((r) => r.json?.simulated !== true);

  beforeAll(async () => {
    stack = await start();
    api = new Api(() => stack);
    reg = new Registries(api);
    receiver = await new WebhookReceiver().start();
    for (const f of ABUSIVE_FORMATTERS) devices.set(f.name, await abpDevice(await application('abuser'), f.script));
    victim = await application('victim');
    victimDev = (await abpDevice(victim, DECODER)).dev;
    [gateway] = await connectGateways(api, stack, { count: 1, replicas: false });
    baselineRss = rssMb(asPid());
    maxRss = baselineRss;
    sampler = setInterval(() => (maxRss = Math.max(maxRss, rssMb(asPid()))), 50);
  }, 180_000);

  afterAll(async () => {
    if (sampler) clearInterval(sampler);
    gateway?.udp.close();
    await receiver?.stop();
    await stack?.stop();
  });

  it.each(ABUSIVE_FORMATTERS.map((f) => [f.name, [f.error].flat().join(' or '), f] as const))(
    'refuses a simulated uplink whose formatter is %s with 400 decode_payload (cause %s), and the AS goes on',
    async (_name, _error, f) => {
      const res = await simulate(deviceOf(f).app, deviceOf(f).dev, [1]);
      const details = expectTtsError(res, 400, 3, 'pkg/applicationserver', 'decode_payload');
      expect([details.cause?.name, isErrorOf(f, details.cause?.name)]).toEqual([expect.any(String), true]);
      expect(res.ms).toBeLessThan(ANSWER_BOUND_MS);
      // Nothing of it was delivered.
      expect(uplinksOf(deviceOf(f).dev)).toHaveLength(0);
      expectStatus(await simulate(victim, victimDev, [7]), 200);
    },
  );

  it.each(ABUSIVE_FORMATTERS.map((f) => [f.name, [f.error].flat().join(' or '), f] as const))(
    'refuses a downlink whose formatter is %s with 400 encode_payload (cause %s)',
    async (_name, _error, f) => {
      const res = await api.post(`/api/v3/as/applications/${deviceOf(f).app}/devices/${deviceOf(f).dev}/down/push`, {
        downlinks: [{ f_port: 2, decoded_payload: { on: true } }],
      });
      const cause = expectTtsError(res, 400, 3, 'pkg/applicationserver', 'encode_payload').cause;
      expect([cause?.name, isErrorOf(f, cause?.name)]).toEqual([expect.any(String), true]);
    },
  );

  it('delivers a real uplink whose formatter runs away without decoded_payload, with as.up.data.decode.fail naming the limit', async () => {
    const payload = Buffer.from([1, 2, 3]);
    const failures = await decodeFailures(
      ABUSIVE_FORMATTERS.map((f) => deviceOf(f).app),
      ABUSIVE_FORMATTERS.length,
      async () => {
        for (const f of ABUSIVE_FORMATTERS) await radioUplink(deviceOf(f), payload);
      },
    );
    await receiver.waitFor(() => ABUSIVE_FORMATTERS.every((f) => radioUplinksOf(deviceOf(f).dev).length === 1), 30_000, "every abuser device's uplink at /up");
    for (const f of ABUSIVE_FORMATTERS) {
      const up = radioUplinksOf(deviceOf(f).dev)[0].json;
      expect(up.uplink_message).toMatchObject({ f_port: 2, frm_payload: payload.toString('base64') });
      expect(up.uplink_message.decoded_payload).toBeUndefined();
      expect([f.name, isErrorOf(f, failures.get(deviceOf(f).dev)?.name)]).toEqual([f.name, true]);
    }
  });

  it('suspends an application whose scripts keep running away (FORMATTER_APP_RUNAWAYS_PER_MIN, 5): 429 formatter_suspended at once, its uplinks still delivered', async () => {
    const d = await abpDevice(await application('repeat'), (ABUSIVE_FORMATTERS.find((f) => f.error === 'script_timeout') as AbusiveFormatter).script);
    for (let i = 0; i < 5; i++) expectTtsError(await simulate(d.app, d.dev, [i]), 400, 3, 'pkg/applicationserver', 'decode_payload');
    const suspended = await simulate(d.app, d.dev, [5]);
    expectTtsError(suspended, 429, 8, 'pkg/messageprocessors', 'formatter_suspended', { application_id: d.app, runaways: 5 });
    expect(suspended.ms).toBeLessThan(ANSWER_BOUND_MS);
    const failures = await decodeFailures([d.app], 1, () => radioUplink(d, Buffer.from([9])));
    expect(failures.get(d.dev)).toMatchObject({ name: 'formatter_suspended' });
    await receiver.waitFor(() => radioUplinksOf(d.dev).length === 1, 30_000, "the suspended application's uplink");
    expect(radioUplinksOf(d.dev)[0].json.uplink_message.decoded_payload).toBeUndefined();
    // Another application is not suspended.
    expectStatus(await simulate(victim, victimDev, [1]), 200);
  });

  it("answers another application's requests and decodes its uplinks while abusive applications run their scripts at 10/s", async () => {
    const abusive: Array<Promise<number | string>> = [];
    const answers: Array<{ status: number; ms: number }> = [];
    let victimUplinks = 0;
    const until = Date.now() + 4000;
    let next = 0;
    const fire = setInterval(() => {
      const f = ABUSIVE_FORMATTERS[next++ % ABUSIVE_FORMATTERS.length];
      abusive.push(
        simulate(deviceOf(f).app, deviceOf(f).dev, [next]).then(
          (r) => r.status,
          (err: Error) => err.message,
        ),
      );
    }, 100);
    try {
      while (Date.now() < until) {
        const sim = await simulate(victim, victimDev, [victimUplinks + 1, 9]);
        victimUplinks++;
        const get = await api.get(`/api/v3/as/applications/${victim}/devices/${victimDev}?field_mask=formatters`);
        answers.push({ status: sim.status, ms: sim.ms }, { status: get.status, ms: get.ms });
        await sleep(20);
      }
    } finally {
      clearInterval(fire);
    }
    const statuses = new Set(await Promise.all(abusive));
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    expect(Math.max(...answers.map((a) => a.ms))).toBeLessThan(ANSWER_BOUND_MS);
    // The abusers got answers too: 400 (their scripts' limits) or 429 (suspended, or queued to their bound), never a 5xx.
    expect([...statuses].filter((s) => s !== 400 && s !== 429)).toEqual([]);
    // Every victim uplink reached its webhook decoded by its own formatter.
    await receiver.waitFor(() => uplinksOf(victimDev).length >= victimUplinks, 30_000, "the victim's uplinks");
    const decoded = uplinksOf(victimDev).map((r) => r.json.uplink_message.decoded_payload);
    expect(decoded.filter((p) => p?.port === 2 && typeof p.first === 'number')).toHaveLength(decoded.length);
  });

  it('keeps the AS process alive, its memory bounded and every QuickJS runtime freed', () => {
    expect(stack.processes.get(asProcess)?.exitCode).toBeNull();
    expect(maxRss - baselineRss).toBeLessThan(RSS_BOUND_MB);
    const logs = stack.logsOf(asProcess);
    expect(logs).not.toContain('list_empty');
    expect(logs).not.toContain('Maximum call stack size exceeded');
  });
});
