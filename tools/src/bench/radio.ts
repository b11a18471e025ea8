import { randomBytes, randomInt } from 'node:crypto';
import { SimulatedBasicStation, type StationDownlink, SimulatedUdpGateway } from '@lorawan/testing';
import { ADMIN_USER_ID } from './applications';
import { round } from './load';
import { counterDelta, gauge, rpcServerTimings, type Scrape, scrapeAll } from './metrics';
import { cpuMs, machineBusyMs, rssMb } from './procs';
import { Connection } from './register';

/**
 * Radio traffic through the Gateway Server's Semtech UDP frontend or its LoRa Basics Station
 * frontend, shared by the `joins` and `uplinks` phases (and their `_lbs` twins): OTAA devices
 * registered as a TTS client does, simulated gateways (registered in the IS; a packet forwarder
 * with its downlink path open by PULL_DATA and kept alive, or a station connected over WebSocket
 * after discovery, `GatewayLink`), transmissions each heard
 * by every gateway with its own concentrator time (`tmst`), SNR and RSSI, pushed open loop at each
 * gateway's fetch, and the PULL_RESPs matched to the transmission they answer by their `tmst`
 * (the uplink copy's `tmst` + the RX1 or RX2 delay, unique on the gateway), each answered with a
 * TX_ACK. Plus what a measurement reads around the load: CPU per process and the components'
 * `/metrics`.
 */

export const hex = (bytes: number) => randomBytes(bytes).toString('hex').toUpperCase();
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** rxpk per PUSH_DATA at most (the SX1301 packet forwarder's NB_PKT_MAX is 8, the SX1302 one's 255). */
const RXPK_PER_PUSH = 32;

/** EU868's join channels and the eight channels of `EU_863_870_TTN` (MHz), and some data rates; every copy of a frame has the same ones (the NS's deduplication key). */
export const EU868_JOIN_CHANNELS = [868.1, 868.3, 868.5];
export const EU868_CHANNELS = [...EU868_JOIN_CHANNELS, 867.1, 867.3, 867.5, 867.7, 867.9];
export const DATA_RATES = ['SF7BW125', 'SF8BW125', 'SF9BW125'];

/** SNR (dB) and RSSI (dBm) of the gateways, best first: which gateway gets which is drawn per transmission. */
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

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return round(sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]);
}

/** p50, p90, p99 and max of `values` (ms). */
export function latencyFigures(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p90: percentile(sorted, 90), p99: percentile(sorted, 99), max: round(sorted[sorted.length - 1] ?? 0) };
}

