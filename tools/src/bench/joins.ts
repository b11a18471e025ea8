import { randomInt } from 'node:crypto';
import loraPacket from 'lora-packet';
import { connect, type NatsConnection } from 'nats';
import { entityEventSubjects, type EventJson, rightsEntityOf, splitEventBatch } from '@lorawan/api';
import { createApplications } from './applications';
import { answerSlotUs, confirmedGateways, JOIN_ACCEPT_BYTES } from './confirmed-gateways';
import { log, round } from './load';
import { type Scrape, scrapeAll } from './metrics';
import {
  closeGateways,
  collectDownlinks,
  type Copy,
  CpuMeter,
  type Downlink,
  DATA_RATES,
  drive,
  EU868_JOIN_CHANNELS,
  type Gateway,
  hex,
  latencyFigures,
  openGateways,
  type OtaaDeviceSpec,
  type RadioNames,
  type RadioPhaseOptions,
  planCopies,
  pushSpan,
  registerOtaaDevices,
  type RxDelays,
  sleep,
  stackMetrics,
  type Transmission,
} from './radio';

/**
 * `joins`: OTAA joins through the Gateway Server's Semtech UDP frontend, as radio traffic reaches
 * a network. `devices` OTAA devices (1.0.3) in the IS, JS, NS and AS, `gateways` simulated packet
 * forwarders (each with its downlink path open by PULL_DATA and kept alive), then an open-loop
 * offered load of join-requests (`rate` per second for `durationS`, after `warmup` joins): each
 * join-request is heard by every gateway, each pushing its copy with its own concentrator time
 * (`tmst`), SNR and RSSI, a few ms apart. A join is done when its join-accept arrives as a
 * PULL_RESP; the PULL_RESP's `tmst` (the uplink's + 5 s for RX1, + 6 s for RX2) says which
 * join-request it answers, since every copy's `tmst` is unique on its gateway. After the run every
 * join-accept is opened with the device's AppKey by lora-packet (MIC checked).
 */
export interface JoinPhaseOptions extends RadioPhaseOptions {
  /**
   * When set, the application's events are read straight from NATS during the measurement and the
   * NS's `ns.up.merge_metadata` counted by the number of gateways it merged (`merged_gateways`):
   * how many copies made it into the join's metadata before the join-accept's gateway was chosen.
   */
  traceMerges?: { natsUrl: string; subjectPrefix: string };
  /** The names of the phase's devices and gateways (default: `JOIN_NAMES`, the `joins` phase's). */
  names?: RadioNames;
}

/** The `joins` phase's names (`joins_lbs` has its own, apart). */
export const JOIN_NAMES: RadioNames = { label: 'joins', deviceIdPrefix: 'join', devEuiPrefix: '70B3D57EA0', gatewayIdPrefix: 'bench-join-gtw' };

/**
 * Counts `ns.up.merge_metadata` events by their gateway count, from the subjects of applications'
 * events (a message may hold several events, of several applications: `splitEventBatch`).
 */
async function traceMerges(o: NonNullable<JoinPhaseOptions['traceMerges']>, applicationId: string) {
  const nc: NatsConnection = await connect({ servers: o.natsUrl, name: 'bench-join-trace' });
  const counts: Record<string, number> = {};
  const marker = Buffer.from('"ns.up.merge_metadata"');
  const sub = nc.subscribe(`${o.subjectPrefix}.${entityEventSubjects('application')}`, {
    callback: (err, msg) => {
      if (err || Buffer.from(msg.data.buffer, msg.data.byteOffset, msg.data.byteLength).indexOf(marker) < 0) return;
      for (const bytes of splitEventBatch(msg.data)) {
        const event = JSON.parse(Buffer.from(bytes).toString()) as Pick<EventJson, 'name' | 'identifiers'> & { data?: { value?: unknown } };
        if (
          event.name !== 'ns.up.merge_metadata' ||
          !event.identifiers.some((ids) => rightsEntityOf(ids).kind === 'application' && rightsEntityOf(ids).id === applicationId)
        )
          continue;
        const key = String(event.data?.value);
        counts[key] = (counts[key] ?? 0) + 1;
      }
    },
  });
  await nc.flush();
  return {
    reset: () => {
      for (const k of Object.keys(counts)) delete counts[k];
    },
    counts: () => ({ ...counts }),
    close: async () => {
      sub.unsubscribe();
      await nc.close();
    },
  };
}

