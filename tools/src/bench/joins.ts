import { randomBytes, randomInt } from 'node:crypto';
import loraPacket from 'lora-packet';
import { connect, type NatsConnection } from 'nats';
import { SimulatedUdpGateway } from '@lorawan/testing';
import { ADMIN_USER_ID, createApplications } from './applications';
import { log, round } from './load';
import { counterDelta, gauge, rpcServerTimings, type Scrape, scrapeAll } from './metrics';
import { cpuMs, machineBusyMs } from './procs';
import { Connection } from './register';

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
export interface JoinPhaseOptions {
  baseUrl: string;
  auth: Record<string, string>;
  applicationId: string;
  devices: number;
  gateways: number;
  /** Join-requests per second offered (open loop: sent on schedule whatever the stack's answers). */
  rate: number;
  durationS: number;
  warmup: number;
  /** Copies of one join-request reach the gateways up to this many ms apart. */
  jitterMs: number;
  /** Each gateway pushes what it received every this many ms (the reference packet forwarder fetches every 10 ms). */
  fetchMs: number;
  /** Registrations in flight during the setup. */
  clients: number;
  /** The Gateway Servers' UDP ports: gateway i connects to the (i mod n)-th. */
  udpPorts: number[];
  /** Components' `/metrics` URLs by process name (the GS's `lorawan_gs_connected_gateways` is waited for). */
  metricsUrls: Record<string, string>;
  /** Processes whose CPU time is charged per join (name → pid). */
  pids: Record<string, number>;
  logs(): string;
  /**
   * When set, the application's events are read straight from NATS during the measurement and the
   * NS's `ns.up.merge_metadata` counted by the number of gateways it merged (`merged_gateways`):
   * how many copies made it into the join's metadata before the join-accept's gateway was chosen.
   */
  traceMerges?: { natsUrl: string; subjectPrefix: string };
}