function shuffled(n: number): number[] {
  const a = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

export async function expect200(conn: Connection, method: string, path: string, body?: unknown): Promise<string> {
  const res = await conn.request(method, path, body);
  if (res.status !== 200) throw new Error(`${method} ${path}: HTTP ${res.status} ${res.body.slice(0, 1000)}`);
  return res.body;
}

export interface HttpTarget {
  baseUrl: string;
  auth: Record<string, string>;
}

/** The load of a radio phase (`joins`, `uplinks`): whose devices, how many, heard by how many gateways, how fast, how long. */
export interface RadioLoad {
  applicationId: string;
  devices: number;
  gateways: number;
  /** Transmissions per second offered (open loop: sent on schedule whatever the stack's answers). */
  rate: number;
  durationS: number;
  /** Transmissions at `rate` before the measurement, not counted. */
  warmup: number;
}

/**
 * What a radio phase is given besides its load: the stack (the GSs' UDP ports, the components'
 * `/metrics` URLs and the processes charged per unit of work, by name), the simulated gateways'
 * habits (copies of a transmission up to `jitterMs` apart; a PUSH_DATA every `fetchMs`, as the
 * reference packet forwarder's 10 ms fetch) and the HTTP requests in flight during the setup.
 */
export interface RadioPhaseOptions extends HttpTarget, RadioLoad {
  jitterMs: number;
  fetchMs: number;
  clients: number;
  /** How the simulated gateways reach the GS: Semtech UDP packet forwarders (`udpPorts`) or LoRa Basics Stations (`lbsPorts`, `ws://`). */
  protocol: GatewayProtocol;
  udpPorts: number[];
  lbsPorts: number[];
  metricsUrls: Record<string, string>;
  pids: Record<string, number>;
  logs(): string;
}

/** The names a radio phase gives its application's devices and gateways, apart from every other phase's. */
export interface RadioNames {
  /** Prefix of the log lines. */
  label: string;
  /** Device IDs are `<deviceIdPrefix>-<n>`. */
  deviceIdPrefix: string;
  /** DevEUIs are these 10 hex digits and 6 of n. */
  devEuiPrefix: string;
  /** Gateway IDs are `<gatewayIdPrefix>-<n>`. */
  gatewayIdPrefix: string;
}

/** `work` for every item, `clients` at once, each worker on its own keep-alive connection; resolves with the seconds it took. */
export async function forEachOnConnections<T>(
  target: HttpTarget,
  clients: number,
  items: readonly T[],
  work: (conn: Connection, item: T) => Promise<void>,
): Promise<number> {
  const conns = Array.from({ length: clients }, () => new Connection(target.baseUrl, target.auth));
  const start = performance.now();
  let next = 0;
  try {
    await Promise.all(
      conns.map(async (conn) => {
        while (next < items.length) await work(conn, items[next++]);
      }),
    );
  } finally {
    for (const c of conns) c.close();
  }
  return (performance.now() - start) / 1000;
}

export interface OtaaDeviceSpec {
  deviceId: string;
  devEui: string;
  appKey: string;
}

/**
 * IS, JS (AppKey), NS (EU868, 1.0.3, joins) and AS (CayenneLPP uplink formatter), as a TTS client
 * registers an OTAA device; `clients` devices at once. Resolves with the seconds it took.
 */
export function registerOtaaDevices(target: HttpTarget, app: string, joinEui: string, devices: readonly OtaaDeviceSpec[], clients: number): Promise<number> {
  return forEachOnConnections(target, clients, devices, async (conn, d) => {
    const ids = { device_id: d.deviceId, application_ids: { application_id: app }, dev_eui: d.devEui, join_eui: joinEui };
    const path = (c: string) => `/api/v3/${c}/applications/${app}/devices/${d.deviceId}`;
    await expect200(conn, 'POST', `/api/v3/applications/${app}/devices`, {
      end_device: {
        ids,
        name: `Device ${d.deviceId}`,
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
      end_device: { ids, frequency_plan_id: 'EU_863_870_TTN', lorawan_version: 'MAC_V1_0_3', lorawan_phy_version: 'PHY_V1_0_3_REV_A', supports_join: true },
      field_mask: { paths: ['frequency_plan_id', 'lorawan_version', 'lorawan_phy_version', 'supports_join'] },
    });
    await expect200(conn, 'PUT', path('as'), {
      end_device: { ids, formatters: { up_formatter: 'FORMATTER_CAYENNELPP' } },
      field_mask: { paths: ['formatters'] },
    });
  });
}

/** One gateway's copy of a transmission. */
export interface Copy {
  /** Index of its transmission. */
  tx: number;
  gateway: number;
  /** performance.now() it is due at. */
  due: number;
  tmst: number;
  lsnr: number;
  rssi: number;
  /** Date.now() it was pushed at. */
  pushedAt?: number;
}

/** A PULL_RESP matched to the transmission it answers. */
export interface Downlink {
  gateway: number;
  /** Date.now() it arrived at. */
  at: number;
  window: 'rx1' | 'rx2';
  txpk: Record<string, unknown>;
}

/** A frame on air, heard by every gateway. */
export interface Transmission {
  /** The PHYPayload. */
  data: Buffer;
  /** MHz. */
  freq: number;
  datr: string;
  /** The gateway that hears it best. */
  best: number;
  copies: Copy[];
  /** Date.now() of its first copy's push. */
  firstPushAt?: number;
  downlinks: Downlink[];
}

export type GatewayProtocol = 'udp' | 'basicstation';

/** A downlink as a gateway received it: the concentrator time it is to be sent at (32 bits), its arrival (Date.now()), as a Semtech `txpk`. */
export interface ReceivedTx {
  tmst: number;
  at: number;
  txpk: Record<string, unknown>;
}

/** A simulated gateway's link to its Gateway Server, whatever the protocol. */
export interface GatewayLink {
  /** Sends what the gateway received since its last fetch; `failed(n)` counts copies the server did not take (no PUSH_ACK in 2 s, a closed socket). */
  push(copies: ReadonlyArray<{ copy: Copy; tx: Transmission }>, failed: (count: number) => void): void;
  /** The downlinks that arrived since the last call, each acknowledged as the gateway does (TX_ACK, `dntxed`); `refused(n)` counts those it would not send. */
  take(refused: (count: number) => void): ReceivedTx[];
  close(): void;
}

/** A Semtech UDP packet forwarder: PUSH_DATA of at most `RXPK_PER_PUSH` rxpk, PULL_RESPs answered with TX_ACK. */
class UdpLink implements GatewayLink {
  private seen = 0;

  constructor(readonly udp: SimulatedUdpGateway) {}

  push(copies: ReadonlyArray<{ copy: Copy; tx: Transmission }>, failed: (count: number) => void): void {
    const rxpk = copies.map(({ copy, tx }) =>
      SimulatedUdpGateway.rxpk(tx.data, { tmst: copy.tmst, freq: tx.freq, datr: tx.datr, lsnr: copy.lsnr, rssi: copy.rssi }),
    );
    // As a packet forwarder's datagram buffer, a PUSH_DATA carries a bounded number of packets: after a stall, several.
    for (let i = 0; i < rxpk.length; i += RXPK_PER_PUSH) {
      const part = rxpk.slice(i, i + RXPK_PER_PUSH);
      this.udp.push({ rxpk: part }).catch(() => failed(part.length));
    }
  }

  take(): ReceivedTx[] {
    // A packet forwarder refuses with its TX_ACK (the GS counts it), never by dropping: none refused here.
    const out: ReceivedTx[] = [];
    for (const downlinks = this.udp.downlinks; this.seen < downlinks.length; this.seen++) {
      const down = downlinks[this.seen];
      this.udp.txAck(down.token);
      out.push({ tmst: Number(down.txpk.tmst), at: down.at, txpk: down.txpk });
    }
    return out;
  }

  close(): void {
    this.udp.close();
  }
}

/** EU868's LoRa data rates by DR index (station's `DR`): DR0 SF12 … DR5 SF7, 125 kHz. */
const EU868_DR = (datr: string) => 12 - Number(/^SF(\d+)BW125$/.exec(datr)?.[1] ?? NaN);

/**
 * A LoRa Basics Station (`SimulatedBasicStation` of `@lorawan/testing`): one `jreq`/`updf` message
 * per received frame, its `xtime` the station's session and the copy's concentrator time (the
 * bench keeps a station's clock below 2^32 µs, so its low 32 bits are the `tmst` the answers are
 * matched by); a `dnmsg` is sent at its `xtime` + `RxDelay` s (the GS sends a planned class A
 * downlink as TTS does: the planned time − 1 s, RxDelay 1, the channel as RX1) and answered with
 * `dntxed`.
 */
class StationLink implements GatewayLink {
  constructor(readonly station: SimulatedBasicStation) {}

  push(copies: ReadonlyArray<{ copy: Copy; tx: Transmission }>, failed: (count: number) => void): void {
    for (const { copy, tx } of copies) {
      try {
        this.station.sendFrame(tx.data, {
          DR: EU868_DR(tx.datr),
          Freq: Math.round(tx.freq * 1e6),
          rssi: copy.rssi,
          snr: copy.lsnr,
          xtime: this.station.session | BigInt(copy.tmst),
        });
      } catch {
        failed(1);
      }
    }
  }

  take(refused: (count: number) => void): ReceivedTx[] {
    const downlinks: StationDownlink[] = this.station.downlinks.splice(0);
    // dnmsgs station would drop (`dnmsgProblem`: not its session, too late, …) are not sent.
    refused(this.station.refusedDownlinks.splice(0).length);
    // The station keeps every server message: the bench needs none of them once taken.
    this.station.received.length = 0;
    return downlinks.map((dn) => {
      this.station.acknowledge(dn);
      const at = (dn.xtime ?? 0n) + BigInt(dn.RxDelay ?? 0) * 1_000_000n;
      const dr = dn.RX1DR ?? dn.RX2DR ?? dn.DR ?? 0;
      const freq = dn.RX1Freq ?? dn.RX2Freq ?? dn.Freq ?? 0;
      return {
        tmst: Number(at & 0xffffffffn),
        at: dn.receivedAt,
        txpk: { tmst: Number(at & 0xffffffffn), freq: freq / 1e6, datr: `SF${12 - dr}BW125`, data: Buffer.from(dn.pdu, 'hex').toString('base64') },
      };
    });
  }

  close(): void {
    this.station.close();
  }
}

/**
 * A station whose concentrator clock is its gateway's in the bench (`clockAt()`: µs, below 2^32):
 * the xtimes of its `dntxed` agree with those of its frames (the GS keeps each gateway's clock
 * from them; a second clock would move the downlinks' times).
 */
class BenchStation extends SimulatedBasicStation {
  constructor(
    eui: string,
    private readonly clockAt: () => number,
  ) {
    super(eui);
  }

  override xtime(): bigint {
    return this.session | BigInt(Math.round(this.clockAt()));
  }
}

export interface Gateway {
  id: string;
  eui: string;
  link: GatewayLink;
  /** This gateway's concentrator clock at the bench's epoch (µs). */
  clock: number;
  /** The uplink tmsts in use on this gateway (each unique). */
  tmsts: Set<number>;
  /** Transmission index and window by the tmst of the downlink that would answer it (each unique: no downlink matches two). */
  answers: Map<number, { tx: number; window: 'rx1' | 'rx2' }>;
}

export interface GatewayOptions extends Pick<RadioPhaseOptions, 'baseUrl' | 'auth' | 'protocol' | 'udpPorts' | 'lbsPorts' | 'metricsUrls'> {
  /** Gateway IDs are `<idPrefix>-<n>`, n from `first` (0). */
  idPrefix: string;
  first?: number;
  count: number;
  /** The concentrator clock of gateway g at the bench's epoch (µs). */
  clock(g: number): number;
  /** The bench's epoch (performance.now()). */
  epoch: number;
}

async function connectedGateways(metricsUrls: Record<string, string>): Promise<number> {
  const gsUrls = Object.fromEntries(Object.entries(metricsUrls).filter(([name]) => name.split('#')[0] === 'gs'));
  const scrapes = await scrapeAll(gsUrls);
  return Object.values(scrapes).reduce((n, s) => n + (gauge(s, 'lorawan_gs_connected_gateways') ?? 0), 0);
}

/**
 * Registers `count` gateways in the IS (`EU_863_870_TTN`), connects each to its Gateway Server as
 * a packet forwarder (PULL_DATA, then every 5 s) or as a Basics Station (discovery on
 * `/router-info`, then the data connection: `version`, `router_config`), and waits until the GSs
 * count them connected.
 */
export async function openGateways(o: GatewayOptions, phase: string): Promise<Gateway[]> {
  const gateways: Gateway[] = [];
  const setup = new Connection(o.baseUrl, o.auth);
  try {
    const before = await connectedGateways(o.metricsUrls);
    const first = o.first ?? 0;
    for (let g = first; g < first + o.count; g++) {
      const eui = `B827EBFF${hex(3)}${(g & 0xff).toString(16).padStart(2, '0').toUpperCase()}`;
      const id = `${o.idPrefix}-${g}`;
      await expect200(setup, 'POST', `/api/v3/users/${ADMIN_USER_ID}/gateways`, {
        gateway: { ids: { gateway_id: id, eui }, frequency_plan_id: 'EU_863_870_TTN' },
      });
      if (o.protocol === 'basicstation') {
        const tcUri = `ws://127.0.0.1:${o.lbsPorts[g % o.lbsPorts.length]}`;
        // A station's xtime counts 48 bits of µs: its clock is kept below 2^32 for the whole run (no wrap), so a copy's xtime is the session and its tmst.
        const clock = randomInt(10_000_000, 2 ** 31);
        const station = new BenchStation(eui, () => clock + (performance.now() - o.epoch) * 1000);
        await connectStation(station, tcUri, eui, `${phase}: gateway ${id}`);
        gateways.push({ id, eui, link: new StationLink(station), clock, tmsts: new Set(), answers: new Map() });
        continue;
      }
      const udp = new SimulatedUdpGateway(eui, { host: '127.0.0.1', port: o.udpPorts[g % o.udpPorts.length] });
      await udp.open();
      gateways.push({ id, eui, link: new UdpLink(udp), clock: o.clock(g), tmsts: new Set(), answers: new Map() });
      // The downlink path: PULL_DATA, then keep-alives.
      const ack = await udp.pull();
      if (ack !== 0x04) throw new Error(`${phase}: gateway ${id}: PULL_DATA answered with 0x${ack.toString(16)}`);
      udp.keepAlive(5000);
    }
    // Gateways of an earlier phase may still count as connected: these are the ones above that count.
    const deadline = Date.now() + 15000;
    for (;;) {
      const connected = (await connectedGateways(o.metricsUrls)) - before;
      if (connected >= o.count) return gateways;
      if (Date.now() > deadline) throw new Error(`${phase}: ${connected} of ${o.count} gateways connected to the Gateway Server(s)`);
      await sleep(100);
    }
  } catch (err) {
    closeGateways(gateways);
    throw err;
  } finally {
    setup.close();
  }
}

export function closeGateways(gateways: readonly Gateway[]): void {
  for (const g of gateways) g.link.close();
}

/** When a transmission's answer is due: the uplink's concentrator time + these µs. */
export interface RxDelays {
  rx1Us: number;
  rx2Us: number;
}

/** Which gateways hear a transmission: `count` of them from `best` on (the best first, then the next ones, each weaker). */
export interface HeardBy {
  best: number;
  count: number;
}

/**
 * The copies of `tx` (the index of a transmission planned for `due`, performance.now()), one per
 * gateway that hears it (every one, or those of `heard`), each up to `jitterMs` later, with a
 * concentrator time that follows the gateway's clock (`epoch`: performance.now() of the gateways'
 * `clock`) and whose RX1 and RX2 times match no other transmission's on that gateway, and the
 * gateway's signal for it (a different gateway, drawn, is best for each transmission; `heard`'s
 * best with `heard`). Returns the best gateway too.
 */
export function planCopies(gateways: readonly Gateway[], tx: number, due: number, jitterMs: number, epoch: number, delays: RxDelays, heard?: HeardBy) {
  const hearing = heard
    ? Array.from({ length: Math.min(heard.count, gateways.length) }, (_, i) => (heard.best + i) % gateways.length)
    : gateways.map((_, g) => g);
  const signals = heard ? hearing.map((_, i) => i) : shuffled(gateways.length);
  const copies: Copy[] = [];
  for (const [i, g] of hearing.entries()) {
    const gw = gateways[g];
    const at = due + Math.random() * jitterMs;
    let tmst = (gw.clock + Math.round((at - epoch) * 1000)) >>> 0;
    const taken = (t: number) => gw.tmsts.has(t) || gw.answers.has((t + delays.rx1Us) >>> 0) || gw.answers.has((t + delays.rx2Us) >>> 0);
    while (taken(tmst)) tmst = (tmst + 1) >>> 0;
    gw.tmsts.add(tmst);
    gw.answers.set((tmst + delays.rx1Us) >>> 0, { tx, window: 'rx1' });
    gw.answers.set((tmst + delays.rx2Us) >>> 0, { tx, window: 'rx2' });
    copies.push({ tx, gateway: g, due: at, tmst, ...SIGNALS[signals[i] % SIGNALS.length] });
  }
  return { copies, best: hearing[signals.indexOf(0)] };
}

/**
 * The downlinks that arrived (PULL_RESPs, `dnmsg`s): each acknowledged as the gateway does and
 * matched to its transmission by tmst; `unmatched` counts those that match none, and the `dnmsg`s
 * a station would drop.
 */
export function collectDownlinks(gateways: readonly Gateway[], txs: readonly Transmission[], unmatched: { count: number }): void {
  for (const [g, gw] of gateways.entries()) {
    for (const down of gw.link.take((count) => (unmatched.count += count))) {
      const answer = gw.answers.get(down.tmst);
      if (answer === undefined) unmatched.count++;
      else txs[answer.tx].downlinks.push({ gateway: g, at: down.at, window: answer.window, txpk: down.txpk });
    }
  }
}

/**
 * Sends the copies (sorted by `due`) on schedule (open loop), each gateway as a packet forwarder
 * does: every `fetchMs` (its own phase) it pushes what it received since its last fetch (in one
 * PUSH_DATA; a station, one message per frame). Returns the lag of each copy behind its schedule (ms), waiting for the fetch included.
 */
export async function drive(
  copies: Copy[],
  gateways: readonly Gateway[],
  txs: readonly Transmission[],
  fetchMs: number,
  pushFailures: { count: number },
): Promise<number[]> {
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
      const fetched = queue.slice(from, next[g]).map((c) => {
        const tx = txs[c.tx];
        c.pushedAt = at;
        tx.firstPushAt = Math.min(tx.firstPushAt ?? at, at);
        lags.push(now - c.due);
        return { copy: c, tx };
      });
      gateways[g].link.push(fetched, (count) => (pushFailures.count += count));
    }
    await sleep(Math.max(1, Math.min(...fetchAt) - performance.now()));
  }
  return lags;
}