/** The counters of the components' `/metrics` reported under `stack_metrics` (metric, label). */
const JOIN_COUNTERS: Record<string, [string, string]> = {
  ns_join_requests: ['lorawan_ns_join_requests_total', 'result'],
  gs_uplinks: ['lorawan_gs_uplinks_total', 'result'],
  gs_downlinks: ['lorawan_gs_downlinks_total', 'result'],
  gs_udp_dropped: ['lorawan_gs_udp_dropped_total', 'reason'],
  gs_downlinks_refused: ['lorawan_gs_downlinks_refused_total', 'reason'],
};

/** The target: joins per second with every join-accept inside RX1. */
export const TARGET_JOINS_PER_S = 200;
/** EU868 join-accept delays (JOIN_ACCEPT_DELAY1 / 2): the uplink's concentrator time + these µs. */
export const JOIN_ACCEPT_DELAYS: RxDelays = { rx1Us: 5_000_000, rx2Us: 6_000_000 };
/** A join without its join-accept this long after its first copy was pushed is missing. */
const MISSING_AFTER_MS = 6000;
const JOIN_EUI = '70B3D57ED0000001';

interface JoinDevice extends OtaaDeviceSpec {
  /** DevNonces used so far (1.0.3: random, never twice). */
  nonces: Set<number>;
}

interface Join extends Transmission {
  device: number;
}

/** A join-request of the device with a DevNonce it never used, built by lora-packet (never by the stack's code). */
function joinRequest(d: JoinDevice): Buffer {
  let nonce = randomInt(0x10000);
  while (d.nonces.has(nonce)) nonce = randomInt(0x10000);
  d.nonces.add(nonce);
  return loraPacket
    .fromFields(
      {
        MType: 'Join Request',
        AppEUI: Buffer.from(JOIN_EUI, 'hex'),
        DevEUI: Buffer.from(d.devEui, 'hex'),
        DevNonce: Buffer.from([nonce >> 8, nonce & 0xff]),
      },
      undefined,
      undefined,
      Buffer.from(d.appKey, 'hex'),
    )
    .getPHYPayload() as Buffer;
}

/**
 * `count` more joins (device `index mod devices`), the first due at `t0` (performance.now()), one
 * every 1/rate s, each heard by every gateway (`planCopies`). Returns their copies by due time.
 */
function planJoins(o: JoinPhaseOptions, devices: JoinDevice[], gateways: Gateway[], joins: Join[], count: number, t0: number, epoch: number): Copy[] {
  const copies: Copy[] = [];
  for (let n = 0; n < count; n++) {
    const index = joins.length;
    const device = index % devices.length;
    // More gateways than hear a join (radios for the join-accepts): `o.gateways` of them, each best in turn.
    const heard = gateways.length > o.gateways ? { best: index % gateways.length, count: o.gateways } : undefined;
    const planned = planCopies(gateways, index, t0 + (n * 1000) / o.rate, o.jitterMs, epoch, JOIN_ACCEPT_DELAYS, heard);
    joins.push({
      device,
      data: joinRequest(devices[device]),
      freq: EU868_JOIN_CHANNELS[index % EU868_JOIN_CHANNELS.length],
      datr: DATA_RATES[Math.floor(index / EU868_JOIN_CHANNELS.length) % DATA_RATES.length],
      best: planned.best,
      copies: planned.copies,
      downlinks: [],
    });
    copies.push(...planned.copies);
  }
  return copies.sort((a, b) => a.due - b.due);
}

/** Waits until every join of `from` … `to - 1` has a join-accept, at most until `MISSING_AFTER_MS` after the last first push (+ a margin). */
async function drain(gateways: Gateway[], joins: Join[], from: number, to: number, unmatched: { count: number }): Promise<void> {
  const pending = joins.slice(from, to);
  const deadline = Math.max(...pending.map((j) => j.firstPushAt ?? Date.now())) + MISSING_AFTER_MS + 500;
  while (Date.now() < deadline && pending.some((j) => j.downlinks.length === 0)) await sleep(10);
  collectDownlinks(gateways, joins, unmatched);
}

/** Opens a join-accept with the device's AppKey (lora-packet): whether it is a Join Accept whose MIC holds. */
export function validAccept(accept: Downlink, appKey: string): boolean {
  try {
    const key = Buffer.from(appKey, 'hex');
    const phy = Buffer.from(String(accept.txpk.data), 'base64');
    const opened = loraPacket.fromWire(loraPacket.decryptJoinAccept(loraPacket.fromWire(phy), key));
    return opened.getMType() === 'Join Accept' && loraPacket.verifyMIC(opened, undefined, key);
  } catch {
    return false;
  }
}

