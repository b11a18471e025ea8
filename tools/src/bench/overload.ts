import { randomInt } from 'node:crypto';
import { answerSlotUs, confirmedGateways, JOIN_ACCEPT_BYTES } from './confirmed-gateways';
import { JOIN_ACCEPT_DELAYS, validAccept } from './joins';
import { log, round } from './load';
import { counterDeltaAll, counterIncreases, type Scrape } from './metrics';
import { DATA_RATES, latencyFigures, type RadioPhaseOptions, settle } from './radio';
import type { ThreadedWebhookReceiver } from './threaded-receiver';
import {
  type Air,
  buildFrames,
  confirmedPhase,
  DELIVERY_WAIT_MS,
  type Device,
  type Frame,
  JOIN_WAIT_MS,
  measured,
  openAir,
  openUplinkDevices,
  type RadioNames,
  type Schedule,
  type SendOptions,
  type Tx,
} from './uplinks';

/**
 * `overload` (issue 31, "Overload without collapse"): what the data plane does at twice what it
 * keeps up with. For each kind (unconfirmed data uplinks, joins), on its own application, devices
 * and gateways (the radio side of `uplinks` and `joins`): the capacity first (steps of increasing
 * offered rate, open loop, each passing when every item was delivered with a p99 under 500 ms;
 * bisected after the first failing one), the CPU of every stack process per item at that rate,
 * then a burst at 2 × capacity followed at once by a lighter load at 0.5 × capacity: the goodput
 * of the burst, the latency of what was delivered, how soon the latency is back to normal after
 * it, what was lost without the stack saying it shed it (`lorawan_uplinks_shed_total`). Plus, for
 * uplinks, confirmed uplinks at half the capacity answered in RX1 (the `uplinks` phase's
 * sub-phase B). Not a failing phase: it measures collapse; it throws only when the first step
 * delivers nothing.
 */
export type OverloadKind = 'uplinks' | 'joins';

export interface OverloadOptions extends Omit<RadioPhaseOptions, 'applicationId' | 'rate' | 'durationS' | 'warmup'> {
  kinds: OverloadKind[];
  /** Seconds of each capacity step. */
  stepS: number;
  /** The offered rate of the first step, per kind. */
  startRates: Record<OverloadKind, number>;
  /** Bisections between the last passing and the first failing rate. */
  bisections: number;
  burstS: number;
  afterS: number;
  confirmedS: number;
}

/** A step passes with every item delivered and a p99 (first push → delivery) under this. */
export const CAPACITY_P99_MS = 500;
/** Each passing step offers this much more than the one before. */
const GROWTH = 1.25;
/** Increasing steps at most (100/s × 1.25^15 ≈ 2800/s), and steps down when the first one fails. */
const MAX_STEPS = 15;
const STEPS_DOWN = 3;
/** How long the stack may take to become idle between steps, before the burst, and after it. */
const STEP_SETTLE_MS = 15000;
const BURST_SETTLE_MS = 30000;
const AFTER_SETTLE_MS = 60000;
/** Waiting for a burst's deliveries: at most this long after the last push, or until none came for `quietMs`. */
const BURST_WAIT: Record<OverloadKind, Pick<SendOptions, 'waitMs' | 'quietMs'>> = {
  uplinks: { waitMs: 120000, quietMs: 10000 },
  joins: { waitMs: 60000, quietMs: 5000 },
};
/** The targets. */
export const OVERLOAD_TARGETS = {
  goodputRatio: 0.9,
  p99Ms: 1000,
  recoveryS: 5,
  cpuXRpcOverhead: { uplinks: 40, joins: 150 } as Record<OverloadKind, number>,
  confirmedRx1Share: 0.95,
};
/** An uplink delivered later than this after its push counts as `late` (delivered all the same). */
const LATE_UPLINK_MS = 1000;
const SHED_COUNTER = 'lorawan_uplinks_shed_total';
const SHED_KIND: Record<OverloadKind, string> = { uplinks: 'data_uplink', joins: 'join_request' };

