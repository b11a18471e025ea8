import { randomInt } from 'node:crypto';
import loraPacket from 'lora-packet';
import WebSocket from 'ws';

/**
 * A LoRa Basics Station for tests, written from the specification (doc.sm.tc/station `tcproto`,
 * station's `s2e.c`, `lora.c`, `timesync.c`), independently of the GS's parser: discovery on
 * `/router-info`, then the data connection: `version` → `router_config` (kept, checked), received
 * frames as `jreq` / `updf` / `propdf` (the fields split by lora-packet as station's lora.c splits
 * them), `dnmsg` kept and answered with `dntxed`, `timesync`, and pings answered until told to stop.
 * Its `xtime` clock is a station's: radio unit in bits 62–56, a random session in bits 55–48,
 * microseconds since the session started below. It models a station with a PPS: once a `timesync`
 * is answered it knows the GPS time of its clock (timesync.c, which asks the LNS only once it has a
 * PPS: here the server's `gpstime` is taken for the midpoint of the request's round trip) and
 * stamps received frames with it (`upinfo.gpstime`), as a GPS-synchronised station does; without
 * one, class B `dnmsg`s are dropped as station drops them. A slow
 * link can be simulated (`latencyMs`): every message to the server then leaves that much later.
 */

export interface StationConnectOptions {
  /** The gateway API key; sent as `Authorization: Bearer <token>` only over wss://, as station sends its tc.key. */
  token?: string;
  /** PEM certificates to check a wss:// server with (station's tc.trust). */
  ca?: string | Buffer;
}

/** The router_config fields station needs, as received (the rest is kept in `raw`). */
export interface StationRouterConfig {
  region: string;
  hwspec: string;
  freq_range: [number, number];
  DRs: Array<[number, number, number]>;
  sx1301_conf: Array<Record<string, unknown>>;
  NetID: number[] | null;
  JoinEui: Array<[bigint, bigint]> | null;
  nocca?: boolean;
  nodc?: boolean;
  nodwell?: boolean;
  MuxTime?: number;
  raw: Record<string, unknown>;
}

/** A `dnmsg` as received (`xtime`/`gpstime` exact as bigint), with the time it arrived. */
export interface StationDownlink {
  msgtype: 'dnmsg';
  DevEui: string;
  dC: number;
  diid: number;
  pdu: string;
  priority?: number;
  rctx?: number;
  MuxTime?: number;
  RxDelay?: number;
  RX1DR?: number;
  RX1Freq?: number;
  RX2DR?: number;
  RX2Freq?: number;
  DR?: number;
  Freq?: number;
  xtime?: bigint;
  gpstime?: bigint;
  receivedAt: number;
}

export interface StationRadio {
  /** DR index of the region. */
  DR: number;
  /** Hz. */
  Freq: number;
  rssi?: number;
  snr?: number;
  /** The receiving radio unit (default 0). */
  rctx?: number;
  /** GPS µs of reception (given: the station has GPS from now on); default: its GPS time once known, else 0 (no GPS). */
  gpstime?: bigint;
  /** Default: now on the station's clock. */
  xtime?: bigint;
}

export interface StationVersion {
  station: string;
  firmware: string | null;
  package: string | null;
  model: string;
  protocol: number;
  features: string;
}

/** A bare integer of 16 digits or more (an xtime, a gpstime, a JoinEUI bound) where a JSON value starts. */
const LONG_INTEGER = /([:[,]\s*)(-?\d{16,})(?=\s*[,\]}])/g;

/**
 * A server message with its long integers as bigint (station's uj_int reads them as int64), shorter
 * ones as numbers. The LNS's strings (hex, names, URIs) never hold such a run after `:`, `[` or `,`.
 */
function parseServerMessage(text: string): Record<string, unknown> {
  const value = JSON.parse(text.replace(LONG_INTEGER, '$1{"$int64":"$2"}'), (_key, v: unknown) =>
    typeof v === 'object' && v !== null && '$int64' in v ? BigInt((v as { $int64: string }).$int64) : v,
  ) as unknown;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`not a JSON object: ${text}`);
  return value as Record<string, unknown>;
}

