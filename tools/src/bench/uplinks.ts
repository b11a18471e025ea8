import { readFileSync } from 'node:fs';
import { randomInt } from 'node:crypto';
import loraPacket from 'lora-packet';
import { SimulatedOtaaDevice } from '@lorawan/testing';
import { type ReceivedDelivery, ThreadedWebhookReceiver } from './threaded-receiver';
import { createApplications } from './applications';
import { answerSlotUs, confirmedGateways, JOIN_ACCEPT_BYTES } from './confirmed-gateways';
import { JOIN_ACCEPT_DELAYS } from './joins';
import { log, round } from './load';
import { counterDelta, counterDeltaAll, type Scrape, scrapeAll, subBandUtilization } from './metrics';
import {
  closeGateways,
  collectDownlinks,
  type Copy,
  CpuMeter,
  DATA_RATES,
  type Downlink,
  drive,
  EU868_CHANNELS,
  EU868_JOIN_CHANNELS,
  expect200,
  forEachOnConnections,
  type Gateway,
  hex,
  latencyFigures,
  openGateways,
  planCopies,
  pushSpan,
  type RadioNames,
  type RadioPhaseOptions,
  registerOtaaDevices,
  type RxDelays,
  settle,
  sleep,
  stackMetrics,
  type Transmission,
} from './radio';
import { Connection } from './register';

/**
 * `uplinks`: data uplinks end to end, as radio traffic reaches a network: UDP PUSH_DATA in at the
 * Gateway Server, out as a webhook of the Application Server. `devices` OTAA devices (1.0.3,
 * CayenneLPP uplink formatter), joined through the same UDP path (their join-accepts opened by
 * lora-packet for the DevAddr and session keys), `gateways` simulated packet forwarders spread over
 * the GS replicas, an application webhook (`/up`, `/down/sent`) to a receiver in this process.
 * Every frame is built by lora-packet before the load. Then, open loop as `joins`, each uplink heard
 * by every gateway:
 * - A (`rate` per second for `durationS`, after a warm-up): unconfirmed uplinks, FPort 1; latency
 *   from the first gateway's push to the uplink's delivery at the webhook (matched by device ID and
 *   FCnt);
 * - B (`downlinkRate` per second for `durationS`): confirmed uplinks, after one application
 *   downlink pushed per device (`…/down/push`); each must be answered by one downlink (a PULL_RESP,
 *   matched by its `tmst`: the uplink copy's + 1 s for RX1, + 2 s for RX2, and its gateway;
 *   answered with a TX_ACK) that carries the ACK and whose MIC holds with the device's NwkSKey
 *   (lora-packet), the first of each device with the application's payload.
 */
export interface UplinkPhaseOptions extends RadioPhaseOptions {
  /** Confirmed uplinks per second offered in sub-phase B (`rate`: unconfirmed ones in A; `warmup`: uplinks at `rate` before A). */
  downlinkRate: number;
  /** The names of the phase's devices and gateways (default: `UPLINK_NAMES`, the `uplinks` phase's). */
  names?: RadioNames;
}

/** The `uplinks` phase's names (`uplinks_lbs` has its own, apart). */
export const UPLINK_NAMES: RadioNames = { label: 'uplinks', deviceIdPrefix: 'up', devEuiPrefix: '70B3D57EB0', gatewayIdPrefix: 'bench-up-gtw' };

/** The targets: uplinks per second delivered with a p99 (first push → webhook) below 500 ms; class A answers inside RX1. */
export const TARGET_UPLINKS_PER_S = 1000;
export const TARGET_P99_MS = 500;
/** Confirmed uplinks per second whose answers must all be inside RX1. */
export const TARGET_DOWNLINKS_PER_S = 500;
/** EU868 data downlinks (RECEIVE_DELAY1 / 2): the uplink's concentrator time + these µs. */
export const RECEIVE_DELAYS: RxDelays = { rx1Us: 1_000_000, rx2Us: 2_000_000 };
const RX1_MS = RECEIVE_DELAYS.rx1Us / 1000;
/** Joins, and the first uplink of each device (its pending session becomes current), offered per second during the setup. */
const JOIN_RATE = 100;
const FIRST_UPLINK_RATE = 200;
const JOIN_ROUNDS = 3;
/** How long after the last push the join-accepts, and the deliveries and downlinks, are waited for. */
export const JOIN_WAIT_MS = 6500;
export const DELIVERY_WAIT_MS = 10000;
const JOIN_EUI = '70B3D57ED0000002';
/** The application downlink pushed for every device before sub-phase B. */
const APP_DOWNLINK = { fPort: 2, payload: Buffer.from('bench down') };
/** The longest answer of a confirmed sub-phase: MHDR, DevAddr, FCtrl, FCnt, FPort, the application's payload, MIC. */
const CONFIRMED_ANSWER_BYTES = 1 + 4 + 1 + 2 + 1 + APP_DOWNLINK.payload.length + 4;
const COUNTERS: Record<string, [string, string]> = {
  ns_data_uplinks: ['lorawan_ns_data_uplinks_total', 'result'],
  ns_join_requests: ['lorawan_ns_join_requests_total', 'result'],
  gs_uplinks: ['lorawan_gs_uplinks_total', 'result'],
  gs_downlinks: ['lorawan_gs_downlinks_total', 'result'],
  gs_udp_dropped: ['lorawan_gs_udp_dropped_total', 'reason'],
  webhook_deliveries: ['lorawan_webhook_deliveries_total', 'result'],
};