const NAMES: Record<OverloadKind, RadioNames & { applicationId: string }> = {
  uplinks: {
    label: 'overload.uplinks',
    applicationId: 'bench-overload-uplinks-app',
    deviceIdPrefix: 'ovu',
    devEuiPrefix: '70B3D57EC0',
    gatewayIdPrefix: 'bench-ovu-gtw',
  },
  joins: {
    label: 'overload.joins',
    applicationId: 'bench-overload-joins-app',
    deviceIdPrefix: 'ovj',
    devEuiPrefix: '70B3D57EC1',
    gatewayIdPrefix: 'bench-ovj-gtw',
  },
};

/** What became of a transmission: delivered (when), or answered too late to count, or nothing. */
interface Outcome {
  /** Date.now() it counts as delivered at: uplinks at the webhook; joins: its first valid join-accept inside RX1 or RX2. */
  deliveredAt?: number;
  late: boolean;
}

/** One kind's load on its own devices: how to make items, when an item is done waiting for, and what became of it. */
interface KindLoad {
  kind: OverloadKind;
  air: Air;
  frames(count: number): Frame[];
  /** Waiting for it is over (something came back). */
  done(tx: Tx): boolean;
  /** Before offering `rate`: what that rate needs (joins: a radio for each join-accept in its window). */
  prepare?(rate: number): Promise<void>;
  /** Waiting for a step's items: at most this long after the last push. */
  stepWaitMs: number;
  outcome(tx: Tx): Outcome;
  /** Uplinks: the webhook receiver thread's longest event-loop delay in each second of a span (ms). */
  receiverLoopLag?(from: number, to: number): number[];
}

function uplinkLoad(air: Air, devices: Device[], active: number[], receiver: Pick<ThreadedWebhookReceiver, 'loopLagPerSecond'>): KindLoad {
  return {
    kind: 'uplinks',
    air,
    receiverLoopLag: (from, to) => receiver.loopLagPerSecond(from, to),
    frames: (count) => buildFrames(devices, active, count, false),
    done: (tx) => tx.deliveredAt !== undefined,
    stepWaitMs: DELIVERY_WAIT_MS,
    outcome: (tx) => ({ deliveredAt: tx.deliveredAt, late: tx.deliveredAt !== undefined && tx.deliveredAt - (tx.firstPushAt as number) > LATE_UPLINK_MS }),
  };
}

/**
 * Joins of the devices in turn, each with a fresh DevNonce (lora-packet's device simulator: random,
 * never reused). A join is delivered by a join-accept whose MIC holds with the device's AppKey
 * (lora-packet, as `joins` checks it) that arrives before its window (RX1 or RX2, as its `tmst`
 * says) opens on its gateway: 5 or 6 s after that gateway pushed the join-request.
 */
function joinLoad(air: Air, devices: Device[], o: RadioPhaseOptions): KindLoad {
  let next = 0;
  const outcomes = new Map<Tx, Outcome>();
  const slotUs = answerSlotUs(DATA_RATES, JOIN_ACCEPT_BYTES, o.jitterMs);
  return {
    kind: 'joins',
    air,
    // Each join-accept holds the radio of the gateway that sends it: as many gateways as the rate needs, each join still heard by `o.gateways` (as `joins`).
    prepare: (rate) => air.widen(confirmedGateways(rate, slotUs, o.gateways), NAMES.joins.label),
    frames: (count) =>
      Array.from({ length: count }, () => {
        const device = next++ % devices.length;
        return { device, kind: 'join' as const, fCnt: -1, data: devices[device].sim.joinRequest() };
      }),
    done: (tx) => tx.downlinks.length > 0,
    stepWaitMs: JOIN_WAIT_MS,
    outcome: (tx) => {
      let o = outcomes.get(tx);
      if (o) return o;
      const valid = tx.downlinks.filter((d) => validAccept(d, devices[tx.device].appKey)).sort((a, b) => a.at - b.at);
      const opens = (d: Tx['downlinks'][number]) =>
        (tx.copies.find((c) => c.gateway === d.gateway)?.pushedAt as number) +
        (d.window === 'rx1' ? JOIN_ACCEPT_DELAYS.rx1Us : JOIN_ACCEPT_DELAYS.rx2Us) / 1000;
      const inTime = valid.find((d) => d.at < opens(d));
      o = { deliveredAt: inTime?.at, late: !inTime && valid.length > 0 };
      outcomes.set(tx, o);
      return o;
    },
  };
}

