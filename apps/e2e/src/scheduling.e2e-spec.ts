/**
 * The Gateway Server's downlink scheduler end to end, in both run modes, through simulated
 * gateways that behave as real concentrators (`actAsConcentrator`: the packet forwarder's JIT
 * queue, which answers `COLLISION_PACKET` for a downlink that overlaps one it accepted and
 * `TOO_LATE` for one it cannot program in time). Frames are built by `lora-packet`.
 *
 * - A burst of confirmed uplinks from many ABP devices heard within a few hundred µs: each gets
 *   an ACK in RX1 or RX2 only where the gateway's radio is free; the NS takes a refused downlink
 *   to the next gateway that heard the device; what no gateway could carry is reported
 *   (`ns.down.data.schedule.fail` with each window's reason), and no gateway refuses any.
 * - A burst of class C downlinks: each timed by the concentrator's clock after the other.
 * - Sustained confirmed traffic through one EU868 gateway (a short duty-cycle window, so the limit
 *   is reached in seconds): no sub-band is ever on the air longer than its duty cycle allows in any
 *   window, and the downlinks refused for it are reported.
 * - A gateway whose radio refuses a confirmed application downlink (`TX_FREQ`, in RX1 and RX2):
 *   the same frame reaches the device through the next gateway in its receive window, and the
 *   application hears `downlink_sent` once; also with two replicas of each component, so the
 *   refusal may reach another NS replica than the one that scheduled.
 */
import loraPacket from 'lora-packet';
import type { EventJson } from '@lorawan/api';
import { startDistributedStack, startEmbeddedStack, txpkAirtimeUs, type StackUnderTest, WebhookReceiver } from '@lorawan/testing';
import { abpAsDevice, abpNsDevice, randomDevAddr, randomKey, Registries, randomEui, uid } from './devices';
import { EventStream } from './event-stream';
import { type ConnectedGateway, connectGateways } from './gateways';
import { Api, createApplications, expectStatus, sleep } from './http-client';
import { dataUplink } from './lora-frames';
import { metricSum } from './prometheus';
import { setJsonWebhook, WEBHOOK_ENV } from './webhook-env';

type Start = (env: Record<string, string>) => Promise<StackUnderTest>;
const ALL = ['is', 'js', 'ns', 'as', 'events', 'gs'] as const;
const MODES: Array<[string, Start]> = [
  ['distributed', (env) => startDistributedStack({ components: [...ALL], env })],
  ['embedded', (env) => startEmbeddedStack({ env })],
];
// The data plane without the NS's DevStatusReq downlinks.
const ENV = { NS_DEFAULT_MAC_SETTINGS: JSON.stringify({ status_count_periodicity: 0, status_time_periodicity: '0s' }) };
/** An ABP device already on the plan's channels and RX2 (SF12, 869.525 MHz): no MAC commands to negotiate them. */
const ON_PLAN = {
  factory_preset_frequencies: ['868100000', '868300000', '868500000', '867100000', '867300000', '867500000', '867700000', '867900000'],
  desired_rx2_data_rate_index: 0,
};
const RX2_MHZ = 869.525;

interface Device {
  dev: string;
  devAddr: string;
  keys: { nwkSKey: string; appSKey: string };
}

/** The DevAddr (hex, upper case) of a downlink frame, as lora-packet reads it. */
function devAddrOf(txpk: Record<string, unknown>): string {
  return (loraPacket.fromWire(Buffer.from(txpk.data as string, 'base64')).getBuffers().DevAddr ?? Buffer.alloc(0)).toString('hex').toUpperCase();
}

/** Accepted transmissions overlap (the concentrator would have refused the later one; checked here again from the frames). */
function overlapping(gateway: ConnectedGateway): string[] {
  const sent = [...gateway.udp.accepted].sort((a, b) => a.count_us - b.count_us);
  const found: string[] = [];
  for (let i = 1; i < sent.length; i++) {
    const gap = sent[i].count_us - (sent[i - 1].count_us + txpkAirtimeUs(sent[i - 1].txpk));
    if (gap <= 32_500) found.push(`${sent[i - 1].count_us}+${txpkAirtimeUs(sent[i - 1].txpk)} then ${sent[i].count_us}`);
  }
  return found;
}