export interface Device {
  deviceId: string;
  devEui: string;
  appKey: string;
  sim: SimulatedOtaaDevice;
  session?: { devAddr: string; nwkSKey: string; appSKey: string };
  nextFCnt: number;
}

/** A join-request or a data uplink on air. */
export interface Tx extends Transmission {
  device: number;
  kind: 'join' | 'up' | 'confirmed';
  fCnt: number;
  /** Date.now() of its first delivery at `/up`. */
  deliveredAt?: number;
  /** When the stack's components received it, from that delivery (ms since the epoch): where its latency went. */
  stages?: UplinkStages;
}

/** The receive times an ApplicationUp carries: the GS's (`rx_metadata[].received_at`, the first copy), the NS's (`uplink_message.received_at`), the AS's (`received_at`). */
export interface UplinkStages {
  gs?: number;
  ns?: number;
  as?: number;
}

/** The receive times of one delivered ApplicationUp (absent where a component left its time out). */
export function uplinkStages(up: ReceivedDelivery['json']): UplinkStages {
  const ms = (at: string | undefined) => (at ? Date.parse(at) : NaN);
  const gs = Math.min(...(up?.uplink_message?.rx_metadata ?? []).map((md) => ms(md.received_at)).filter((t) => !Number.isNaN(t)));
  const stages: UplinkStages = {};
  if (Number.isFinite(gs)) stages.gs = gs;
  const ns = ms(up?.uplink_message?.received_at);
  if (!Number.isNaN(ns)) stages.ns = ns;
  const as = ms(up?.received_at);
  if (!Number.isNaN(as)) stages.as = as;
  return stages;
}

/** A data uplink built before the load. */
export type Frame = Pick<Tx, 'device' | 'kind' | 'fCnt' | 'data'>;

/** A few CayenneLPP values (temperature, humidity) that change with the FCnt. */
function lpp(fCnt: number): Buffer {
  const t = 200 + (fCnt % 100);
  return Buffer.from([0x01, 0x67, t >> 8, t & 0xff, 0x02, 0x68, 80 + (fCnt % 40)]);
}

/** `count` data uplinks of the `active` devices in turn, each with its device's next FCnt, built by lora-packet. */
export function buildFrames(devices: Device[], active: number[], count: number, confirmed: boolean): Frame[] {
  const frames: Frame[] = [];
  for (let n = 0; n < count; n++) {
    const index = active[n % active.length];
    const d = devices[index];
    const s = d.session as NonNullable<Device['session']>;
    const fCnt = d.nextFCnt++;
    const high = Buffer.alloc(2);
    high.writeUInt16LE(fCnt >>> 16);
    const data = loraPacket
      .fromFields(
        {
          MType: confirmed ? 'Confirmed Data Up' : 'Unconfirmed Data Up',
          DevAddr: Buffer.from(s.devAddr, 'hex'),
          FCnt: fCnt & 0xffff,
          FPort: 1,
          payload: lpp(fCnt),
        },
        Buffer.from(s.appSKey, 'hex'),
        Buffer.from(s.nwkSKey, 'hex'),
        undefined,
        high,
      )
      .getPHYPayload() as Buffer;
    frames.push({ device: index, kind: confirmed ? 'confirmed' : 'up', fCnt, data });
  }
  return frames;
}

/**
 * When the transmissions of a send are due: one every 1/rate s, or segments of `count`
 * transmissions at their own rate one after the other (a burst, then a lighter load).
 */
export type Schedule = number | ReadonlyArray<{ count: number; rate: number }>;

/** ms after the first transmission that transmission `n` of `schedule` is due at. */
function dueOffsetMs(schedule: Schedule, n: number): number {
  if (typeof schedule === 'number') return (n * 1000) / schedule;
  let offset = 0;
  let left = n;
  for (const segment of schedule) {
    if (left < segment.count) return offset + (left * 1000) / segment.rate;
    left -= segment.count;
    offset += (segment.count * 1000) / segment.rate;
  }
  return offset;
}

/** How long `Air.send` waits for its transmissions to be done after the last push; just before it, after it. */
export interface SendOptions {
  /** At most this long. */
  waitMs: number;
  /** Or until none more was done for this long (the stack's backlog drained or lost): a long `waitMs` then costs no idle time. */
  quietMs?: number;
  /**
   * Each transmission heard by this many gateways, each gateway best in turn (a confirmed sub-phase, the setup's joins:
   * `confirmed-gateways.ts`); else by every gateway, the best drawn, or by the phase's `gateways` once the air has more.
   */
  heardBy?: number;
  start?(): void;
  offered?(): void;
}

/**
 * The radio side: every transmission (joins and uplinks) in one list, the gateways, and the
 * PULL_RESPs matched as they come.
 */
export class Air {
  readonly txs: Tx[] = [];
  /** Uplink index by `<device ID>/<FCnt>`, as the webhook names it. */
  readonly byFrame = new Map<string, number>();
  readonly unmatched = { count: 0 };
  readonly pushFailures = { count: 0 };
  private readonly collector: NodeJS.Timeout;
  /** The gateway that is best for the next transmission heard by a few (`SendOptions.heardBy`). */
  private nextBest = 0;