/** Latency (ms, first push → delivery) of each delivered transmission of `txs`. */
function latencies(load: KindLoad, txs: readonly Tx[]): number[] {
  return txs.flatMap((tx) => {
    const at = load.outcome(tx).deliveredAt;
    return at === undefined ? [] : [at - (tx.firstPushAt as number)];
  });
}

/** One capacity step: `rate` for `seconds`, open loop; passes when every item was delivered with a p99 under 500 ms. */
async function step(load: KindLoad, o: RadioPhaseOptions, rate: number, seconds: number, retry: boolean) {
  await load.prepare?.(rate);
  const items = load.frames(Math.round(rate * seconds));
  log(`${NAMES[load.kind].label}: step at ${rate}/s for ${seconds}s (${items.length} items)`);
  const m = await measured(load.air, o, items, rate, load.done, { waitMs: load.stepWaitMs });
  const lat = latencyFigures(latencies(load, m.sent));
  const delivered = m.sent.filter((tx) => load.outcome(tx).deliveredAt !== undefined).length;
  const cpuMs = m.cpu.msPer(delivered);
  const figures = {
    rate,
    sent: m.sent.length,
    sent_per_s: m.figures.sent_per_s,
    delivered,
    p50_ms: lat.p50,
    p99_ms: lat.p99,
    passed: delivered === m.sent.length && lat.p99 < CAPACITY_P99_MS,
    cpu_ms_per_item: round(
      Object.values(cpuMs).reduce((a, b) => a + b, 0),
      3,
    ),
    /** Cores that processes outside the bench used while the step was offered: other work competing with the stack. */
    other_cores: m.cpu.cores().other_cores,
    /** The second try at a rate whose first failed. */
    ...(retry ? { retry } : {}),
    settle_s: 0,
  };
  log(`${NAMES[load.kind].label}: ${JSON.stringify(figures)}`);
  return { figures, cpuMs };
}

type Step = Awaited<ReturnType<typeof step>>;

/**
 * The highest offered rate whose step passes: from `start`, ×1.25 per passing step; after the first
 * failing one, `bisections` steps halfway between the last passing and the failing rate; when the
 * first fails, up to three steps down (÷1.5). A failing step is run once more at the same rate
 * and fails only when that fails too (other work on the machine makes single steps fail). The
 * stack is let become idle between steps.
 */
async function capacity(load: KindLoad, o: RadioPhaseOptions, ko: OverloadOptions, stackPids: Record<string, number>) {
  const steps: Step[] = [];
  const attempt = async (rate: number, retry: boolean) => {
    if (steps.length > 0) steps[steps.length - 1].figures.settle_s = (await settle(stackPids, STEP_SETTLE_MS)).s;
    const s = await step(load, o, rate, ko.stepS, retry);
    steps.push(s);
    return s;
  };
  const run = async (rate: number) => {
    const s = await attempt(round(rate, 1), false);
    return s.figures.passed || s.figures.delivered === 0 ? s : attempt(s.figures.rate, true);
  };
  const first = await run(ko.startRates[load.kind]);
  if (steps[0].figures.delivered === 0)
    throw new Error(`${NAMES[load.kind].label}: nothing delivered in the first step; stack logs:\n${o.logs().slice(-6000)}`);
  let pass: Step | undefined = first.figures.passed ? first : undefined;
  let fail: Step | undefined = first.figures.passed ? undefined : first;
  if (pass) {
    while (!fail && steps.length < MAX_STEPS) {
      const s = await run(pass.figures.rate * GROWTH);
      if (s.figures.passed) pass = s;
      else fail = s;
    }
  } else {
    for (let i = 0; i < STEPS_DOWN && !pass; i++) {
      const s = await run((fail as Step).figures.rate / 1.5);
      if (s.figures.passed) pass = s;
      else fail = s;
    }
  }
  for (let i = 0; pass && fail && i < ko.bisections; i++) {
    const s = await run((pass.figures.rate + fail.figures.rate) / 2);
    if (s.figures.passed) pass = s;
    else fail = s;
  }
  await settle(stackPids, STEP_SETTLE_MS);
  return { steps: steps.map((s) => s.figures), at: pass };
}