/** A message to the server, bigints as plain integers (as station's encoder writes `I` fields). */
function encode(message: Record<string, unknown>): string {
  return JSON.stringify(message, (_key, v: unknown) => (typeof v === 'bigint' ? `\u0000${v}` : v)).replace(/"\\u0000(-?\d+)"/g, '$1');
}

const dashed = (bytes: Buffer) => [...bytes].map((b) => b.toString(16).padStart(2, '0').toUpperCase()).join('-');

/**
 * A frame's station fields (lora.c s2e_parse_lora_frame): join-requests as `jreq` with the EUIs as
 * dashed bytes, data uplinks as `updf` with DevAddr and MIC as signed 32-bit integers, proprietary
 * frames as `propdf` with the whole frame in `FRMPayload`.
 */
export function stationFrameFields(phy: Buffer): Record<string, unknown> {
  const mtype = phy[0] >> 5;
  if (mtype === 7) return { msgtype: 'propdf', FRMPayload: phy.toString('hex').toUpperCase() };
  const p = loraPacket.fromWire(phy);
  const mic = (p.MIC as Buffer).readInt32LE(0);
  const mhdr = (p.MHDR as Buffer)[0];
  if (p.getMType() === 'Join Request') {
    return {
      msgtype: 'jreq',
      MHdr: mhdr,
      JoinEui: dashed(p.AppEUI as Buffer),
      DevEui: dashed(p.DevEUI as Buffer),
      DevNonce: (p.DevNonce as Buffer).readUInt16BE(0),
      MIC: mic,
    };
  }
  if (p.getDir() !== 'up') throw new Error(`station does not forward ${p.getMType()} frames`);
  return {
    msgtype: 'updf',
    MHdr: mhdr,
    DevAddr: (p.DevAddr as Buffer).readInt32BE(0),
    FCtrl: (p.FCtrl as Buffer)[0],
    FCnt: (p.FCnt as Buffer).readUInt16BE(0),
    FOpts: (p.FOpts as Buffer).toString('hex').toUpperCase(),
    FPort: p.FPort && p.FPort.length > 0 ? (p.FPort as Buffer)[0] : -1,
    FRMPayload: (p.FRMPayload ?? Buffer.alloc(0)).toString('hex').toUpperCase(),
    MIC: mic,
  };
}

/** The checks station makes of a router_config before it configures its radio (s2e.c, sx130xconf.c). */
export function checkRouterConfig(raw: Record<string, unknown>): StationRouterConfig {
  const fail = (what: string): never => {
    throw new Error(`router_config: ${what}`);
  };
  const int = (v: unknown) => typeof v === 'number' && Number.isInteger(v);
  if (typeof raw.region !== 'string' || raw.region === '') fail('no region');
  const hwspec = raw.hwspec;
  const boards = typeof hwspec === 'string' ? /^sx1301\/(\d+)$/.exec(hwspec) : null;
  if (!boards) fail(`hwspec ${JSON.stringify(hwspec)} is not sx1301/<n>`);
  const conf = raw.sx1301_conf ?? raw.SX1301_conf;
  if (!Array.isArray(conf) || conf.length !== Number(boards?.[1]) || !conf.every((c) => typeof c === 'object' && c !== null && 'radio_0' in c))
    fail('sx1301_conf must hold one concentrator (with radio_0) per hwspec board');
  const range = raw.freq_range;
  if (!Array.isArray(range) || range.length !== 2 || !range.every(int) || range[0] >= range[1]) fail('freq_range must be [min, max] Hz');
  const drs = raw.DRs;
  if (!Array.isArray(drs) || drs.length === 0 || drs.length > 16) fail('DRs must list up to 16 data rates');
  for (const dr of drs as unknown[])
    if (!Array.isArray(dr) || dr.length !== 3 || !dr.every(int) || dr[0] < -1 || dr[0] > 12 || ![0, 1].includes(dr[2]))
      fail(`DR ${JSON.stringify(dr)} is not [SF, BW, dnonly]`);
  const netIds = raw.NetID ?? null;
  if (netIds !== null && (!Array.isArray(netIds) || !netIds.every(int))) fail('NetID must be null or integers');
  const joinEuis = raw.JoinEui ?? raw.JoinEUI ?? null;
  const isInt64 = (v: unknown) => typeof v === 'bigint' || int(v);
  if (joinEuis !== null && (!Array.isArray(joinEuis) || !joinEuis.every((r) => Array.isArray(r) && r.length === 2 && r.every(isInt64))))
    fail('JoinEui must be null or [low, high] ranges');
  for (const flag of ['nocca', 'nodc', 'nodwell']) if (raw[flag] !== undefined && typeof raw[flag] !== 'boolean') fail(`${flag} must be a boolean`);
  if (raw.MuxTime !== undefined && typeof raw.MuxTime !== 'number') fail('MuxTime must be a number');
  return {
    region: raw.region as string,
    hwspec: hwspec as string,
    freq_range: range as [number, number],
    DRs: drs as Array<[number, number, number]>,
    sx1301_conf: conf as Array<Record<string, unknown>>,
    NetID: netIds as number[] | null,
    JoinEui: joinEuis === null ? null : (joinEuis as unknown[][]).map(([low, high]) => [BigInt(low as bigint), BigInt(high as bigint)] as [bigint, bigint]),
    nocca: raw.nocca as boolean | undefined,
    nodc: raw.nodc as boolean | undefined,
    nodwell: raw.nodwell as boolean | undefined,
    MuxTime: raw.MuxTime as number | undefined,
    raw,
  };
}