  constructor(
    readonly gateways: Gateway[],
    private readonly devices: Device[],
    private readonly epoch: number,
    private readonly o: RadioPhaseOptions,
    /** Opens `count` more gateways, numbered from `first` (`widen`). */
    private readonly openMore?: (first: number, count: number) => Promise<Gateway[]>,
  ) {
    // PULL_RESPs are matched and acknowledged as they come (their arrival time is taken on receipt by the simulated gateway).
    this.collector = setInterval(() => this.collect(), 10);
  }

  collect(): void {
    collectDownlinks(this.gateways, this.txs, this.unmatched);
  }

  close(): void {
    clearInterval(this.collector);
  }

  /** At least `count` gateways from now on (they are closed with the others). */
  async widen(count: number, label: string): Promise<void> {
    const more = count - this.gateways.length;
    if (more <= 0) return;
    if (!this.openMore) throw new Error(`${label}: cannot open more gateways`);
    log(`${label}: opening ${more} more gateways (${count} in all)`);
    this.gateways.push(...(await this.openMore(this.gateways.length, more)));
  }

  /** Transmissions `items` (joins or uplinks) on `schedule` from `t0` (performance.now()); returns their copies by due time. */
  plan(items: Frame[], schedule: Schedule, t0: number, delays: RxDelays, heardBy?: number): Copy[] {
    const copies: Copy[] = [];
    for (const [n, item] of items.entries()) {
      const index = this.txs.length;
      const heard = heardBy === undefined ? undefined : { best: this.nextBest++ % this.gateways.length, count: heardBy };
      const planned = planCopies(this.gateways, index, t0 + dueOffsetMs(schedule, n), this.o.jitterMs, this.epoch, delays, heard);
      const channel = item.kind === 'join' ? EU868_JOIN_CHANNELS : EU868_CHANNELS;
      this.txs.push({
        ...item,
        freq: channel[index % channel.length],
        datr: DATA_RATES[Math.floor(index / channel.length) % DATA_RATES.length],
        best: planned.best,
        copies: planned.copies,
        downlinks: [],
      });
      if (item.kind !== 'join') this.byFrame.set(`${this.devices[item.device].deviceId}/${item.fCnt}`, index);
      copies.push(...planned.copies);
    }
    return copies.sort((a, b) => a.due - b.due);
  }

  /**
   * Plans and sends the items (open loop), then waits until `done` holds for each of them, at most
   * `wait.waitMs` after the last push (or until none more was done for `wait.quietMs`).
   * `wait.start` runs just before the first push, `wait.offered` just after the last.
   */
  async send(items: Frame[], schedule: Schedule, delays: RxDelays, done: (tx: Tx) => boolean, wait: SendOptions) {
    const from = this.txs.length;
    const t0 = performance.now() + 200;
    // Once more gateways were opened (for the answers' radio time), each transmission is still heard by the phase's `gateways`.
    const heardBy = wait.heardBy ?? (this.gateways.length > this.o.gateways ? this.o.gateways : undefined);
    const copies = this.plan(items, schedule, t0, delays, heardBy);
    const sent = this.txs.slice(from);
    await sleep(Math.max(0, t0 - performance.now()));
    wait.start?.();
    const lags = await drive(copies, this.gateways, this.txs, this.o.fetchMs, this.pushFailures);
    wait.offered?.();
    const deadline = Date.now() + wait.waitMs;
    let doneCount = 0;
    let progressAt = Date.now();
    while (Date.now() < deadline && doneCount < sent.length && Date.now() - progressAt < (wait.quietMs ?? Infinity)) {
      await sleep(20);
      const now = sent.filter(done).length;
      if (now > doneCount) [doneCount, progressAt] = [now, Date.now()];
    }
    this.collect();
    return { sent, lags };
  }
}

/**
 * Joins every device through the gateways (a few rounds for the ones without a join-accept), opens
 * each join-accept with lora-packet (`SimulatedOtaaDevice`): its DevAddr and session keys.
 */
async function joinDevices(air: Air, o: RadioPhaseOptions, devices: Device[], label: string): Promise<Array<{ joins: number; accepted: number }>> {
  const rounds: Array<{ joins: number; accepted: number }> = [];
  // Every join-accept is sent in RX1 by the gateway that heard the join-request best, and one radio sends one frame at a time:
  // enough gateways for JOIN_RATE, as for confirmed uplinks (`confirmed-gateways.ts`), each join heard by the phase's `gateways`.
  await air.widen(confirmedGateways(JOIN_RATE, answerSlotUs(DATA_RATES, JOIN_ACCEPT_BYTES, o.jitterMs), o.gateways), label);
  for (let attempt = 1; attempt <= JOIN_ROUNDS; attempt++) {
    const pending = devices.map((d, i) => [d, i] as const).filter(([d]) => !d.session);
    if (pending.length === 0) break;
    log(
      `${label}: joining ${pending.length} devices at ${JOIN_RATE}/s through ${air.gateways.length} gateways, each join heard by ${o.gateways} (round ${attempt})`,
    );
    const joins = pending.map(([d, device]) => ({ device, kind: 'join' as const, fCnt: -1, data: d.sim.joinRequest() }));
    const { sent } = await air.send(joins, JOIN_RATE, JOIN_ACCEPT_DELAYS, (tx) => tx.downlinks.length > 0, { waitMs: JOIN_WAIT_MS, heardBy: o.gateways });
    for (const tx of sent) {
      const d = devices[tx.device];
      for (const down of tx.downlinks) {
        try {
          const accepted = d.sim.acceptJoin(Buffer.from(String(down.txpk.data), 'base64'));
          d.session = { devAddr: accepted.devAddr, ...(accepted.keys as { nwkSKey: string; appSKey: string }) };
          break;
        } catch {
          // not its join-accept (or a bad one): the next, or another round
        }
      }
    }
    rounds.push({ joins: sent.length, accepted: sent.filter((tx) => devices[tx.device].session).length });
  }
  return rounds;
}