/** `lorawan_uplinks_shed_total` of `kind` between two scrapes of every process, by `<component>:<reason>`. */
function shedByReason(before: Record<string, Scrape>, after: Record<string, Scrape>, kind: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, scrape] of Object.entries(after)) {
    for (const { labels, increase } of counterIncreases(before[name] ?? new Map(), scrape, SHED_COUNTER)) {
      if (labels.kind !== kind) continue;
      const key = `${labels.component ?? name.split('#')[0]}:${labels.reason ?? ''}`;
      out[key] = (out[key] ?? 0) + increase;
    }
  }
  return out;
}

/**
 * Seconds after the burst's end (its last push) until the push of the first after-burst item
 * from which on every after-burst item was delivered in under 500 ms: 0 when the first already
 * was, the after-window + 1 when never.
 */
function recoveryS(load: KindLoad, after: readonly Tx[], burstEnd: number, afterS: number): number {
  const fine = (tx: Tx) => {
    const at = load.outcome(tx).deliveredAt;
    return at !== undefined && at - (tx.firstPushAt as number) < CAPACITY_P99_MS;
  };
  let from = after.length;
  while (from > 0 && fine(after[from - 1])) from--;
  if (from === after.length) return afterS + 1;
  if (from === 0) return 0;
  return round(Math.max(0, (after[from].firstPushAt as number) - burstEnd) / 1000, 2);
}

/**
 * Per second of push time from the burst's first push: items sent, delivered, and the p99 latency
 * of the delivered ones (ms): how the latency grew during the burst and fell after it; for
 * uplinks, `stages_p99_ms`: that second's p99 of each stage (`stageFigures`), which shows the
 * stage a late second waited in.
 */
function timeline(load: KindLoad, txs: readonly Tx[]) {
  const start = Math.min(...txs.map((tx) => tx.firstPushAt as number));
  const seconds: Tx[][] = [];
  for (const tx of txs) (seconds[Math.floor(((tx.firstPushAt as number) - start) / 1000)] ??= []).push(tx);
  return Array.from(seconds, (txsOfSecond = []) => ({
    sent: txsOfSecond.length,
    delivered: txsOfSecond.filter((tx) => load.outcome(tx).deliveredAt !== undefined).length,
    p99_ms: latencyFigures(latencies(load, txsOfSecond)).p99,
    ...(load.kind === 'uplinks'
      ? { stages_p99_ms: Object.fromEntries(Object.entries(stageFigures(txsOfSecond)).map(([stage, { p99 }]) => [stage, p99])) }
      : {}),
  }));
}

/**
 * Where the burst's delivered uplinks spent their time (p50 and p99 in ms of each stage, from the
 * receive times the ApplicationUp carries): `to_gs` from the first push to the GS, `gs_to_ns` to
 * the NS's handling (the GS's coalescing window and in-flight limit, the call), `ns_to_as` to the
 * AS (the NS's admission, deduplication, store and merge window, the call), `as_to_webhook` to the
 * webhook's arrival (the AS's handling, the webhook queue, the HTTP request).
 */