function setup(start: Start, env: Record<string, string>) {
  const ctx = {} as { stack: StackUnderTest; api: Api; reg: Registries; app: string; opened: Array<{ close(): void }> };
  beforeAll(async () => {
    ctx.stack = await start({ ...ENV, ...env });
    ctx.api = new Api(() => ctx.stack);
    ctx.reg = new Registries(ctx.api);
    ctx.app = uid('app');
    ctx.opened = [];
    await createApplications(ctx.api, [ctx.app]);
  }, 120_000);
  afterAll(async () => {
    for (const o of ctx.opened ?? []) o.close();
    await ctx.stack?.stop();
  });
  return ctx;
}

async function gatewaysOf(ctx: ReturnType<typeof setup>, count: number): Promise<ConnectedGateway[]> {
  const gateways = await connectGateways(ctx.api, ctx.stack, { count, replicas: false });
  for (const g of gateways) {
    g.udp.actAsConcentrator();
    ctx.opened.push(g.udp);
  }
  return gateways;
}

async function abpDevices(ctx: ReturnType<typeof setup>, count: number, prefix: string, ns: Record<string, unknown> = {}): Promise<Device[]> {
  const devices: Device[] = [];
  for (let i = 0; i < count; i++) {
    const dev = uid(`${prefix}${i}`);
    const ids = { device_id: dev, dev_eui: randomEui() };
    const devAddr = randomDevAddr();
    const keys = { nwkSKey: randomKey(), appSKey: randomKey() };
    expectStatus(
      await ctx.api.post(`/api/v3/applications/${ctx.app}/devices`, { end_device: { ids: { ...ids, application_ids: { application_id: ctx.app } } } }),
      200,
    );
    const nsDevice = abpNsDevice(ids, devAddr, keys.nwkSKey, { frequency_plan_id: 'EU_863_870_TTN', mac_settings: ON_PLAN, ...ns });
    await ctx.reg.setOk('ns', ctx.app, dev, nsDevice.device, nsDevice.paths);
    const asDevice = abpAsDevice(ids, devAddr, keys.appSKey);
    await ctx.reg.setOk('as', ctx.app, dev, asDevice.device, asDevice.paths);
    devices.push({ dev, devAddr, keys });
  }
  return devices;
}

async function scheduleEvents(ctx: ReturnType<typeof setup>): Promise<EventStream> {
  const stream = await EventStream.open(ctx.stack.baseUrl, {
    authorization: `Bearer ${ctx.stack.adminKey}`,
    body: { identifiers: [{ application_ids: { application_id: ctx.app } }], names: ['/^ns\\.down\\.data\\.schedule\\.(success|fail)$/'] },
  });
  ctx.opened.push(stream);
  expect((await stream.nextEvent()).name).toBe('events.stream.start');
  return stream;
}

const deviceOf = (e: EventJson) => (e.identifiers?.[0] as { device_ids?: { device_id?: string } } | undefined)?.device_ids?.device_id;

/** The GS's metrics (the embedded process's, or the GS process's). */
async function gsMetrics(stack: StackUnderTest): Promise<string> {
  const port = stack.healthPorts.get('gs#0');
  return (await fetch(port ? `http://127.0.0.1:${port}/metrics` : `${stack.baseUrl}/metrics`)).text();
}