/**
 * What station knows when a `dnmsg` arrives: its router_config, the sessions of its radio units
 * (the top 16 bits of their xtimes: unit and session; each unit's concentrator has its own) and
 * whether it knows GPS time.
 */
export interface DnmsgContext {
  routerConfig?: StationRouterConfig;
  sessions: ReadonlySet<bigint>;
  gpsSynced: boolean;
}

/**
 * Why station would drop this `dnmsg` without transmitting it (s2e.c s2e_onMsg, handle_dnmsg,
 * check_dr, check_dnfreq; ts_xtime2ustime, ts_gpstime2xtime), or undefined when it would schedule
 * it: none before a router_config; `DevEui`, `dC` (0–2), `diid` and `pdu` required; `RX1DR` with
 * `RX1Freq` (or `DR` with `Freq`) and `RX2DR` with `RX2Freq`, each pair whole or absent, and one of
 * them present; each DR one the router_config defines, each frequency in its `freq_range`; class B
 * (`dC` 1) at a `gpstime`, which needs the station's GPS time; otherwise RX1 at an `xtime` of the
 * current session of its radio unit (a class C downlink with RX2 alone goes out when it can).
 */
export function dnmsgProblem(m: Record<string, unknown>, context: DnmsgContext): string | undefined {
  const config = context.routerConfig;
  if (!config) return 'dnmsg before router_config';
  const int = (v: unknown): v is number | bigint => (typeof v === 'number' && Number.isInteger(v)) || typeof v === 'bigint';
  if (typeof m.DevEui !== 'string' || !/^([0-9A-Fa-f]{2}-){7}[0-9A-Fa-f]{2}$|^[0-9A-Fa-f]{16}$/.test(m.DevEui)) return 'DevEui missing or not an EUI';
  if (!int(m.dC) || Number(m.dC) < 0 || Number(m.dC) > 2) return 'dC must be 0, 1 or 2';
  if (!int(m.diid)) return 'diid missing';
  if (typeof m.pdu !== 'string' || !/^([0-9A-Fa-f]{2})+$/.test(m.pdu)) return 'pdu missing or not hex';
  const rx1Dr = m.DR ?? m.RX1DR;
  const rx1Freq = m.Freq ?? m.RX1Freq;
  if ((rx1Dr === undefined) !== (rx1Freq === undefined)) return 'RX1 data rate and frequency must come together';
  if ((m.RX2DR === undefined) !== (m.RX2Freq === undefined)) return 'RX2 data rate and frequency must come together';
  for (const dr of [rx1Dr, m.RX2DR].filter((v) => v !== undefined))
    if (!int(dr) || Number(dr) < 0 || Number(dr) > 15 || config.DRs[Number(dr)]?.[0] === -1) return `illegal data rate ${String(dr)} for ${config.region}`;
  for (const freq of [rx1Freq, m.RX2Freq].filter((v) => v !== undefined))
    if (!int(freq) || Number(freq) < config.freq_range[0] || Number(freq) > config.freq_range[1])
      return `illegal frequency ${String(freq)}, not in ${config.freq_range.join('..')}`;
  if (m.dC === 1) {
    if (rx1Dr === undefined) return 'a class B dnmsg needs DR and Freq';
    if (!int(m.gpstime) || BigInt(m.gpstime) <= 0n) return 'a class B dnmsg needs a gpstime';
    if (!context.gpsSynced) return 'class B at a gpstime, and the station knows no GPS time';
    return undefined;
  }
  if (rx1Dr === undefined) return m.RX2DR === undefined ? 'neither RX1 nor RX2' : m.dC === 2 ? undefined : 'a class A dnmsg needs an xtime and RX1';
  if (!int(m.xtime) || BigInt(m.xtime) <= 0n) return 'RX1 needs an xtime';
  if (!context.sessions.has(BigInt(m.xtime) >> 48n)) return `xtime ${String(m.xtime)} is not of a current session of this station's radio units`;
  return undefined;
}