function stageFigures(txs: readonly Tx[]) {
  const stages = { to_gs: [] as number[], gs_to_ns: [] as number[], ns_to_as: [] as number[], as_to_webhook: [] as number[] };
  for (const tx of txs) {
    const st = tx.stages;
    if (tx.deliveredAt === undefined || st?.gs === undefined || st.ns === undefined || st.as === undefined) continue;
    stages.to_gs.push(st.gs - (tx.firstPushAt as number));
    stages.gs_to_ns.push(st.ns - st.gs);
    stages.ns_to_as.push(st.as - st.ns);
    stages.as_to_webhook.push(tx.deliveredAt - st.as);
  }
  return Object.fromEntries(
    Object.entries(stages).map(([k, v]) => {
      const { p50, p99 } = latencyFigures(v);
      return [k, { p50, p99 }];
    }),
  );
}

/**
 * The mean time of the AS's webhook requests over the burst (ms): how long the endpoint (the
 * bench's receiver, sharing the machine) took to answer, against the wait in `as_to_webhook`.
 */
function webhookRequestMeanMs(before: Record<string, Scrape>, after: Record<string, Scrape>): number | undefined {
  let sum = 0;
  let count = 0;
  for (const [name, scrape] of Object.entries(after)) {
    for (const { increase } of counterIncreases(before[name] ?? new Map(), scrape, 'lorawan_webhook_request_duration_seconds_sum')) sum += increase;
    for (const { increase } of counterIncreases(before[name] ?? new Map(), scrape, 'lorawan_webhook_request_duration_seconds_count')) count += increase;
  }
  return count > 0 ? round((1000 * sum) / count, 1) : undefined;
}

/** 2 × capacity for `burstS`, then at once 0.5 × capacity for `afterS`: goodput, latency, recovery, losses, shedding. */
async function burst(load: KindLoad, o: RadioPhaseOptions, ko: OverloadOptions, capacityPerS: number) {
  const schedule: Schedule = [
    { count: Math.round(2 * capacityPerS * ko.burstS), rate: 2 * capacityPerS },
    { count: Math.round(0.5 * capacityPerS * ko.afterS), rate: 0.5 * capacityPerS },
  ];
  await load.prepare?.(schedule[0].rate);
  const items = load.frames(schedule[0].count + schedule[1].count);
  log(`${NAMES[load.kind].label}: burst at ${2 * capacityPerS}/s for ${ko.burstS}s, then ${0.5 * capacityPerS}/s for ${ko.afterS}s`);
  const m = await measured(load.air, o, items, schedule, load.done, BURST_WAIT[load.kind]);
  const burstTxs = m.sent.slice(0, schedule[0].count);
  const afterTxs = m.sent.slice(schedule[0].count);
  const outcomes = m.sent.map((tx) => load.outcome(tx));
  const delivered = outcomes.filter((x) => x.deliveredAt !== undefined).length;
  const burstDelivered = latencies(load, burstTxs);
  const lat = latencyFigures(burstDelivered);
  const shed = shedByReason(m.scrapes.before, m.scrapes.after, SHED_KIND[load.kind]);
  const shedTotal = Object.values(shed).reduce((a, b) => a + b, 0);
  const unaccounted = m.sent.length - delivered - shedTotal;
  const goodput = burstDelivered.length / ko.burstS;
  const burstEnd = Math.max(...burstTxs.map((tx) => tx.firstPushAt as number));
  const burstStart = Math.min(...burstTxs.map((tx) => tx.firstPushAt as number));
  const lastPush = Math.max(...m.sent.map((tx) => tx.firstPushAt as number));
  return {
    goodput_per_s: round(goodput),
    goodput_ratio: round(goodput / capacityPerS, 3),
    /** Burst items delivered within the p99 target (1 s) per burst second: the goodput that was still useful. */
    goodput_on_time_per_s: round(burstDelivered.filter((ms) => ms < OVERLOAD_TARGETS.p99Ms).length / ko.burstS),
    p50_ms: lat.p50,
    p99_ms: lat.p99,
    max_ms: lat.max,
    recovery_s: recoveryS(load, afterTxs, burstEnd, ko.afterS),
    lost: Math.max(0, unaccounted),
    unaccounted,
    shed_by_reason: shed,
    shed: shedTotal,
    sent: m.sent.length,
    delivered,
    burst_sent: burstTxs.length,
    burst_delivered: burstDelivered.length,
    missing: outcomes.filter((x) => x.deliveredAt === undefined && !x.late).length,
    late: outcomes.filter((x) => x.late).length,
    load: m.figures,
    /** Per second from the burst's start (burst, then after-window): sent, delivered, p99 ms. */
    timeline: timeline(load, m.sent),
    ...(load.kind === 'uplinks'
      ? {
          stages_ms: stageFigures(burstTxs),
          webhook_request_mean_ms: webhookRequestMeanMs(m.scrapes.before, m.scrapes.after),
          webhook_jobs_handed_back: counterDeltaAll(m.scrapes.before, m.scrapes.after, 'lorawan_webhook_jobs_handed_back_total', ['reason']),
          /** The receiver thread's longest event-loop delay (ms) in each second from the burst's first push, as `timeline`'s seconds. */
          receiver_loop_lag_ms: load.receiverLoopLag?.(burstStart, lastPush + 1000),
        }
      : {}),
    /** CPU ms per delivered item from the burst's first push to the end of the drain. */
    burst_cpu_ms_per_item: m.cpu.msPer(delivered),
    ...m.cpu.cores(),
  };
}