/**
 * Waits until the NS holds each joined device's pending session (a real device is not heard again
 * before its join-accept's RX window; these are at once): an uplink before would match no session.
 * Returns the devices whose session (the one of the join-accept they got) the NS does not hold 30 s on.
 */
async function waitPendingSessions(o: RadioPhaseOptions, devices: Device[]): Promise<Device[]> {
  const deadline = Date.now() + 30000;
  let waiting = devices;
  while (waiting.length > 0 && Date.now() < deadline) {
    const still: Device[] = [];
    await forEachOnConnections(o, o.clients, waiting, async (conn, d) => {
      const body = await expect200(conn, 'GET', `/api/v3/ns/applications/${o.applicationId}/devices/${d.deviceId}?field_mask=pending_session,session`);
      const held = JSON.parse(body) as { pending_session?: { dev_addr?: string }; session?: { dev_addr?: string } };
      const devAddr = d.session?.devAddr;
      if (held.pending_session?.dev_addr !== devAddr && held.session?.dev_addr !== devAddr) still.push(d);
    });
    waiting = still;
    if (waiting.length > 0) await sleep(200);
  }
  return waiting;
}

/** What the webhook receiver got: the first delivery of each uplink at `/up`, repeats apart, and `downlink_sent` by device. */
export class Deliveries {
  duplicates = 0;
  unknown = 0;
  readonly downlinkSent = new Map<string, number>();

  constructor(private readonly air: Air) {}

  attach(receiver: Pick<ThreadedWebhookReceiver, 'onRequest'>): void {
    receiver.onRequest = (req) => {
      const deviceId = String(req.json?.end_device_ids?.device_id);
      if (req.url.startsWith('/down/sent')) {
        this.downlinkSent.set(deviceId, (this.downlinkSent.get(deviceId) ?? 0) + 1);
        return;
      }
      if (!req.url.startsWith('/up')) return;
      const index = this.air.byFrame.get(`${deviceId}/${Number(req.json?.uplink_message?.f_cnt ?? 0)}`);
      if (index === undefined) this.unknown++;
      else if (this.air.txs[index].deliveredAt !== undefined) this.duplicates++;
      else {
        this.air.txs[index].deliveredAt = req.at;
        this.air.txs[index].stages = uplinkStages(req.json);
      }
    };
  }
}

/**
 * A measured sub-phase: the load, and CPU (of `o.pids`) and the components' metrics around it
 * (`scrapes`: before and after, for counters of the caller's own).
 */
export async function measured(
  air: Air,
  o: RadioPhaseOptions,
  items: Frame[],
  schedule: Schedule,
  done: (tx: Tx) => boolean,
  wait: Pick<SendOptions, 'waitMs' | 'quietMs' | 'heardBy'>,
) {
  const metricsBefore: Record<string, Scrape> = await scrapeAll(o.metricsUrls);
  const pushFailures = air.pushFailures.count;
  const unmatched = air.unmatched.count;
  const udpDropsBefore = udpReceiveBufferErrors();
  const cpu = new CpuMeter(o.pids);
  // CPU while the load is offered (first to last push), and per uplink until all was handled (or given up).
  const delays = items[0]?.kind === 'join' ? JOIN_ACCEPT_DELAYS : RECEIVE_DELAYS;
  const run = await air.send(items, schedule, delays, done, { ...wait, start: () => cpu.start(), offered: () => cpu.offered() });
  cpu.end();
  const metricsAfter = await scrapeAll(o.metricsUrls);
  const sendLag = latencyFigures(run.lags);
  const span = pushSpan(run.sent);
  return {
    sent: run.sent,
    figures: {
      offered_per_s: typeof schedule === 'number' ? schedule : schedule.map((segment) => segment.rate),
      sent_per_s: span.perS,
      sent: run.sent.length,
      push_ack_timeouts: air.pushFailures.count - pushFailures,
      unmatched_downlinks: air.unmatched.count - unmatched,
      // Datagrams the kernel dropped for a full socket receive buffer (the GS's, or the load generator's), machine-wide.
      udp_receive_buffer_errors: udpReceiveBufferErrors() - udpDropsBefore,
      send_lag_ms: { p50: sendLag.p50, p99: sendLag.p99, max: sendLag.max },
    },
    cpu,
    scrapes: { before: metricsBefore, after: metricsAfter },
    stackMetrics: () => stackMetrics(metricsBefore, metricsAfter, COUNTERS),
  };
}

/** The machine's UDP `RcvbufErrors` (/proc/net/snmp): datagrams dropped because a socket's receive buffer was full. */
function udpReceiveBufferErrors(): number {
  try {
    const [header, values] = readFileSync('/proc/net/snmp', 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('Udp: '))
      .map((line) => line.split(/\s+/));
    const index = header?.indexOf('RcvbufErrors') ?? -1;
    return index > 0 ? Number(values?.[index] ?? 0) : 0;
  } catch {
    return 0;
  }
}