export class SimulatedBasicStation {
  /** Top 16 bits of every xtime of this run: radio unit 0, a random non-zero session. */
  readonly session = BigInt(randomInt(1, 256)) << 48n;
  /** The sessions (an xtime's top 16 bits) of the radio units this station has stamped frames with. */
  private readonly sessions = new Set<bigint>([this.session >> 48n]);
  private readonly started = process.hrtime.bigint();
  private ws?: WebSocket;
  private answeringPings = true;
  private waiters: Array<{ accept: (m: Record<string, unknown>) => boolean; resolve: (m: Record<string, unknown>) => void }> = [];
  readonly downlinks: StationDownlink[] = [];
  /** dnmsgs station would drop (`dnmsgProblem`), with the reason. */
  readonly refusedDownlinks: Array<{ dnmsg: Record<string, unknown>; reason: string }> = [];
  readonly received: Array<Record<string, unknown>> = [];
  routerConfig?: StationRouterConfig;
  /** The latest MuxTime the server sent and when (ms), for RefTime. */
  private mux?: { muxTime: number; at: number };
  /** Answer each dnmsg with dntxed right away. */
  autoAck = false;
  /** GPS µs minus this station's clock (µs since it started), learnt from the latest `timesync`. */
  private gpsOffsetUs?: bigint;
  /** Each message to the server leaves this many ms after it is sent (a slow link; 0: at once). */
  latencyMs = 0;

  constructor(
    /** 16 hex digits. */
    readonly eui: string,
    readonly version: StationVersion = { station: '2.0.6(test/std)', firmware: null, package: null, model: 'test', protocol: 2, features: 'gps' },
  ) {}

  /** Microseconds since this station's concentrator session started, in the session: station's xtime of now. */
  xtime(): bigint {
    return this.session | ((process.hrtime.bigint() - this.started) / 1000n);
  }

  /** GPS µs now by this station's clock, once a `timesync` told it the GPS time; undefined before. */
  gpstime(): bigint | undefined {
    return this.gpsOffsetUs === undefined ? undefined : this.clockUs() + this.gpsOffsetUs;
  }

  /** µs since this station started. */
  private clockUs(): bigint {
    return (process.hrtime.bigint() - this.started) / 1000n;
  }

  /** `GET /router-info` over a WebSocket: the server's answer (`{router, muxs, uri}` or `{router, error}`). */
  static async discover(tcUri: string, router: string | number | bigint, options: StationConnectOptions = {}): Promise<Record<string, unknown>> {
    const ws = await open(`${tcUri.replace(/\/$/, '')}/router-info`, options);
    try {
      const answer = new Promise<Record<string, unknown>>((resolve, reject) => {
        ws.once('message', (data) => {
          try {
            resolve(parseServerMessage(String(data)));
          } catch (err) {
            reject(err as Error);
          }
        });
        ws.once('close', () => reject(new Error('router-info closed without an answer')));
      });
      ws.send(encode({ router }));
      return await answer;
    } finally {
      ws.close();
    }
  }