/** The first and last push of some transmissions, and what a rate over them is. */
export function pushSpan(txs: readonly Transmission[]) {
  const pushes = txs.map((t) => t.firstPushAt).filter((t): t is number => t !== undefined);
  const first = Math.min(...pushes);
  const last = Math.max(...pushes);
  return { first, last, perS: last > first ? round((pushes.length - 1) / ((last - first) / 1000)) : 0 };
}

type CpuSample = Record<string, number>;

/**
 * Waits until the processes of `pids` are idle (together less than `cores` over a second: the
 * backlog of an overload handled), at most `timeoutMs`: the seconds it waited, and whether they are.
 */
export function settle(pids: Record<string, number>, timeoutMs = 60000, cores = 0.15): Promise<{ s: number; idle: boolean }> {
  return untilIdle(() => Object.values(cpuSample(pids)).reduce((sum, ms) => sum + ms, 0), timeoutMs, cores);
}

/** Waits until `busyMs` (CPU used so far, in ms) grew by less than `cores` over a second, at most `timeoutMs`: the seconds it waited, and whether it did. */
export async function untilIdle(busyMs: () => number, timeoutMs: number, cores: number): Promise<{ s: number; idle: boolean }> {
  const start = performance.now();
  let before = busyMs();
  for (;;) {
    await sleep(1000);
    const now = busyMs();
    const used = (now - before) / 1000;
    before = now;
    const s = round((performance.now() - start) / 1000);
    if (used < cores) return { s, idle: true };
    if (s * 1000 > timeoutMs) return { s, idle: false };
  }
}