/** The NS replicas' data uplink results between two scrapes, added up. */
function nsDataUplinks(before: Record<string, Scrape>, after: Record<string, Scrape>): Record<string, number> {
  const sum: Record<string, number> = {};
  for (const name of Object.keys(after)) {
    for (const [result, n] of Object.entries(counterDelta(before[name] ?? new Map(), after[name], COUNTERS.ns_data_uplinks[0], 'result')))
      sum[result] = (sum[result] ?? 0) + n;
  }
  return sum;
}

/** Deliveries of uplinks at the webhook: how many, how fast (first to last delivery), how long after their first push. */
export function deliveryFigures(sent: Tx[]) {
  const delivered = sent.filter((t) => t.deliveredAt !== undefined);
  const at = delivered.map((t) => t.deliveredAt as number);
  const first = Math.min(...at);
  const last = Math.max(...at);
  return {
    delivered: delivered.length,
    missing: sent.length - delivered.length,
    delivered_per_s: last > first ? round((delivered.length - 1) / ((last - first) / 1000)) : 0,
    latency_ms: latencyFigures(delivered.map((t) => (t.deliveredAt as number) - (t.firstPushAt as number))),
  };
}

/** A downlink as the device reads it (lora-packet): its MIC with the NwkSKey, the ACK bit, the application payload if any. */
function readDownlink(down: Downlink, s: NonNullable<Device['session']>) {
  try {
    const frame = loraPacket.fromWire(Buffer.from(String(down.txpk.data), 'base64'));
    const nwkSKey = Buffer.from(s.nwkSKey, 'hex');
    const mic =
      frame.getMType().endsWith('Data Down') && frame.getBuffers().DevAddr?.toString('hex').toUpperCase() === s.devAddr && loraPacket.verifyMIC(frame, nwkSKey);
    const fPort = frame.getFPort();
    const payload = fPort ? loraPacket.decrypt(frame, Buffer.from(s.appSKey, 'hex'), nwkSKey) : undefined;
    return { mic, ack: frame.getFCtrlACK() === true, fPort, payload };
  } catch {
    return { mic: false, ack: false, fPort: null, payload: undefined };
  }
}

/** Sub-phase B's answers: each confirmed uplink's downlinks checked as its device reads them. */
function downlinkFigures(sent: Tx[], devices: Device[]) {
  let answered = 0;
  let rx1 = 0;
  let rx2 = 0;
  let insideRx1 = 0;
  let wrongRx1Settings = 0;
  let micFailures = 0;
  let withoutAck = 0;
  let withPayload = 0;
  let wrongPayload = 0;
  let duplicates = 0;
  let wrongGateway = 0;
  const latencies: number[] = [];
  for (const tx of sent) {
    const session = devices[tx.device].session as NonNullable<Device['session']>;
    const read = tx.downlinks.map((down) => ({ down, ...readDownlink(down, session) }));
    micFailures += read.filter((r) => !r.mic).length;
    const valid = read.filter((r) => r.mic).sort((a, b) => a.down.at - b.down.at);
    duplicates += Math.max(0, valid.length - 1);
    const first = valid[0];
    if (!first) continue;
    answered++;
    if (!first.ack) withoutAck++;
    if (first.fPort) {
      withPayload++;
      if (first.fPort !== APP_DOWNLINK.fPort || !first.payload?.equals(APP_DOWNLINK.payload)) wrongPayload++;
    }
    if (first.down.gateway !== tx.best) wrongGateway++;
    const latency = first.down.at - (tx.firstPushAt as number);
    latencies.push(latency);
    if (first.down.window === 'rx2') {
      rx2++;
      continue;
    }
    rx1++;
    // RX1 in EU868: the uplink's frequency and data rate (RX1DROffset 0).
    const sameSettings = Number(first.down.txpk.freq) === tx.freq && first.down.txpk.datr === tx.datr;
    if (!sameSettings) wrongRx1Settings++;
    if (sameSettings && latency < RX1_MS) insideRx1++;
  }
  return {
    answered,
    missing: sent.length - answered,
    rx1,
    rx2,
    inside_rx1: insideRx1,
    rx1_share: sent.length ? round(insideRx1 / sent.length, 4) : 0,
    wrong_rx1_settings: wrongRx1Settings,
    wrong_gateway: wrongGateway,
    mic_failures: micFailures,
    without_ack: withoutAck,
    with_app_payload: withPayload,
    wrong_app_payload: wrongPayload,
    duplicate_downlinks: duplicates,
    latency_ms: latencyFigures(latencies),
  };
}

/**
 * Sub-phase B: one application downlink pushed for every device, then confirmed uplinks at
 * `downlinkRate`, each to be answered (an ACK, the first of a device with the application's
 * payload) inside RX1.
 */