/** Counts `ns.up.merge_metadata` events by their gateway count, from the application's event subject. */
async function traceMerges(o: NonNullable<JoinPhaseOptions['traceMerges']>, applicationId: string) {
  const nc: NatsConnection = await connect({ servers: o.natsUrl, name: 'bench-join-trace' });
  const counts: Record<string, number> = {};
  const marker = Buffer.from('"ns.up.merge_metadata"');
  const sub = nc.subscribe(`${o.subjectPrefix}.events.application.${applicationId}`, {
    callback: (err, msg) => {
      if (err || Buffer.from(msg.data.buffer, msg.data.byteOffset, msg.data.byteLength).indexOf(marker) < 0) return;
      const event = JSON.parse(Buffer.from(msg.data).toString()) as { name?: string; data?: { value?: unknown } };
      if (event.name !== 'ns.up.merge_metadata') return;
      const key = String(event.data?.value);
      counts[key] = (counts[key] ?? 0) + 1;
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

/** The target: joins per second with every join-accept inside RX1. */
export const TARGET_JOINS_PER_S = 200;
/** EU868 join-accept delays (JOIN_ACCEPT_DELAY1 / 2): the uplink's concentrator time + these µs. */
const RX1_US = 5_000_000;
const RX2_US = 6_000_000;
/** A join without its join-accept this long after its first copy was pushed is missing. */
const MISSING_AFTER_MS = 6000;
const JOIN_EUI = '70B3D57ED0000001';
/** The EU868 join channels and some data rates; every copy of a join-request has the same ones (the NS's deduplication key). */
const CHANNELS = [868.1, 868.3, 868.5];
const DATA_RATES = ['SF7BW125', 'SF8BW125', 'SF9BW125'];
/** SNR (dB) and RSSI (dBm) of the gateways, best first: which gateway gets which is drawn per join. */
const SIGNALS = [
  { lsnr: 9.5, rssi: -42 },
  { lsnr: 6, rssi: -61 },
  { lsnr: 2.5, rssi: -77 },
  { lsnr: -1, rssi: -90 },
  { lsnr: -4.5, rssi: -101 },
  { lsnr: -8, rssi: -109 },
  { lsnr: -11.5, rssi: -115 },
  { lsnr: -15, rssi: -119 },
];

interface JoinDevice {
  deviceId: string;
  devEui: string;
  appKey: string;
  /** DevNonces used so far (1.0.3: random, never twice). */
  nonces: Set<number>;
}

interface Copy {
  join: number;
  gateway: number;
  /** performance.now() it is due at. */
  due: number;
  tmst: number;
  lsnr: number;
  rssi: number;
  /** Date.now() it was pushed at. */
  pushedAt?: number;
}

interface Accept {
  gateway: number;
  at: number;
  window: 'rx1' | 'rx2';
  txpk: Record<string, unknown>;
  /** Its tmst is one join's RX1 and another's RX2 time: it is given to both, and belongs to the one whose AppKey opens it. */
  ambiguous: boolean;
}

interface Join {
  device: number;
  /** The PHYPayload, base64. */
  data: string;
  freq: number;
  datr: string;
  best: number;
  copies: Copy[];
  firstPushAt?: number;
  accepts: Accept[];
}

interface Gateway {
  id: string;
  eui: string;
  udp: SimulatedUdpGateway;
  /** This gateway's concentrator clock at the bench's epoch (µs). */
  clock: number;
  /** Join index by the tmst its RX1 / RX2 PULL_RESP carries. */
  rx1: Map<number, number>;
  rx2: Map<number, number>;
  /** The uplink tmsts in use on this gateway (each unique). */
  tmsts: Set<number>;
  /** Downlinks handled so far (of `udp.downlinks`). */
  seen: number;
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex').toUpperCase();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return round(sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]);
}

function shuffled(n: number): number[] {
  const a = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

async function expect200(conn: Connection, method: string, path: string, body: unknown): Promise<void> {
  const res = await conn.request(method, path, body);
  if (res.status !== 200) throw new Error(`${method} ${path}: HTTP ${res.status} ${res.body.slice(0, 1000)}`);
}

/** IS, JS (AppKey), NS (EU868, 1.0.3, joins) and AS, as a TTS client registers an OTAA device; `clients` devices at once. */
async function registerDevices(o: JoinPhaseOptions, devices: JoinDevice[]): Promise<number> {
  const app = o.applicationId;
  const conns = Array.from({ length: o.clients }, () => new Connection(o.baseUrl, o.auth));
  const start = performance.now();
  let next = 0;
  try {
    await Promise.all(
      conns.map(async (conn) => {
        while (next < devices.length) {
          const d = devices[next++];
          const ids = { device_id: d.deviceId, application_ids: { application_id: app }, dev_eui: d.devEui, join_eui: JOIN_EUI };
          const path = (c: string) => `/api/v3/${c}/applications/${app}/devices/${d.deviceId}`;
          await expect200(conn, 'POST', `/api/v3/applications/${app}/devices`, {
            end_device: {
              ids,
              name: `Join ${d.deviceId}`,
              join_server_address: 'localhost',
              network_server_address: 'localhost',
              application_server_address: 'localhost',
            },
          });
          await expect200(conn, 'PUT', path('js'), {
            end_device: { ids, root_keys: { app_key: { key: d.appKey } } },
            field_mask: { paths: ['root_keys.app_key.key'] },
          });
          await expect200(conn, 'PUT', path('ns'), {
            end_device: {
              ids,
              frequency_plan_id: 'EU_863_870_TTN',
              lorawan_version: 'MAC_V1_0_3',
              lorawan_phy_version: 'PHY_V1_0_3_REV_A',
              supports_join: true,
            },
            field_mask: { paths: ['frequency_plan_id', 'lorawan_version', 'lorawan_phy_version', 'supports_join'] },
          });
          await expect200(conn, 'PUT', path('as'), {
            end_device: { ids, formatters: { up_formatter: 'FORMATTER_CAYENNELPP' } },
            field_mask: { paths: ['formatters'] },
          });
        }
      }),
    );
  } finally {
    for (const c of conns) c.close();
  }
  return (performance.now() - start) / 1000;
}

/** A join-request of the device with a DevNonce it never used, built by lora-packet (never by the stack's code). */
function joinRequest(d: JoinDevice): string {
  let nonce = randomInt(0x10000);
  while (d.nonces.has(nonce)) nonce = randomInt(0x10000);
  d.nonces.add(nonce);
  return (
    loraPacket
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
      .getPHYPayload() as Buffer
  ).toString('base64');
}

/**
 * Joins `from` … `from + count - 1` (device `index mod devices`), the first due at `t0`
 * (performance.now()), one every 1/rate s; each copy up to `jitterMs` later, with a concentrator
 * time that follows the gateway's clock (unique on the gateway) and the gateway's signal for it.
 */
function planJoins(o: JoinPhaseOptions, devices: JoinDevice[], gateways: Gateway[], joins: Join[], count: number, t0: number, epoch: number): Copy[] {
  const copies: Copy[] = [];
  for (let n = 0; n < count; n++) {
    const index = joins.length;
    const device = index % devices.length;
    const due = t0 + (n * 1000) / o.rate;
    const signals = shuffled(gateways.length);
    const join: Join = {
      device,
      data: joinRequest(devices[device]),
      freq: CHANNELS[index % CHANNELS.length],
      datr: DATA_RATES[Math.floor(index / CHANNELS.length) % DATA_RATES.length],
      best: signals.indexOf(0),
      copies: [],
      accepts: [],
    };
    for (const [g, gw] of gateways.entries()) {
      const at = due + Math.random() * o.jitterMs;
      let tmst = (gw.clock + Math.round((at - epoch) * 1000)) >>> 0;
      while (gw.tmsts.has(tmst)) tmst = (tmst + 1) >>> 0;
      gw.tmsts.add(tmst);
      gw.rx1.set((tmst + RX1_US) >>> 0, index);
      gw.rx2.set((tmst + RX2_US) >>> 0, index);
      const copy: Copy = { join: index, gateway: g, due: at, tmst, ...SIGNALS[signals[g] % SIGNALS.length] };
      join.copies.push(copy);
      copies.push(copy);
    }
    joins.push(join);
  }
  return copies.sort((a, b) => a.due - b.due);
}

/** The PULL_RESPs that arrived: each acknowledged (TX_ACK, as a forwarder does) and matched to its join by tmst. */
function collectDownlinks(gateways: Gateway[], joins: Join[], unmatched: { count: number }): void {
  for (const [g, gw] of gateways.entries()) {
    const downlinks = gw.udp.downlinks;
    for (; gw.seen < downlinks.length; gw.seen++) {
      const down = downlinks[gw.seen];
      gw.udp.txAck(down.token);
      const tmst = Number(down.txpk.tmst);
      const rx1 = gw.rx1.get(tmst);
      const rx2 = gw.rx2.get(tmst);
      if (rx1 === undefined && rx2 === undefined) unmatched.count++;
      const ambiguous = rx1 !== undefined && rx2 !== undefined;
      if (rx1 !== undefined) joins[rx1].accepts.push({ gateway: g, at: down.at, window: 'rx1', txpk: down.txpk, ambiguous });
      if (rx2 !== undefined) joins[rx2].accepts.push({ gateway: g, at: down.at, window: 'rx2', txpk: down.txpk, ambiguous });
    }
  }
}

/**
 * Sends the copies on schedule (open loop), each gateway as a packet forwarder does: every
 * `fetchMs` (its own phase) it pushes what it received since its last fetch in one PUSH_DATA.
 * Returns the lag of each copy behind its schedule (ms), waiting for the fetch included.
 */
async function drive(copies: Copy[], gateways: Gateway[], joins: Join[], fetchMs: number, pushFailures: { count: number }): Promise<number[]> {
  const lags: number[] = [];
  const queues = gateways.map((_, g) => copies.filter((c) => c.gateway === g));
  const next = queues.map(() => 0);
  const start = performance.now();
  const fetchAt = gateways.map(() => start + Math.random() * fetchMs);
  while (queues.some((q, g) => next[g] < q.length)) {
    const now = performance.now();
    for (const [g, queue] of queues.entries()) {
      if (fetchAt[g] > now) continue;
      // The next fetch: one period on, or now when the process fell behind.
      fetchAt[g] = Math.max(fetchAt[g] + fetchMs, now);
      const from = next[g];
      while (next[g] < queue.length && queue[next[g]].due <= now) next[g]++;
      if (next[g] === from) continue;
      const at = Date.now();
      const rxpk = queue.slice(from, next[g]).map((c) => {
        const join = joins[c.join];
        c.pushedAt = at;
        join.firstPushAt = Math.min(join.firstPushAt ?? at, at);
        lags.push(now - c.due);
        return SimulatedUdpGateway.rxpk(Buffer.from(join.data, 'base64'), { tmst: c.tmst, freq: join.freq, datr: join.datr, lsnr: c.lsnr, rssi: c.rssi });
      });
      gateways[g].udp.push({ rxpk }).catch(() => (pushFailures.count += rxpk.length));
    }
    await sleep(Math.max(1, Math.min(...fetchAt) - performance.now()));
  }
  return lags;
}

/** Waits until every join of `from` … `to - 1` has a join-accept, at most until `MISSING_AFTER_MS` after the last first push (+ a margin). */
async function drain(gateways: Gateway[], joins: Join[], from: number, to: number, unmatched: { count: number }): Promise<void> {
  const pending = joins.slice(from, to);
  const deadline = Math.max(...pending.map((j) => j.firstPushAt ?? Date.now())) + MISSING_AFTER_MS + 500;
  while (Date.now() < deadline && pending.some((j) => j.accepts.length === 0)) await sleep(10);
  collectDownlinks(gateways, joins, unmatched);
}

/** Opens a join-accept with the device's AppKey (lora-packet): whether it is a Join Accept whose MIC holds. */
function validAccept(accept: Accept, appKey: string): boolean {
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
  let firstPush = Infinity;
  let lastPush = 0;
  for (const join of joins) {
    const pushed = join.firstPushAt as number;
    firstPush = Math.min(firstPush, pushed);
    lastPush = Math.max(lastPush, pushed);
    // Each join-accept must open with the device's AppKey (an ambiguous one only with one of its two joins').
    const valid = join.accepts.filter((a) => validAccept(a, devices[join.device].appKey));
    micFailures += join.accepts.filter((a) => !a.ambiguous).length - valid.filter((a) => !a.ambiguous).length;
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
    const heard = join.copies[first.gateway].pushedAt as number;
    if (sameSettings && first.at - heard < RX1_US / 1000) insideRx1++;
  }
  const sorted = latencies.sort((a, b) => a - b);
  return {
    accepted,
    late,
    rx2,
    wrongGateway,
    wrongRx1Settings,
    insideRx1,
    duplicates,
    micFailures,
    latency: { p50: percentile(sorted, 50), p90: percentile(sorted, 90), p99: percentile(sorted, 99), max: round(sorted[sorted.length - 1] ?? 0) },
    elapsedS: (lastAccept - firstPush) / 1000,
    sendS: (lastPush - firstPush) / 1000,
  };
}

async function waitConnected(o: JoinPhaseOptions): Promise<void> {
  const gsUrls = Object.fromEntries(Object.entries(o.metricsUrls).filter(([name]) => name.split('#')[0] === 'gs'));
  const deadline = Date.now() + 15000;
  for (;;) {
    const scrapes = await scrapeAll(gsUrls);
    const connected = Object.values(scrapes).reduce((n, s) => n + (gauge(s, 'lorawan_gs_connected_gateways') ?? 0), 0);
    if (connected >= o.gateways) return;
    if (Date.now() > deadline) throw new Error(`joins: ${connected} of ${o.gateways} gateways connected to the Gateway Server(s)`);
    await sleep(100);
  }
}

export async function joinsPhase(o: JoinPhaseOptions) {
  const devices: JoinDevice[] = Array.from({ length: o.devices }, (_, i) => ({
    deviceId: `join-${String(i).padStart(6, '0')}`,
    devEui: `70B3D57EA0${i.toString(16).padStart(6, '0')}`.toUpperCase(),
    appKey: hex(16),
    nonces: new Set<number>(),
  }));
  const gateways: Gateway[] = [];
  const setup = new Connection(o.baseUrl, o.auth);
  let collector: NodeJS.Timeout | undefined;
  let tracer: Awaited<ReturnType<typeof traceMerges>> | undefined;
  try {
    await createApplications(o.baseUrl, o.auth, [o.applicationId]);
    log(`joins: registering ${o.devices} OTAA devices (IS + JS + NS + AS), ${o.clients} clients`);
    const registerS = await registerDevices(o, devices);
    log(`joins: registered in ${round(registerS)}s`);
    const epoch = performance.now();
    for (let g = 0; g < o.gateways; g++) {
      const eui = `B827EBFF${hex(3)}${g.toString(16).padStart(2, '0').toUpperCase()}`;
      const id = `bench-join-gtw-${g}`;
      await expect200(setup, 'POST', `/api/v3/users/${ADMIN_USER_ID}/gateways`, {
        gateway: { ids: { gateway_id: id, eui }, frequency_plan_id: 'EU_863_870_TTN' },
      });
      const udp = new SimulatedUdpGateway(eui, { host: '127.0.0.1', port: o.udpPorts[g % o.udpPorts.length] });
      await udp.open();
      // The first gateway's concentrator clock wraps (2^32 µs) about the middle of the measurement (its RX1 times 5 s before).
      const clock = g === 0 ? 2 ** 32 - Math.round((o.warmup / o.rate + 2 + o.durationS / 2) * 1e6) : randomInt(2 ** 32 - 1);
      gateways.push({ id, eui, udp, clock, rx1: new Map(), rx2: new Map(), tmsts: new Set(), seen: 0 });
      // The downlink path: PULL_DATA, then keep-alives.
      const ack = await udp.pull();
      if (ack !== 0x04) throw new Error(`joins: gateway ${id}: PULL_DATA answered with 0x${ack.toString(16)}`);
      udp.keepAlive(5000);
    }
    await waitConnected(o);
    if (o.traceMerges) tracer = await traceMerges(o.traceMerges, o.applicationId);

    const joins: Join[] = [];
    const unmatched = { count: 0 };
    const pushFailures = { count: 0 };
    // PULL_RESPs are matched and acknowledged as they come (their arrival time is taken on receipt by the simulated gateway).
    collector = setInterval(() => collectDownlinks(gateways, joins, unmatched), 10);
    const measuredCount = Math.round(o.rate * o.durationS);
    // Planned (frames built, with their DevNonces) before anything is sent: the load generator only pushes.
    const warmCopies = planJoins(o, devices, gateways, joins, o.warmup, performance.now() + 100, epoch);
    log(`joins: warm-up ${o.warmup} joins at ${o.rate}/s, ${o.gateways} gateways`);
    await drive(warmCopies, gateways, joins, o.fetchMs, pushFailures);
    await drain(gateways, joins, 0, o.warmup, unmatched);
    const warm = summarize(joins.slice(0, o.warmup), devices);
    log(`joins: warm-up ${warm.accepted} of ${o.warmup} accepted, p50 ${warm.latency.p50} ms`);
    if (o.warmup > 0 && warm.accepted === 0) throw new Error(`joins: no join-accept for any warm-up join; stack logs:\n${o.logs().slice(-6000)}`);

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
    const cpuBefore = Object.fromEntries(Object.entries(o.pids).map(([n, pid]) => [n, cpuMs(pid) ?? 0]));
    const machineBefore = machineBusyMs();
    const wallStart = performance.now();
    log(
      `joins: ${measuredCount} joins at ${o.rate}/s for ${o.durationS}s, ${o.gateways} gateways, copies up to ${o.jitterMs} ms apart, a PUSH_DATA per gateway every ${o.fetchMs} ms`,
    );
    const lags = await drive(copies, gateways, joins, o.fetchMs, pushFailures);
    // The load while it is offered (the drain after it may idle, waiting for missing joins).
    const offeredS = (performance.now() - wallStart) / 1000;
    const cpuOffered = Object.fromEntries(Object.entries(o.pids).map(([n, pid]) => [n, cpuMs(pid) ?? 0]));
    const machineCores = (machineBusyMs() - machineBefore) / 1000 / offeredS;
    const ownCores = Object.keys(o.pids).reduce((sum, n) => sum + (cpuOffered[n] - cpuBefore[n]) / 1000 / offeredS, 0);
    await drain(gateways, joins, o.warmup, joins.length, unmatched);
    const cpuAfter = Object.fromEntries(Object.entries(o.pids).map(([n, pid]) => [n, cpuMs(pid) ?? 0]));
    const metricsAfter = await scrapeAll(o.metricsUrls);
    // The merges of the measured joins (the last ones come 200 ms after their first copy, before their join-accept).
    const merges = tracer?.counts();
    const s = summarize(measured, devices);
    const sortedLags = lags.sort((a, b) => a - b);
    const joinsPerS = s.elapsedS > 0 ? round(s.accepted / s.elapsedS) : 0;
    const stackMetrics = Object.fromEntries(
      Object.keys(o.metricsUrls).map((name) => {
        const [b, a] = [metricsBefore[name], metricsAfter[name]];
        const counters = {
          ns_join_requests: counterDelta(b, a, 'lorawan_ns_join_requests_total', 'result'),
          gs_uplinks: counterDelta(b, a, 'lorawan_gs_uplinks_total', 'result'),
          gs_downlinks: counterDelta(b, a, 'lorawan_gs_downlinks_total', 'result'),
          gs_udp_dropped: counterDelta(b, a, 'lorawan_gs_udp_dropped_total', 'reason'),
        };
        const events = Object.values(counterDelta(b, a, 'lorawan_events_published_total', 'name')).reduce((x, y) => x + y, 0);
        return [
          name,
          {
            ...Object.fromEntries(Object.entries(counters).filter(([, v]) => Object.keys(v).length > 0)),
            ...(events > 0 ? { events_published: events } : {}),
            rpc_server: rpcServerTimings(b, a),
            // prom-client's event loop delay histogram restarts at every scrape: this is over the measurement.
            eventloop_lag_p99_ms: round((gauge(a, 'nodejs_eventloop_lag_p99_seconds') ?? 0) * 1000),
            eventloop_lag_max_ms: round((gauge(a, 'nodejs_eventloop_lag_max_seconds') ?? 0) * 1000),
          },
        ];
      }),
    );
    const result = {
      devices: o.devices,
      gateways: o.gateways,
      gateway_servers: o.udpPorts.length,
      offered_per_s: o.rate,
      sent_per_s: s.sendS > 0 ? round((measured.length - 1) / s.sendS) : 0,
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
      send_lag_ms: { p50: percentile(sortedLags, 50), p99: percentile(sortedLags, 99), max: round(sortedLags[sortedLags.length - 1] ?? 0) },
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
      cpu_ms_per_join: Object.fromEntries(Object.keys(o.pids).map((n) => [n, round((cpuAfter[n] - cpuBefore[n]) / Math.max(1, s.accepted), 3)])),
      /** Cores (CPU s per s) each process used while the load was offered (first to last push). */
      cpu_cores: Object.fromEntries(Object.keys(o.pids).map((n) => [n, round((cpuOffered[n] - cpuBefore[n]) / 1000 / offeredS, 2)])),
      /** The machine's busy cores over the same time, and what of it processes outside the bench used (other work competes with the stack). */
      machine_busy_cores: round(machineCores),
      other_cores: round(Math.max(0, machineCores - ownCores)),
      stack_metrics: stackMetrics,
    };
    log(`joins: ${JSON.stringify({ ...result, stack_metrics: undefined })}`);
    return result;
  } finally {
    clearInterval(collector);
    await tracer?.close();
    setup.close();
    for (const g of gateways) g.udp.close();
  }
}