describe.each(MODES)('downlink scheduler (%s)', (_mode, start) => {
  const ctx = setup(start, {});

  it('a burst of confirmed uplinks heard within 110 µs: no downlink overlaps on either gateway, the NS moves refused ones to the next gateway, the rest are reported', async () => {
    const [near, far] = await gatewaysOf(ctx, 2);
    const devices = await abpDevices(ctx, 12, 'burst');
    const stream = await scheduleEvents(ctx);
    // Every device's confirmed uplink, 10 µs after the previous one, heard by both gateways (the near one better).
    const frames = devices.map((d) => dataUplink(d.keys, d.devAddr, 1, 1, Buffer.from([1]), { confirmed: true }));
    const nearAt = near.udp.concentratorTime();
    const farAt = far.udp.concentratorTime();
    await Promise.all([
      near.udp.push({ rxpk: frames.map((f, i) => ({ ...near.udp.rxpkNow(f, { rssi: -40, lsnr: 9 }), tmst: (nearAt + i * 10) >>> 0 })) }),
      far.udp.push({ rxpk: frames.map((f, i) => ({ ...far.udp.rxpkNow(f, { rssi: -100, lsnr: -2 }), tmst: (farAt + i * 10) >>> 0 })) }),
    ]);
    const events = await stream.nextEvents(12, 20_000);
    const succeeded = events.filter((e) => e.name === 'ns.down.data.schedule.success');
    const failed = events.filter((e) => e.name === 'ns.down.data.schedule.fail');
    expect(new Set(events.map(deviceOf)).size).toBe(12);
    // The gateways got exactly the downlinks the NS reports as scheduled, and refused none.
    await sleep(300);
    const downlinks = [...near.udp.downlinks, ...far.udp.downlinks];
    expect(downlinks).toHaveLength(succeeded.length);
    expect(downlinks.map((d) => d.ack)).toEqual(downlinks.map(() => 'NONE'));
    expect(overlapping(near)).toEqual([]);
    expect(overlapping(far)).toEqual([]);
    // Each gateway's radio carried one ACK in RX1 (868.1 MHz) and one in RX2 (869.525 MHz, SF12) a second later.
    for (const gateway of [near, far]) {
      const [rx1, rx2] = [...gateway.udp.downlinks].sort((a, b) => (a.txpk.freq as number) - (b.txpk.freq as number));
      expect([rx1.txpk.freq, rx2.txpk.freq]).toEqual([868.1, RX2_MHZ]);
      expect(Math.abs(((rx2.txpk.tmst as number) - (rx1.txpk.tmst as number) + 2 ** 32) % 2 ** 32) - 1_000_000).toBeLessThanOrEqual(110);
    }
    // Every downlink is the ACK of the device the NS says it scheduled (lora-packet reads the frame).
    const acked = new Set(downlinks.map((d) => devAddrOf(d.txpk)));
    expect(acked).toEqual(new Set(succeeded.map((e) => devices.find((d) => d.dev === deviceOf(e))?.devAddr.toUpperCase())));
    // What no gateway could carry is reported with each window's reason.
    expect(failed).toHaveLength(12 - 4);
    for (const e of failed)
      expect(e.data).toMatchObject({ namespace: 'pkg/gatewayserver/io', name: 'tx_schedule', attributes: { rx1: 'conflict', rx2: 'conflict' } });
    expect(metricSum(await gsMetrics(ctx.stack), 'lorawan_gs_downlinks_refused_total', { by: 'scheduler', reason: 'tx_schedule' })).toBeGreaterThanOrEqual(16);
  }, 90_000);

  it('a burst of class C downlinks: each timed on the concentrator’s clock after the previous one, none refused', async () => {
    const [gateway] = await gatewaysOf(ctx, 1);
    const devices = await abpDevices(ctx, 6, 'classc', { supports_class_c: true });
    for (const d of devices) {
      const { json } = await ctx.reg.getOk('ns', ctx.app, d.dev, ['mac_state']);
      const { ids, mac_state: macState } = json as { ids: { device_id: string }; mac_state: Record<string, unknown> };
      await ctx.reg.setOk('ns', ctx.app, d.dev, { ids, mac_state: { ...macState, device_class: 'CLASS_C' } }, ['mac_state.device_class']);
    }
    // One uplink each, so the NS knows the gateway hears them (and the GS the concentrator's clock).
    await gateway.udp.push({ rxpk: devices.map((d) => gateway.udp.rxpkNow(dataUplink(d.keys, d.devAddr, 1, 3, Buffer.from('hi')))) });
    await sleep(2500);
    const stream = await scheduleEvents(ctx);
    const before = gateway.udp.downlinks.length;
    await Promise.all(
      devices.map(async (d, i) =>
        expectStatus(
          await ctx.api.post(`/api/v3/as/applications/${ctx.app}/devices/${d.dev}/down/push`, {
            downlinks: [{ f_port: 7, frm_payload: Buffer.from(`class c ${i}`).toString('base64') }],
          }),
          200,
        ),
      ),
    );
    const events = await stream.nextEvents(devices.length, 20_000);
    expect(events.map((e) => e.name)).toEqual(devices.map(() => 'ns.down.data.schedule.success'));
    const downlinks = (await gateway.udp.waitForDownlinks(before + devices.length, 5000)).slice(before);
    for (const d of downlinks) expect(d.txpk).toMatchObject({ freq: RX2_MHZ, datr: 'SF12BW125', tmst: expect.any(Number) });
    expect(downlinks.map((d) => d.ack)).toEqual(downlinks.map(() => 'NONE'));
    expect(overlapping(gateway)).toEqual([]);
    const payloads = downlinks.map((d) => {
      const frame = loraPacket.fromWire(Buffer.from(d.txpk.data as string, 'base64'));
      const device = devices.find((x) => x.devAddr.toUpperCase() === devAddrOf(d.txpk));
      if (!device) throw new Error('a downlink to no device of the burst');
      return loraPacket.decrypt(frame, Buffer.from(device.keys.appSKey, 'hex'), Buffer.from(device.keys.nwkSKey, 'hex')).toString();
    });
    expect(payloads.sort()).toEqual(devices.map((_d, i) => `class c ${i}`).sort());
  }, 90_000);
});