export async function confirmedPhase(
  air: Air,
  o: UplinkPhaseOptions,
  devices: Device[],
  active: number[],
  frames: Frame[],
  deliveries: Deliveries,
  stackPids: Record<string, number>,
  label = 'uplinks',
) {
  log(`${label}: pushing one application downlink for each of ${active.length} devices`);
  const pushFailures: Record<string, number> = {};
  const pushS = await forEachOnConnections(o, o.clients, active, async (conn, i) => {
    const res = await conn.request('POST', `/api/v3/as/applications/${o.applicationId}/devices/${devices[i].deviceId}/down/push`, {
      downlinks: [{ f_port: APP_DOWNLINK.fPort, frm_payload: APP_DOWNLINK.payload.toString('base64'), priority: 'NORMAL' }],
    });
    if (res.status !== 200) pushFailures[res.status] = (pushFailures[res.status] ?? 0) + 1;
  });
  // Enough radios for the rate (`confirmed-gateways.ts`): each uplink heard by `o.gateways` of them, each best in turn.
  const slotUs = answerSlotUs(DATA_RATES, CONFIRMED_ANSWER_BYTES, o.jitterMs);
  await air.widen(confirmedGateways(o.downlinkRate, slotUs, o.gateways), label);
  const settled = await settle(stackPids);
  log(
    `${label}: B: ${frames.length} confirmed uplinks at ${o.downlinkRate}/s for ${o.durationS}s, ${air.gateways.length} gateways, each uplink heard by ${o.gateways}`,
  );
  const downlinkSent = () => [...deliveries.downlinkSent.values()].reduce((x, y) => x + y, 0);
  const sentBefore = downlinkSent();
  const b = await measured(air, o, frames, o.downlinkRate, (tx) => tx.downlinks.length > 0 && tx.deliveredAt !== undefined, {
    waitMs: DELIVERY_WAIT_MS,
    heardBy: o.gateways,
  });
  const answers = downlinkFigures(b.sent, devices);
  // The TX_ACKs of the application downlinks become `downlink_sent` webhooks a moment later.
  const sentDeadline = Date.now() + 5000;
  while (downlinkSent() - sentBefore < answers.with_app_payload && Date.now() < sentDeadline) await sleep(50);
  const uplinks = deliveryFigures(b.sent);
  const confirmed = {
    ...b.figures,
    /** The gateways (each uplink heard by `heard_by` of them, each best in turn) and the radio time one answer holds (µs). */
    gateways: air.gateways.length,
    heard_by: Math.min(o.gateways, air.gateways.length),
    answer_slot_us: slotUs,
    ...answers,
    meets_downlink_target: o.downlinkRate >= TARGET_DOWNLINKS_PER_S && answers.answered === b.sent.length && answers.inside_rx1 === b.sent.length,
    uplinks_delivered: uplinks.delivered,
    uplink_latency_ms: uplinks.latency_ms,
    app_downlinks_pushed: active.length - Object.values(pushFailures).reduce((x, y) => x + y, 0),
    app_downlink_push_failures: pushFailures,
    app_downlinks_push_s: round(pushS),
    settle_s: settled.s,
    /** `downlink_sent` webhooks of the application downlinks (one expected per downlink with the application's payload). */
    downlink_sent_webhooks: downlinkSent() - sentBefore,
    /** CPU ms each process used per confirmed uplink, from the first push until the last was answered and delivered (or given up). */
    cpu_ms_per_uplink: b.cpu.msPer(b.sent.length),
    ...b.cpu.cores(),
    /** Downlinks the GS's scheduler (`scheduler:<reason>`) or a gateway's TX_ACK (`gateway:<reason>`) refused. */
    downlinks_refused: counterDeltaAll(b.scrapes.before, b.scrapes.after, 'lorawan_gs_downlinks_refused_total', ['by', 'reason']),
    /** Per `<band>:<sub-band>`: the busiest gateway's share of the duty-cycle window on the air at the end, and the sub-band's limit. */
    sub_band_utilization: subBandUtilization(b.scrapes.after),
    stack_metrics: b.stackMetrics(),
  };
  log(`${label}: B: ${JSON.stringify({ ...confirmed, stack_metrics: undefined })}`);
  return confirmed;
}

export type { RadioNames } from './radio';

/** `count` OTAA devices (1.0.3, a random AppKey), as lora-packet's device simulator sees them. */
export function otaaDevices(count: number, names: RadioNames): Device[] {
  return Array.from({ length: count }, (_, i) => {
    const devEui = `${names.devEuiPrefix}${i.toString(16).padStart(6, '0')}`.toUpperCase();
    const appKey = hex(16);
    return {
      deviceId: `${names.deviceIdPrefix}-${String(i).padStart(6, '0')}`,
      devEui,
      appKey,
      sim: new SimulatedOtaaDevice({ joinEui: JOIN_EUI, devEui, appKey, macVersion: 'MAC_V1_0_3' }),
      nextFCnt: 0,
    };
  });
}

/** A radio phase's application: its devices registered, its gateways connected, the radio side. */
export async function openAir(o: RadioPhaseOptions, names: RadioNames, clock: (g: number) => number) {
  const devices = otaaDevices(o.devices, names);
  await createApplications(o.baseUrl, o.auth, [o.applicationId]);
  log(`${names.label}: registering ${o.devices} OTAA devices (IS + JS + NS + AS), ${o.clients} clients`);
  const registerS = await registerOtaaDevices(o, o.applicationId, JOIN_EUI, devices, o.clients);
  log(`${names.label}: registered in ${round(registerS)}s`);
  const epoch = performance.now();
  const open = (first: number, count: number) => openGateways({ ...o, idPrefix: names.gatewayIdPrefix, first, count, clock, epoch }, names.label);
  const gateways = await open(0, o.gateways);
  const air = new Air(gateways, devices, epoch, o, open);
  return {
    devices,
    air,
    registerS,
    close: () => {
      air.close();
      closeGateways(gateways);
    },
  };
}