/** One kind: capacity, CPU at capacity, the burst (and, for uplinks, confirmed uplinks at half of capacity). */
async function measureKind(kind: OverloadKind, ko: OverloadOptions) {
  log(`overload: the processes whose CPU is measured: ${JSON.stringify(ko.pids)}`);
  const names = NAMES[kind];
  const o: RadioPhaseOptions = { ...ko, applicationId: names.applicationId, rate: ko.startRates[kind], durationS: ko.stepS, warmup: 0 };
  const clock = () => randomInt(2 ** 32 - 1);
  const stackPids = Object.fromEntries(Object.entries(o.pids).filter(([n]) => !['mariadbd', 'mysqld', 'nats-server'].includes(n)));
  let setup: Record<string, unknown>;
  let load: KindLoad;
  let close: () => Promise<void> | void;
  let confirmedRun: ((capacityPerS: number) => Promise<Record<string, unknown>>) | undefined;
  if (kind === 'uplinks') {
    const ready = await openUplinkDevices(o, names, clock);
    ({ figures: setup, close } = ready);
    load = uplinkLoad(ready.air, ready.devices, ready.active, ready.receiver);
    confirmedRun = async (capacityPerS) => {
      const rate = round(0.5 * capacityPerS, 1);
      const frames = buildFrames(ready.devices, ready.active, Math.round(rate * ko.confirmedS), true);
      const c = await confirmedPhase(
        ready.air,
        { ...o, downlinkRate: rate, durationS: ko.confirmedS },
        ready.devices,
        ready.active,
        frames,
        ready.deliveries,
        stackPids,
        names.label,
      );
      return {
        offered_per_s: rate,
        seconds: ko.confirmedS,
        sent: c.sent,
        answered: c.answered,
        answered_ratio: c.sent ? round(c.answered / c.sent, 4) : 0,
        inside_rx1: c.inside_rx1,
        rx1_share: c.rx1_share,
        rx2: c.rx2,
        missing: c.missing,
        mic_failures: c.mic_failures,
        latency_ms: c.latency_ms,
        settle_s: c.settle_s,
      };
    };
  } else {
    const opened = await openAir(o, names, clock);
    setup = { devices: o.devices, gateways: o.gateways, register_s: round(opened.registerS) };
    close = opened.close;
    load = joinLoad(opened.air, opened.devices, o);
  }
  try {
    const found = await capacity(load, o, ko, stackPids);
    const capacityPerS = found.at?.figures.rate ?? 0;
    const cpuMs = found.at?.cpuMs ?? {};
    const cpuTotal = Object.values(cpuMs).reduce((a, b) => a + b, 0);
    const base = {
      capacity_per_s: capacityPerS,
      /** CPU of every stack process per delivered item in the capacity step (the load generator not counted). */
      cpu_ms_per_item: { total: round(cpuTotal, 3), ...cpuMs },
      cpu_us_per_item: round(cpuTotal * 1000, 1),
      steps: found.steps,
      setup,
    };
    log(`${names.label}: capacity ${capacityPerS}/s, CPU ${round(cpuTotal, 3)} ms per item`);
    if (!found.at) return { figures: { ...base, skipped: 'no step passed: no capacity to burst at' }, confirmed: null };
    const settledBefore = await settle(stackPids, BURST_SETTLE_MS);
    const b = await burst(load, o, ko, capacityPerS);
    log(`${names.label}: burst: ${JSON.stringify(b)}`);
    let confirmed: Record<string, unknown> | null = null;
    if (confirmedRun) {
      const settledAfter = await settle(stackPids, AFTER_SETTLE_MS);
      confirmed = { settle_before_s: settledAfter.s, ...(await confirmedRun(capacityPerS)) };
      log(`${names.label}: confirmed: ${JSON.stringify(confirmed)}`);
    }
    return { figures: { ...base, burst_s: ko.burstS, after_s: ko.afterS, settle_before_burst_s: settledBefore.s, ...b }, confirmed };
  } finally {
    await close();
  }
}