  /** Opens the data connection (`uri` of the discovery answer), sends `version` and waits for `router_config`, which it checks. */
  async connect(uri: string, options: StationConnectOptions = {}): Promise<StationRouterConfig> {
    const ws = await open(uri, { ...options, autoPong: false });
    this.ws = ws;
    ws.on('ping', (data) => {
      if (this.answeringPings) ws.pong(data);
    });
    ws.on('message', (data) => this.onMessage(String(data)));
    const config = this.next((m) => m.msgtype === 'router_config');
    this.send({ msgtype: 'version', ...this.version });
    this.routerConfig = checkRouterConfig(await config);
    return this.routerConfig;
  }

  /** Stops (or resumes) answering the server's pings, as a gateway whose link died would. */
  answerPings(answer: boolean): void {
    this.answeringPings = answer;
  }

  /** Resolves once the connection closes, with its close code. */
  closed(): Promise<number> {
    const ws = this.ws;
    if (!ws || ws.readyState === WebSocket.CLOSED) return Promise.resolve(1006);
    return new Promise((resolve) => ws.once('close', (code) => resolve(code)));
  }

  close(): void {
    this.ws?.close();
  }

  /** Sends a received frame (`jreq`, `updf` or `propdf` by its MType) with its radio metadata; returns the message sent. */
  sendFrame(phy: Buffer, radio: StationRadio): Record<string, unknown> {
    // A GPS time of reception given: the station has GPS (a PPS) and knows the GPS time of its clock from now on.
    if (radio.gpstime !== undefined && radio.gpstime > 0n) this.gpsOffsetUs = radio.gpstime - this.clockUs();
    // A given xtime: a radio unit (bits 62–56) in a session (55–48) this station runs.
    if (radio.xtime !== undefined) this.sessions.add(radio.xtime >> 48n);
    const message: Record<string, unknown> = {
      ...stationFrameFields(phy),
      RefTime: this.refTime(),
      DR: radio.DR,
      Freq: radio.Freq,
      upinfo: {
        rctx: radio.rctx ?? 0,
        xtime: radio.xtime ?? this.xtime(),
        gpstime: radio.gpstime ?? this.gpstime() ?? 0n,
        fts: -1,
        rssi: radio.rssi ?? -60,
        snr: radio.snr ?? 9.5,
        rxtime: Date.now() / 1000,
      },
    };
    this.send(message);
    return message;
  }

  /** The next dnmsg (one already received first); rejects with the reason when station would drop it. */
  async nextDownlink(timeoutMs = 5000): Promise<StationDownlink> {
    const next = () => {
      const refused = this.refusedDownlinks.shift();
      if (refused)
        throw new Error(
          `station would drop this dnmsg (${refused.reason}): ${JSON.stringify(refused.dnmsg, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))}`,
        );
      return this.downlinks.shift();
    };
    const kept = next();
    if (kept) return kept;
    await this.next((m) => m.msgtype === 'dnmsg', timeoutMs, true);
    return next() as StationDownlink;
  }

  /** Answers a dnmsg with `dntxed` as station does after transmitting it (s2e.c send_dntxed). */
  acknowledge(dn: StationDownlink): void {
    this.send({
      msgtype: 'dntxed',
      seqno: dn.diid,
      diid: dn.diid,
      DR: dn.RX1DR ?? dn.DR ?? dn.RX2DR ?? 0,
      Freq: dn.RX1Freq ?? dn.Freq ?? dn.RX2Freq ?? 0,
      DevEui: dn.DevEui,
      rctx: dn.rctx ?? 0,
      xtime: this.xtime(),
      txtime: Number(process.hrtime.bigint() - this.started) / 1e9,
      // When it went out by GPS time: a class B downlink's slot, else now (0: no GPS time known).
      gpstime: dn.gpstime ?? this.gpstime() ?? 0n,
    });
  }