/**
 * The devices of a data uplink load, ready: registered, a webhook `bench` on their application
 * delivering to a receiver in a thread of this process (`ThreadedWebhookReceiver`), every device joined through the gateways, the NS
 * holding its session, and its first uplink delivered (the pending session became the session).
 * `active`: the devices that joined (the others send nothing).
 */
export async function openUplinkDevices(o: RadioPhaseOptions, names: RadioNames, clock: (g: number) => number) {
  const receiver = await new ThreadedWebhookReceiver().start();
  let opened: Awaited<ReturnType<typeof openAir>> | undefined;
  const setup = new Connection(o.baseUrl, o.auth);
  try {
    opened = await openAir(o, names, clock);
    const { devices, air } = opened;
    await expect200(setup, 'PUT', `/api/v3/as/webhooks/${o.applicationId}/bench`, {
      webhook: {
        ids: { webhook_id: 'bench', application_ids: { application_id: o.applicationId } },
        base_url: receiver.url,
        format: 'json',
        uplink_message: { path: '/up' },
        downlink_sent: { path: '/down/sent' },
      },
      field_mask: { paths: ['base_url', 'format', 'uplink_message', 'downlink_sent'] },
    });
    const deliveries = new Deliveries(air);
    deliveries.attach(receiver);

    const joinStart = performance.now();
    const joinRounds = await joinDevices(air, o, devices, names.label);
    const joinS = (performance.now() - joinStart) / 1000;
    const joined = devices.filter((d) => d.session).length;
    log(`${names.label}: ${joined} of ${o.devices} devices joined in ${round(joinS)}s; waiting for the NS to hold their pending sessions`);
    if (joined === 0) throw new Error(`${names.label}: no device joined; stack logs:\n${o.logs().slice(-6000)}`);
    // A device whose session the NS does not hold sends nothing (its uplinks would match no session).
    const unheld = await waitPendingSessions(
      o,
      devices.filter((d) => d.session),
    );
    for (const d of unheld) d.session = undefined;
    const active = devices.flatMap((d, i) => (d.session ? [i] : []));
    if (unheld.length > 0) log(`${names.label}: the NS holds no pending session of ${unheld.length} joined devices: they are left out`);
    // Join-accepts that came after their round (the device had moved on to another join).
    const lateJoinAccepts = air.txs.filter((tx) => tx.kind === 'join' && tx.downlinks.some((d) => d.at - (tx.firstPushAt as number) > JOIN_WAIT_MS)).length;

    const firstRate = Math.min(o.rate, FIRST_UPLINK_RATE);
    log(`${names.label}: the first uplink of each of ${active.length} devices at ${firstRate}/s (its session becomes current)`);
    const beforeFirst = await scrapeAll(o.metricsUrls);
    const firstFrames = buildFrames(devices, active, active.length, false);
    const first = deliveryFigures((await air.send(firstFrames, firstRate, RECEIVE_DELAYS, isDelivered, { waitMs: DELIVERY_WAIT_MS })).sent);
    const firstResults = nsDataUplinks(beforeFirst, await scrapeAll(o.metricsUrls));
    // The stack's own processes (the shared MariaDB and NATS serve others too), idle before each measurement.
    const stackPids = Object.fromEntries(Object.entries(o.pids).filter(([n]) => !['mariadbd', 'nats-server', 'load-generator'].includes(n)));
    const close = opened.close;
    return {
      devices,
      active,
      air,
      deliveries,
      receiver,
      stackPids,
      figures: {
        devices: o.devices,
        joined,
        join_rounds: joinRounds,
        late_join_accepts: lateJoinAccepts,
        /** Joined devices whose pending session (of the join-accept they got) the NS did not hold 30 s later: left out. */
        no_pending_session: unheld.length,
        active_devices: active.length,
        gateways: o.gateways,
        /** The gateways open after the setup's joins (`joins_gateways`: enough radios for the join-accepts at JOIN_RATE); every uplink is heard by `gateways` of them. */
        joins_gateways: air.gateways.length,
        gateway_protocol: o.protocol,
        gateway_servers: o.udpPorts.length,
        jitter_ms: o.jitterMs,
        fetch_ms: o.fetchMs,
        register_s: round(opened.registerS),
        join_s: round(joinS),
        first_uplinks: { ...first, ns_data_uplinks: firstResults },
      },
      close: async () => {
        close();
        await receiver.stop();
      },
    };
  } catch (err) {
    opened?.close();
    await receiver.stop();
    throw err;
  } finally {
    setup.close();
  }
}

export const isDelivered = (tx: Tx) => tx.deliveredAt !== undefined;

export type UplinkLoad = Awaited<ReturnType<typeof openUplinkDevices>>;

/**
 * `openUplinkDevices` for a load of `measuredS` seconds at `o.rate` after a warm-up, `framesBuilt`
 * frames built before it: the first UDP gateway's concentrator clock wraps (2^32 µs) about the
 * middle of the measurement.
 */
export function openUplinkLoad(o: RadioPhaseOptions, names: RadioNames, framesBuilt: number, measuredS: number): Promise<UplinkLoad> {
  // The joins (JOIN_RATE), the first uplinks, building the frames (~0.12 ms each) and the warm-up come before the measurement.
  const before = o.devices / JOIN_RATE + 0.12e-3 * (o.warmup + framesBuilt) + o.devices / FIRST_UPLINK_RATE + o.warmup / o.rate + 8;
  return openUplinkDevices(o, names, (g) => (g === 0 ? 2 ** 32 - Math.round((before + measuredS / 2) * 1e6) : randomInt(2 ** 32 - 1)));
}