/** 1 % of 20 s is 200 ms: a few ACKs exhaust the 868.0–868.6 MHz sub-band; 10 % (869.4–869.65 MHz) one SF12 ACK. */
const WINDOW_MS = 20_000;
const SUB_BANDS = [
  { min: 868.0, max: 868.6, duty: 0.01 },
  { min: 869.4, max: 869.65, duty: 0.1 },
];

describe.each(MODES)('duty cycle under sustained traffic (%s)', (_mode, start) => {
  const ctx = setup(start, { GS_DUTY_CYCLE_WINDOW_MS: String(WINDOW_MS) });

  it('an EU868 gateway never exceeds a sub-band’s duty cycle in any window; the downlinks it could not carry are reported', async () => {
    const [gateway] = await gatewaysOf(ctx, 1);
    const devices = await abpDevices(ctx, 4, 'busy');
    const stream = await scheduleEvents(ctx);
    // A confirmed uplink every 250 ms for 1.5 windows.
    const uplinks = Math.round((1.5 * WINDOW_MS) / 250);
    const started = Date.now();
    for (let i = 0; i < uplinks; i++) {
      const d = devices[i % devices.length];
      const fCnt = Math.floor(i / devices.length) + 1;
      await gateway.udp.push({ rxpk: [gateway.udp.rxpkNow(dataUplink(d.keys, d.devAddr, fCnt, 1, Buffer.from([i & 0xff]), { confirmed: true }))] });
      await sleep(Math.max(0, started + (i + 1) * 250 - Date.now()));
    }
    const events = await stream.nextEvents(uplinks, 30_000);
    await sleep(300);
    const succeeded = events.filter((e) => e.name === 'ns.down.data.schedule.success');
    const failed = events.filter((e) => e.name === 'ns.down.data.schedule.fail');
    expect(gateway.udp.downlinks).toHaveLength(succeeded.length);
    expect(gateway.udp.downlinks.map((d) => d.ack)).toEqual(gateway.udp.downlinks.map(() => 'NONE'));
    expect(overlapping(gateway)).toEqual([]);
    // Most could not go: each reported, with the duty cycle as a window's reason.
    expect(failed.length).toBeGreaterThan(uplinks / 2);
    for (const e of failed) expect(e.data).toMatchObject({ name: 'tx_schedule' });
    expect(failed.some((e) => JSON.stringify(e.data).includes('"duty_cycle"'))).toBe(true);
    // In every window (starting at each transmission's start or ending at each one's end), each sub-band's airtime stays within its duty cycle.
    const window = WINDOW_MS * 1000;
    const sent = gateway.udp.accepted.map((t) => ({ freq: Number(t.txpk.freq), start: t.count_us, end: t.count_us + txpkAirtimeUs(t.txpk) }));
    for (const sb of SUB_BANDS) {
      const inBand = sent.filter((t) => t.freq >= sb.min && t.freq <= sb.max);
      expect(inBand.length).toBeGreaterThan(0);
      const edges = inBand.flatMap((t) => [t.start, t.end - window]);
      for (const from of edges) {
        const airtime = inBand.reduce((sum, t) => sum + Math.max(0, Math.min(t.end, from + window) - Math.max(t.start, from)), 0);
        expect(airtime).toBeLessThanOrEqual(sb.duty * window);
      }
    }
    // The GS reports each sub-band's utilization within its limit.
    const text = await gsMetrics(ctx.stack);
    for (const sub_band of ['868000000-868600000', '869400000-869650000']) {
      const used = metricSum(text, 'lorawan_gs_sub_band_utilization', { sub_band, aggregate: 'max' });
      const limit = metricSum(text, 'lorawan_gs_sub_band_utilization', { sub_band, aggregate: 'limit' });
      expect(used).toBeGreaterThan(0);
      expect(used).toBeLessThanOrEqual(limit);
    }
  }, 120_000);
});