function summarize(joins: Join[], devices: JoinDevice[]) {
  const latencies: number[] = [];
  let accepted = 0;
  let late = 0;
  let rx2 = 0;
  let wrongGateway = 0;
  let wrongRx1Settings = 0;
  let insideRx1 = 0;
  let duplicates = 0;
  let micFailures = 0;
  let lastAccept = 0;
  for (const join of joins) {
    const pushed = join.firstPushAt as number;
    // Each join-accept must open with the device's AppKey.
    const valid = join.downlinks.filter((a) => validAccept(a, devices[join.device].appKey));
    micFailures += join.downlinks.length - valid.length;
    const first = valid.sort((a, b) => a.at - b.at)[0];
    duplicates += Math.max(0, valid.length - 1);
    if (!first || first.at - pushed > MISSING_AFTER_MS) {
      if (first) late++;
      continue;
    }
    accepted++;
    lastAccept = Math.max(lastAccept, first.at);
    latencies.push(first.at - pushed);
    if (first.gateway !== join.best) wrongGateway++;
    if (first.window === 'rx2') {
      rx2++;
      continue;
    }
    // RX1 in EU868: the uplink's frequency and data rate (RX1DROffset 0).
    const sameSettings = Number(first.txpk.freq) === join.freq && first.txpk.datr === join.datr;
    if (!sameSettings) wrongRx1Settings++;
    // Before its RX1 window opens on that gateway: 5 s after the gateway heard (pushed) the join-request.
    const heard = join.copies.find((c) => c.gateway === first.gateway)?.pushedAt as number;
    if (sameSettings && first.at - heard < JOIN_ACCEPT_DELAYS.rx1Us / 1000) insideRx1++;
  }
  const span = pushSpan(joins);
  return {
    accepted,
    late,
    rx2,
    wrongGateway,
    wrongRx1Settings,
    insideRx1,
    duplicates,
    micFailures,
    latency: latencyFigures(latencies),
    elapsedS: (lastAccept - span.first) / 1000,
    sentPerS: span.perS,
  };
}