function cpuSample(pids: Record<string, number>): CpuSample {
  return Object.fromEntries(Object.entries(pids).map(([n, pid]) => [n, cpuMs(pid) ?? 0]));
}

/**
 * CPU (user + system) each process of `pids` uses over a measurement, and the machine's busy cores:
 * `start()` before the first push, `offered()` after the last (the load's own figures: cores),
 * `end()` after the drain (CPU per unit of work, the tail of the handling included; memory).
 */
export class CpuMeter {
  private before: CpuSample = {};
  private atOffered: CpuSample = {};
  private after: CpuSample = {};
  private machineBefore = 0;
  private machineCores = 0;
  private startedAt = 0;
  private offeredS = 0;
  private rss: Record<string, number> = {};

  constructor(private readonly pids: Record<string, number>) {}

  start(): void {
    this.before = cpuSample(this.pids);
    this.machineBefore = machineBusyMs();
    this.startedAt = performance.now();
  }

  offered(): void {
    this.offeredS = (performance.now() - this.startedAt) / 1000;
    this.atOffered = cpuSample(this.pids);
    this.machineCores = (machineBusyMs() - this.machineBefore) / 1000 / this.offeredS;
  }

  end(): void {
    this.after = cpuSample(this.pids);
    this.rss = Object.fromEntries(Object.entries(this.pids).map(([n, pid]) => [n, rssMb(pid) ?? 0]));
  }