export type OverloadMeasurement = Partial<Record<OverloadKind, Awaited<ReturnType<typeof measureKind>>>>;

/** Both kinds, one after the other (each on its own application, devices and gateways). */
export async function overloadPhase(ko: OverloadOptions): Promise<OverloadMeasurement> {
  const out: OverloadMeasurement = {};
  for (const kind of ko.kinds) out[kind] = await measureKind(kind, ko);
  return out;
}

/**
 * The phase's figures: each kind's with `cpu_x_rpc_overhead` (CPU of the stack per item at
 * capacity / the same run's `rpc_overhead.cpu_us_per_call`), the confirmed uplinks apart, which of
 * the targets held, and whether all did.
 */
export function overloadResult(m: OverloadMeasurement, rpcOverheadUs: number) {
  const kind = (k: OverloadKind) => {
    const f = m[k]?.figures;
    return f ? { ...f, cpu_x_rpc_overhead: rpcOverheadUs > 0 ? round(f.cpu_us_per_item / rpcOverheadUs, 2) : null } : null;
  };
  const result = { uplinks: kind('uplinks'), joins: kind('joins') };
  const confirmed = m.uplinks?.confirmed ?? null;
  const targets: Record<string, boolean> = {};
  for (const k of ['uplinks', 'joins'] as const) {
    const f: Partial<Record<string, unknown>> = result[k] ?? {};
    const num = (key: string, otherwise: number) => (typeof f[key] === 'number' ? f[key] : otherwise);
    targets[`${k}.goodput_ratio`] = num('goodput_ratio', 0) >= OVERLOAD_TARGETS.goodputRatio;
    targets[`${k}.p99_ms`] = num('p99_ms', Infinity) < OVERLOAD_TARGETS.p99Ms;
    targets[`${k}.recovery_s`] = num('recovery_s', Infinity) <= OVERLOAD_TARGETS.recoveryS;
    targets[`${k}.lost`] = num('lost', -1) === 0;
    targets[`${k}.cpu_x_rpc_overhead`] = num('cpu_x_rpc_overhead', Infinity) <= OVERLOAD_TARGETS.cpuXRpcOverhead[k];
  }
  targets['confirmed.rx1_share'] = typeof confirmed?.rx1_share === 'number' && confirmed.rx1_share >= OVERLOAD_TARGETS.confirmedRx1Share;
  return {
    rpc_overhead_us: rpcOverheadUs,
    ...result,
    confirmed,
    targets,
    meets_target: Object.values(targets).every(Boolean),
  };
}