describe.each([
  ...MODES.map(([mode, start]) => [mode, start, false] as const),
  // The GS replica holding each gateway, and the NS replica that hears the refusal, may differ from the one that scheduled.
  [
    'distributed, two replicas of each component',
    (env: Record<string, string>) => startDistributedStack({ components: [...ALL], replicas: 2, env }),
    true,
  ] as const,
])('a downlink a gateway refuses (%s)', (_mode, start, replicas) => {
  const ctx = setup(start, WEBHOOK_ENV);

  it('a confirmed downlink the best gateway’s radio refuses (TX_FREQ in RX1 and RX2) reaches the device through the next gateway in its window; downlink_sent once, no downlink_failed', async () => {
    const receiver = await new WebhookReceiver().start();
    ctx.opened.push({ close: () => void receiver.stop() });
    await setJsonWebhook(ctx.api, ctx.app, 'hook', receiver.url, { downlink_sent: '/down/sent', downlink_failed: '/down/failed' });
    // With replicas, each gateway on its own Gateway Server.
    const [refusing, next] = await connectGateways(ctx.api, ctx.stack, { count: 2, replicas });
    // A gateway whose radio transmits on 863–865 MHz only: EU868's RX1 (the uplink's channel) and RX2 (869.525 MHz) are outside it.
    refusing.udp.actAsConcentrator({ tx_freq_min: 863_000_000, tx_freq_max: 865_000_000 });
    next.udp.actAsConcentrator();
    ctx.opened.push(refusing.udp, next.udp);
    const [device] = await abpDevices(ctx, 1, 'refused');
    const text = 'through the next gateway';
    expectStatus(
      await ctx.api.post(`/api/v3/as/applications/${ctx.app}/devices/${device.dev}/down/push`, {
        downlinks: [{ f_port: 5, frm_payload: Buffer.from(text).toString('base64'), confirmed: true }],
      }),
      200,
    );
    // A confirmed uplink heard by both, the refusing gateway better.
    const frame = dataUplink(device.keys, device.devAddr, 1, 1, Buffer.from([1]), { confirmed: true });
    const nextAt = next.udp.concentratorTime();
    await Promise.all([
      refusing.udp.push({ rxpk: [refusing.udp.rxpkNow(frame, { rssi: -40, lsnr: 9 })] }),
      next.udp.push({ rxpk: [{ ...next.udp.rxpkNow(frame, { rssi: -100, lsnr: -2 }), tmst: nextAt }] }),
    ]);
    const [sent] = await next.udp.waitForDownlinks(1, 10_000);
    // The refusing gateway was asked first, in RX1, then (the GS's own retry) in RX2: its radio refused both.
    expect(refusing.udp.downlinks.map((d) => [d.txpk.freq, d.ack])).toEqual([
      [868.1, 'TX_FREQ'],
      [RX2_MHZ, 'TX_FREQ'],
    ]);
    // The next gateway's concentrator took the same frame, in the device's RX1 (1 s after the uplink) or RX2 (2 s).
    expect(sent.ack).toBe('NONE');
    expect(sent.txpk.data).toBe(refusing.udp.downlinks[0].txpk.data);
    const after = ((sent.txpk.tmst as number) - nextAt + 2 ** 32) % 2 ** 32;
    expect([
      [1_000_000, 868.1],
      [2_000_000, RX2_MHZ],
    ]).toContainEqual([after, sent.txpk.freq]);
    // The device reads it (lora-packet): the ACK, its FCnt, a valid MIC, the application's payload.
    const down = loraPacket.fromWire(Buffer.from(sent.txpk.data as string, 'base64'));
    expect([down.getMType(), down.getFCtrlACK(), down.getFPort()]).toEqual(['Confirmed Data Down', true, 5]);
    expect(devAddrOf(sent.txpk)).toBe(device.devAddr.toUpperCase());
    expect(loraPacket.verifyMIC(down, Buffer.from(device.keys.nwkSKey, 'hex'))).toBe(true);
    expect(loraPacket.decrypt(down, Buffer.from(device.keys.appSKey, 'hex'), Buffer.from(device.keys.nwkSKey, 'hex')).toString()).toBe(text);
    // The application hears it went out, once; never that it failed.
    await receiver.waitFor(() => receiver.to('/down/sent').length === 1, 10_000, 'downlink_sent');
    await sleep(1000);
    expect(receiver.to('/down/sent')).toHaveLength(1);
    expect(receiver.to('/down/sent')[0].json).toMatchObject({
      end_device_ids: { device_id: device.dev },
      downlink_sent: { f_port: 5, f_cnt: down.getFCnt(), confirmed: true },
    });
    expect(receiver.to('/down/failed')).toEqual([]);
    expect(next.udp.downlinks).toHaveLength(1);
    expect(refusing.udp.downlinks).toHaveLength(2);
  }, 120_000);
});