  /** CPU ms each process used per unit of work (`count`), from `start()` to `end()`. */
  msPer(count: number): Record<string, number> {
    return Object.fromEntries(Object.keys(this.pids).map((n) => [n, round((this.after[n] - this.before[n]) / Math.max(1, count), 3)]));
  }

  /**
   * `cpu_cores`: cores (CPU s per s) each process used while the load was offered (first to last
   * push); `machine_busy_cores` the machine's over the same time, and `other_cores` what of it
   * processes outside the bench used (other work competes with the stack).
   */
  cores() {
    const cores = Object.fromEntries(Object.keys(this.pids).map((n) => [n, (this.atOffered[n] - this.before[n]) / 1000 / this.offeredS]));
    const own = Object.values(cores).reduce((a, b) => a + b, 0);
    return {
      cpu_cores: Object.fromEntries(Object.entries(cores).map(([n, c]) => [n, round(c)])),
      machine_busy_cores: round(this.machineCores),
      other_cores: round(Math.max(0, this.machineCores - own)),
      /** Resident memory (MB) of each process at `end()`. */
      rss_mb: this.rss,
    };
  }
}

/**
 * Per component process, from its `/metrics` before and after a measurement: the `counters`
 * (metric → label) that moved, events published, `rpc_server` (RPCs served: count, mean, the
 * buckets of p50 and p99) and the event loop lag (p99, max).
 */