  /**
   * A `timesync` request; resolves with the server's answer (`txtime` echoed, `gpstime` µs), from
   * which the station takes the GPS time of its clock: the server's `gpstime` is taken to be that of
   * the midpoint between the request and the answer.
   */
  async timesync(timeoutMs = 5000): Promise<{ txtime: number; gpstime: bigint; MuxTime?: number }> {
    const txtime = Number(this.clockUs());
    const answer = this.next((m) => m.msgtype === 'timesync' && Number(m.txtime) === txtime, timeoutMs, true);
    this.send({ msgtype: 'timesync', txtime });
    const m = await answer;
    if (typeof m.gpstime !== 'bigint' && typeof m.gpstime !== 'number') throw new Error('timesync answer without gpstime');
    const gpstime = BigInt(m.gpstime);
    if (gpstime <= 0n) throw new Error(`timesync answer with gpstime ${gpstime}`);
    this.gpsOffsetUs = gpstime - (BigInt(txtime) + this.clockUs()) / 2n;
    return { txtime, gpstime, MuxTime: m.MuxTime as number | undefined };
  }

  /** Sends any text as is (for malformed-input tests). */
  sendRaw(text: string): void {
    this.ws?.send(text);
  }

  /** Waits for a server message the predicate accepts: one received already (unless `onlyNew`), or the next. */
  next(accept: (m: Record<string, unknown>) => boolean, timeoutMs = 5000, onlyNew = false): Promise<Record<string, unknown>> {
    const seen = onlyNew ? undefined : this.received.find(accept);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`no such message from the server within ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter = {
        accept,
        resolve: (m: Record<string, unknown>) => {
          clearTimeout(timer);
          resolve(m);
        },
      };
      this.waiters.push(waiter);
    });
  }

  private send(message: Record<string, unknown>): void {
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN) throw new Error('the station is not connected');
    const text = encode(message);
    if (this.latencyMs <= 0) return ws.send(text);
    // Timers of one duration fire in the order they were set: the messages keep their order.
    setTimeout(() => {
      if (ws.readyState === WebSocket.OPEN) ws.send(text);
    }, this.latencyMs);
  }

  /** Station's RefTime: the last MuxTime plus the time since it came (0 before any). */
  private refTime(): number {
    return this.mux ? this.mux.muxTime + (Date.now() - this.mux.at) / 1000 : 0;
  }

  private onMessage(text: string): void {
    let m: Record<string, unknown>;
    try {
      m = parseServerMessage(text);
    } catch {
      return;
    }
    if (typeof m.MuxTime === 'number') this.mux = { muxTime: m.MuxTime, at: Date.now() };
    if (m.msgtype === 'dnmsg') {
      const int64 = (v: unknown) => (typeof v === 'number' ? BigInt(v) : v);
      const dn = { ...m, xtime: int64(m.xtime), gpstime: int64(m.gpstime), receivedAt: Date.now() } as unknown as StationDownlink;
      if (dn.xtime === undefined) delete dn.xtime;
      if (dn.gpstime === undefined) delete dn.gpstime;
      const reason = dnmsgProblem(m, { routerConfig: this.routerConfig, sessions: this.sessions, gpsSynced: this.gpsOffsetUs !== undefined });
      if (reason) this.refusedDownlinks.push({ dnmsg: m, reason });
      else {
        this.downlinks.push(dn);
        if (this.autoAck) this.acknowledge(dn);
      }
    }
    this.received.push(m);
    const waiter = this.waiters.find((w) => w.accept(m));
    if (waiter) {
      this.waiters = this.waiters.filter((w) => w !== waiter);
      waiter.resolve(m);
    }
  }
}

/** Opens a WebSocket as station does: the token header only over wss://, the server checked against `ca`. */
function open(url: string, options: StationConnectOptions & { autoPong?: boolean }): Promise<WebSocket> {
  const secure = url.startsWith('wss://');
  const headers: Record<string, string> = secure && options.token ? { Authorization: `Bearer ${options.token}` } : {};
  const ws = new WebSocket(url, { headers, ca: options.ca, autoPong: options.autoPong ?? true, handshakeTimeout: 5000 });
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`the server answered ${res.statusCode} to ${url}`)));
  });
}