export async function joinsPhase(o: JoinPhaseOptions) {
  const names = o.names ?? JOIN_NAMES;
  const label = names.label;
  const devices: JoinDevice[] = Array.from({ length: o.devices }, (_, i) => ({
    deviceId: `${names.deviceIdPrefix}-${String(i).padStart(6, '0')}`,
    devEui: `${names.devEuiPrefix}${i.toString(16).padStart(6, '0')}`.toUpperCase(),
    appKey: hex(16),
    nonces: new Set<number>(),
  }));
  let gateways: Gateway[] = [];
  let collector: NodeJS.Timeout | undefined;
  let tracer: Awaited<ReturnType<typeof traceMerges>> | undefined;
  try {
    await createApplications(o.baseUrl, o.auth, [o.applicationId]);
    log(`${label}: registering ${o.devices} OTAA devices (IS + JS + NS + AS), ${o.clients} clients`);
    const registerS = await registerOtaaDevices(o, o.applicationId, JOIN_EUI, devices, o.clients);
    log(`${label}: registered in ${round(registerS)}s`);
    const epoch = performance.now();
    // Each join-accept holds the radio of the gateway that sends it (RX1: the join's data rate, up to SF9): as many gateways as
    // the rate needs (`confirmed-gateways.ts`), each join heard by `o.gateways` of them, each best in turn.
    const opened = confirmedGateways(o.rate, answerSlotUs(DATA_RATES, JOIN_ACCEPT_BYTES, o.jitterMs), o.gateways);
    if (opened > o.gateways) log(`${label}: ${opened} gateways for the join-accepts at ${o.rate}/s, each join heard by ${o.gateways}`);
    gateways = await openGateways(
      {
        ...o,
        idPrefix: names.gatewayIdPrefix,
        epoch,
        count: opened,
        // The first gateway's concentrator clock wraps (2^32 µs) about the middle of the measurement (its RX1 times 5 s before).
        clock: (g) => (g === 0 ? 2 ** 32 - Math.round((o.warmup / o.rate + 2 + o.durationS / 2) * 1e6) : randomInt(2 ** 32 - 1)),
      },
      label,
    );
    if (o.traceMerges) tracer = await traceMerges(o.traceMerges, o.applicationId);

    const joins: Join[] = [];
    const unmatched = { count: 0 };
    const pushFailures = { count: 0 };
    // PULL_RESPs are matched and acknowledged as they come (their arrival time is taken on receipt by the simulated gateway).
    collector = setInterval(() => collectDownlinks(gateways, joins, unmatched), 10);
    const measuredCount = Math.round(o.rate * o.durationS);
    // Planned (frames built, with their DevNonces) before anything is sent: the load generator only pushes.
    const warmCopies = planJoins(o, devices, gateways, joins, o.warmup, performance.now() + 100, epoch);
    log(`${label}: warm-up ${o.warmup} joins at ${o.rate}/s, ${o.gateways} gateways`);
    await drive(warmCopies, gateways, joins, o.fetchMs, pushFailures);
    await drain(gateways, joins, 0, o.warmup, unmatched);
    const warm = summarize(joins.slice(0, o.warmup), devices);
    log(`${label}: warm-up ${warm.accepted} of ${o.warmup} accepted, p50 ${warm.latency.p50} ms`);
    if (o.warmup > 0 && warm.accepted === 0) throw new Error(`${label}: no join-accept for any warm-up join; stack logs:\n${o.logs().slice(-6000)}`);

    const planStart = performance.now();
    const copies = planJoins(o, devices, gateways, joins, measuredCount, planStart + 300, epoch);
    const measured = joins.slice(o.warmup);
    const pushFailuresWarm = pushFailures.count;
    pushFailures.count = 0;
    const unmatchedWarm = unmatched.count;
    unmatched.count = 0;
    const metricsBefore: Record<string, Scrape> = await scrapeAll(o.metricsUrls);
    tracer?.reset();
    await sleep(Math.max(0, planStart + 300 - performance.now()));
    const cpu = new CpuMeter(o.pids);
    cpu.start();
    log(
      `${label}: ${measuredCount} joins at ${o.rate}/s for ${o.durationS}s, ${o.gateways} gateways, copies up to ${o.jitterMs} ms apart, ${o.protocol === 'basicstation' ? 'Basics Stations' : 'UDP packet forwarders'} pushing every ${o.fetchMs} ms`,
    );
    const lags = await drive(copies, gateways, joins, o.fetchMs, pushFailures);
    // The load while it is offered (the drain after it may idle, waiting for missing joins).
    cpu.offered();
    await drain(gateways, joins, o.warmup, joins.length, unmatched);
    cpu.end();
    const metricsAfter = await scrapeAll(o.metricsUrls);
    // The merges of the measured joins (the last ones come 200 ms after their first copy, before their join-accept).
    const merges = tracer?.counts();
    const s = summarize(measured, devices);
    const joinsPerS = s.elapsedS > 0 ? round(s.accepted / s.elapsedS) : 0;
    const sendLag = latencyFigures(lags);
    const result = {
      devices: o.devices,
      gateways: o.gateways,
      gateway_protocol: o.protocol,
      /** Gateways open (radios for the join-accepts at the rate); each join heard by `gateways` of them. */
      joins_gateways: gateways.length,
      gateway_servers: o.udpPorts.length,
      offered_per_s: o.rate,
      sent_per_s: s.sentPerS,
      joins_per_s: joinsPerS,
      target_per_s: TARGET_JOINS_PER_S,
      // The issue's target: the rate, and every join-accept inside its RX1 window (the gateway choice is `wrong_gateway`'s).
      meets_target: joinsPerS >= TARGET_JOINS_PER_S && s.insideRx1 === measured.length,
      duration_s: o.durationS,
      jitter_ms: o.jitterMs,
      fetch_ms: o.fetchMs,
      sent: measured.length,
      accepted: s.accepted,
      missing: measured.length - s.accepted,
      late: s.late,
      rx2: s.rx2,
      wrong_gateway: s.wrongGateway,
      wrong_rx1_settings: s.wrongRx1Settings,
      duplicate_accepts: s.duplicates,
      mic_failures: s.micFailures,
      unmatched_downlinks: unmatched.count,
      push_ack_timeouts: pushFailures.count,
      ...(merges ? { merged_gateways: merges } : {}),
      inside_rx1: s.insideRx1,
      rx1_share: measured.length ? round(s.insideRx1 / measured.length, 4) : 0,
      latency_ms: s.latency,
      send_lag_ms: { p50: sendLag.p50, p99: sendLag.p99, max: sendLag.max },
      wall_s: round(s.elapsedS),
      register_s: round(registerS),
      warmup: {
        joins: o.warmup,
        accepted: warm.accepted,
        latency_ms: warm.latency,
        push_ack_timeouts: pushFailuresWarm,
        unmatched_downlinks: unmatchedWarm,
      },
      /** CPU ms each process used per accepted join, from the first push to the end of the drain. */
      cpu_ms_per_join: cpu.msPer(s.accepted),
      ...cpu.cores(),
      stack_metrics: stackMetrics(metricsBefore, metricsAfter, JOIN_COUNTERS),
    };
    log(`${label}: ${JSON.stringify({ ...result, stack_metrics: undefined })}`);
    return result;
  } finally {
    clearInterval(collector);
    await tracer?.close();
    closeGateways(gateways);
  }
}