export function stackMetrics(before: Record<string, Scrape>, after: Record<string, Scrape>, counters: Record<string, [metric: string, label: string]>) {
  return Object.fromEntries(
    Object.keys(after).map((name) => {
      const [b, a] = [before[name] ?? new Map<string, number>(), after[name]];
      const moved = Object.entries(counters)
        .map(([key, [metric, label]]) => [key, counterDelta(b, a, metric, label)] as const)
        .filter(([, v]) => Object.keys(v).length > 0);
      const events = Object.values(counterDelta(b, a, 'lorawan_events_published_total', 'name')).reduce((x, y) => x + y, 0);
      return [
        name,
        {
          ...Object.fromEntries(moved),
          ...(events > 0 ? { events_published: events } : {}),
          rpc_server: rpcServerTimings(b, a),
          // prom-client's event loop delay histogram restarts at every scrape: this is over the measurement.
          eventloop_lag_p99_ms: round((gauge(a, 'nodejs_eventloop_lag_p99_seconds') ?? 0) * 1000),
          eventloop_lag_max_ms: round((gauge(a, 'nodejs_eventloop_lag_max_seconds') ?? 0) * 1000),
        },
      ];
    }),
  );
}

/**
 * Discovery, then the data connection, as a station does them: after a refusal of either (the GS
 * answers one while its lookups of gateways are throttled, as when many gateways connect at once)
 * it waits and starts over from discovery, up to 5 times.
 */
async function connectStation(station: BenchStation, tcUri: string, eui: string, what: string): Promise<void> {
  let failure = '';
  for (let attempt = 0; attempt < 5; attempt++) {
    if (attempt > 0) await sleep(1000);
    const info = await SimulatedBasicStation.discover(tcUri, eui);
    if (typeof info.uri !== 'string') {
      failure = `discovery answered ${JSON.stringify(info)}`;
      continue;
    }
    try {
      await station.connect(info.uri);
      return;
    } catch (err) {
      failure = `the data connection failed: ${(err as Error).message}`;
    }
  }
  throw new Error(`${what}: ${failure}`);
}