/**
 * The warm-up: `frames` (built before the measurement's, for their FCnts) at `o.rate`, then until
 * the stack is idle (an overloaded warm-up leaves a backlog). Throws when neither a first uplink
 * nor a warm-up one was `done` (delivered, by default).
 */
export async function warmUp(ready: UplinkLoad, o: RadioPhaseOptions, frames: Frame[], label: string, done: (tx: Tx) => boolean = isDelivered) {
  const { active, air, stackPids } = ready;
  log(`${label}: warm-up ${frames.length} uplinks at ${o.rate}/s`);
  const sent = (await air.send(frames, o.rate, RECEIVE_DELAYS, done, { waitMs: DELIVERY_WAIT_MS })).sent;
  const warm = deliveryFigures(sent);
  const first = ready.figures.first_uplinks;
  log(
    `${label}: first uplinks ${first.delivered} of ${active.length} delivered, warm-up ${sent.filter(done).length} of ${o.warmup} done, p50 ${warm.latency_ms.p50} ms`,
  );
  if (first.delivered + sent.filter(done).length === 0)
    throw new Error(`${label}: no warm-up uplink reached the application; stack logs:\n${o.logs().slice(-6000)}`);
  const settled = await settle(stackPids);
  return { warm: { uplinks: frames.length, ...warm }, settleS: settled.s };
}

/**
 * Unconfirmed uplinks (`frames`) at `o.rate`, each delivered to the webhook: deliveries, latency
 * (first push → webhook), the target, CPU per delivered uplink, the stack's metrics.
 */
export async function unconfirmedMeasurement(ready: UplinkLoad, o: RadioPhaseOptions, frames: Frame[], label: string) {
  const { air, deliveries } = ready;
  log(`${label}: ${frames.length} unconfirmed uplinks at ${o.rate}/s for ${round(frames.length / o.rate)}s, ${o.gateways} gateways`);
  const duplicatesBefore = deliveries.duplicates;
  const a = await measured(air, o, frames, o.rate, isDelivered, { waitMs: DELIVERY_WAIT_MS });
  const aDeliveries = deliveryFigures(a.sent);
  const unconfirmed = {
    ...a.figures,
    ...aDeliveries,
    duplicates: deliveries.duplicates - duplicatesBefore,
    target_per_s: TARGET_UPLINKS_PER_S,
    target_p99_ms: TARGET_P99_MS,
    // Kept up: every uplink of a load offered at the target rate delivered, at the rate it was sent (the first and last deliveries' latencies make the measured rate differ by a few tenths of a per cent).
    meets_target:
      o.rate >= TARGET_UPLINKS_PER_S &&
      aDeliveries.missing === 0 &&
      aDeliveries.delivered_per_s >= 0.99 * Math.min(o.rate, a.figures.sent_per_s) &&
      aDeliveries.latency_ms.p99 < TARGET_P99_MS,
    /** Downlinks for these unconfirmed uplinks (nothing was queued: none expected). */
    downlinks: a.sent.reduce((n, t) => n + t.downlinks.length, 0),
    /** CPU ms each process used per delivered uplink, from the first push until the last was delivered (or given up). */
    cpu_ms_per_uplink: a.cpu.msPer(aDeliveries.delivered),
    ...a.cpu.cores(),
    stack_metrics: a.stackMetrics(),
  };
  log(`${label}: ${JSON.stringify({ ...unconfirmed, stack_metrics: undefined })}`);
  return unconfirmed;
}

export async function uplinksPhase(o: UplinkPhaseOptions) {
  const names = o.names ?? UPLINK_NAMES;
  const label = names.label;
  const ready = await openUplinkLoad(o, names, o.durationS * (o.rate + o.downlinkRate), o.durationS);
  try {
    const { devices, active, air, deliveries, stackPids } = ready;
    // Every frame built before the load (lora-packet is slow): the load generator only pushes.
    const buildStart = performance.now();
    const warmFrames = buildFrames(devices, active, o.warmup, false);
    const upFrames = buildFrames(devices, active, Math.round(o.rate * o.durationS), false);
    const confirmedFrames = buildFrames(devices, active, Math.round(o.downlinkRate * o.durationS), true);
    log(`${label}: ${warmFrames.length + upFrames.length + confirmedFrames.length} frames built in ${round((performance.now() - buildStart) / 1000)}s`);
    const { warm, settleS } = await warmUp(ready, o, warmFrames, label);
    const unconfirmed = await unconfirmedMeasurement(ready, o, upFrames, `${label}: A`);

    // An overload leaves a backlog: the pushes and B start once it is handled, and not at all when it is not.
    const settleB = await settle(stackPids);
    const confirmed = settleB.idle
      ? await confirmedPhase(air, o, devices, active, confirmedFrames, deliveries, stackPids, label)
      : { skipped: `the stack was still busy ${settleB.s} s after sub-phase A (its backlog, see unconfirmed.rss_mb)` };
    return {
      ...ready.figures,
      duration_s: o.durationS,
      warmup: warm,
      /** Seconds the stack took to become idle (an overload's backlog handled) before A, and before the downlink pushes and B. */
      settle_s: { a: settleS, b: settleB.s },
      unknown_deliveries: deliveries.unknown,
      unconfirmed,
      confirmed,
    };
  } finally {
    await ready.close();
  }
}
