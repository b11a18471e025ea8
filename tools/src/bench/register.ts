import net from 'node:net';
import { randomBytes } from 'node:crypto';
import { log, round } from './load';
import { cpuMs } from './procs';

/**
 * Device registration as a TTS client does it (the seed's order, sequential per device): IS
 * Create, JS Set (OTAA only), NS Set, AS Set, every response 200. `clients` registrations are in
 * flight at once, each worker on its own keep-alive connection.
 */

export type Activation = 'otaa' | 'abp';
export const STEPS = ['is_create', 'js_set', 'ns_set', 'as_set'] as const;
export type Step = (typeof STEPS)[number];

interface HttpResult {
  status: number;
  body: string;
}

/**
 * One keep-alive HTTP/1.1 connection with one request in flight, written straight on a socket:
 * one write per request and a minimal response parser (status, Content-Length), so the load
 * generator costs far less CPU per request than node:http or fetch on this 2-core machine.
 */
export class Connection {
  private wire?: Wire;
  private readonly host: string;
  private readonly port: number;
  private readonly head: string;

  constructor(
    baseUrl: string,
    headers: Record<string, string>,
    private readonly timeoutMs = 30000,
  ) {
    const url = new URL(baseUrl);
    this.host = url.hostname;
    this.port = Number(url.port);
    this.head = Object.entries({ host: url.host, ...headers })
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('');
  }

  /** The open socket, or a new one (after the server closed the previous one). */
  private open(): Promise<Wire> {
    if (this.wire && !this.wire.closed) return Promise.resolve(this.wire);
    return new Promise<Wire>((resolve, reject) => {
      const socket = net.connect({ host: this.host, port: this.port, noDelay: true });
      const wire: Wire = { socket, buffer: Buffer.alloc(0), closed: false };
      socket.once('connect', () => {
        this.wire = wire;
        resolve(wire);
      });
      socket.on('data', (chunk: Buffer) => onData(wire, chunk));
      const gone = (err?: Error) => {
        if (wire.closed) return;
        wire.closed = true;
        const e = err ?? new Error('connection closed by the server');
        settle(wire, undefined, e);
        reject(e);
      };
      socket.on('error', gone);
      socket.on('close', () => gone());
    });
  }

  async request(method: string, path: string, body?: unknown): Promise<HttpResult> {
    const wire = await this.open();
    const payload = body === undefined ? '' : JSON.stringify(body);
    const type = body === undefined ? '' : 'content-type: application/json\r\n';
    return new Promise<HttpResult>((resolve, reject) => {
      const timer = setTimeout(() => wire.socket.destroy(new Error(`timeout after ${this.timeoutMs} ms`)), this.timeoutMs);
      wire.pending = { resolve, reject, timer };
      wire.socket.write(`${method} ${path} HTTP/1.1\r\n${this.head}${type}content-length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}`);
    });
  }

  close(): void {
    this.wire?.socket.destroy();
    this.wire = undefined;
  }
}

interface Wire {
  socket: net.Socket;
  buffer: Buffer;
  closed: boolean;
  pending?: { resolve: (r: HttpResult) => void; reject: (e: Error) => void; timer: NodeJS.Timeout };
}

function settle(wire: Wire, result: HttpResult | undefined, err?: Error): void {
  const p = wire.pending;
  if (!p) return;
  wire.pending = undefined;
  clearTimeout(p.timer);
  if (result) p.resolve(result);
  else p.reject(err ?? new Error('no response'));
}

/** Accumulates a response: status line, headers up to the blank line, then Content-Length bytes. */
function onData(wire: Wire, chunk: Buffer): void {
  wire.buffer = wire.buffer.length === 0 ? chunk : Buffer.concat([wire.buffer, chunk]);
  const end = wire.buffer.indexOf('\r\n\r\n');
  if (end < 0) return;
  const head = wire.buffer.toString('latin1', 0, end);
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  if (!length) {
    wire.socket.destroy(new Error(`response without Content-Length: ${head.slice(0, 200)}`));
    return;
  }
  const total = end + 4 + Number(length[1]);
  if (wire.buffer.length < total) return;
  const result = { status: Number(head.slice(9, 12)), body: wire.buffer.toString('utf8', end + 4, total) };
  wire.buffer = wire.buffer.subarray(total);
  if (/\r\nconnection:\s*close/i.test(head)) {
    wire.closed = true;
    wire.socket.end();
  }
  settle(wire, result);
}

/** The i-th device of a registration run: unique device ID, DevEUI and (ABP) DevAddr. */
export interface DeviceSpec {
  app: string;
  deviceId: string;
  devEui: string;
  joinEui: string;
  devAddr: string;
  activation: Activation;
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex').toUpperCase();

/** `prefix` (2 hex digits) keeps the EUIs of different runs apart; i < 2^24. */
export function deviceSpec(app: string, idPrefix: string, euiPrefix: string, i: number, activation: Activation): DeviceSpec {
  const n = i.toString(16).padStart(6, '0').toUpperCase();
  return {
    app,
    deviceId: `${idPrefix}-${String(i).padStart(6, '0')}`,
    devEui: `70B3D57E${euiPrefix}${n}`,
    joinEui: activation === 'otaa' ? '70B3D57ED0000000' : '0000000000000000',
    // Experimental NetID range (prefix 0x00–0x03), unique per device.
    devAddr: `0${activation === 'otaa' ? 2 : 1}${n}`,
    activation,
  };
}

interface Call {
  step: Step;
  method: string;
  path: string;
  body: unknown;
}

/** The requests of one registration, in order (the bodies of the issue: TTS JSON, field masks). */
export function registrationCalls(d: DeviceSpec): Call[] {
  const ids = { device_id: d.deviceId, application_ids: { application_id: d.app }, dev_eui: d.devEui, join_eui: d.joinEui };
  const dev = (c: string) => `/api/v3/${c}/applications/${d.app}/devices/${d.deviceId}`;
  const calls: Call[] = [
    {
      step: 'is_create',
      method: 'POST',
      path: `/api/v3/applications/${d.app}/devices`,
      body: {
        end_device: {
          ids,
          name: `Registered ${d.deviceId}`,
          join_server_address: 'localhost',
          network_server_address: 'localhost',
          application_server_address: 'localhost',
        },
      },
    },
  ];
  if (d.activation === 'otaa') {
    calls.push({
      step: 'js_set',
      method: 'PUT',
      path: dev('js'),
      body: { end_device: { ids, root_keys: { app_key: { key: hex(16) } } }, field_mask: { paths: ['root_keys.app_key.key'] } },
    });
  }
  const nsCommon = {
    frequency_plan_id: 'EU_863_870_TTN',
    lorawan_version: 'MAC_V1_0_3',
    lorawan_phy_version: 'PHY_V1_0_3_REV_A',
    mac_settings: { rx1_delay: 5 },
  };
  const nsPaths = ['frequency_plan_id', 'lorawan_version', 'lorawan_phy_version', 'supports_join', 'mac_settings.rx1_delay'];
  calls.push(
    d.activation === 'otaa'
      ? { step: 'ns_set', method: 'PUT', path: dev('ns'), body: { end_device: { ids, ...nsCommon, supports_join: true }, field_mask: { paths: nsPaths } } }
      : {
          step: 'ns_set',
          method: 'PUT',
          path: dev('ns'),
          body: {
            end_device: { ids, ...nsCommon, supports_join: false, session: { dev_addr: d.devAddr, keys: { f_nwk_s_int_key: { key: hex(16) } } } },
            field_mask: { paths: [...nsPaths, 'session.dev_addr', 'session.keys.f_nwk_s_int_key.key'] },
          },
        },
  );
  const formatters = { up_formatter: 'FORMATTER_CAYENNELPP' };
  calls.push(
    d.activation === 'otaa'
      ? { step: 'as_set', method: 'PUT', path: dev('as'), body: { end_device: { ids, formatters }, field_mask: { paths: ['formatters'] } } }
      : {
          step: 'as_set',
          method: 'PUT',
          path: dev('as'),
          body: {
            end_device: { ids, formatters, session: { dev_addr: d.devAddr, keys: { app_s_key: { key: hex(16) } } } },
            field_mask: { paths: ['formatters', 'session.dev_addr', 'session.keys.app_s_key.key'] },
          },
        },
  );
  return calls;
}

/** What one run of registrations saw: latencies per registration and per step, failures. */
export class RegistrationStats {
  total: number[] = [];
  steps: Record<Step, number[]> = { is_create: [], js_set: [], ns_set: [], as_set: [] };
  ok = 0;
  failures = 0;
  /** Failed registrations by the failing step and status (`ns_set 503`, `js_set error`). */
  failureKinds: Record<string, number> = {};
  firstFailures: string[] = [];
  wallS = 0;

  fail(step: Step, status: string, detail: string): void {
    this.failures++;
    const kind = `${step} ${status}`;
    this.failureKinds[kind] = (this.failureKinds[kind] ?? 0) + 1;
    if (this.firstFailures.length < 3) this.firstFailures.push(`${kind}: ${detail.slice(0, 2000)}`);
  }
}

/** One registration, sequential; stops at the first non-200 (counted as a failure). */
async function register(client: Connection, device: DeviceSpec, stats: RegistrationStats): Promise<void> {
  const start = performance.now();
  const times: Array<[Step, number]> = [];
  for (const call of registrationCalls(device)) {
    const t = performance.now();
    let res: HttpResult;
    try {
      res = await client.request(call.method, call.path, call.body);
    } catch (err) {
      stats.fail(call.step, 'error', `${device.deviceId}: ${(err as Error).message}`);
      return;
    }
    if (res.status !== 200) {
      stats.fail(call.step, String(res.status), `${device.deviceId}: ${res.body}`);
      return;
    }
    times.push([call.step, performance.now() - t]);
  }
  stats.total.push(performance.now() - start);
  for (const [step, ms] of times) stats.steps[step].push(ms);
  stats.ok++;
}

/** A pool of keep-alive connections, one per client (worker). */
export class Clients {
  readonly connections: Connection[];
  constructor(baseUrl: string, headers: Record<string, string>, count: number) {
    this.connections = Array.from({ length: count }, () => new Connection(baseUrl, headers));
  }
  close(): void {
    for (const c of this.connections) c.close();
  }
}

/** Registers devices `from` … `from + count - 1`, one worker per connection; wall time is from first start to last end. */
export async function registerDevices(clients: Clients, from: number, count: number, spec: (i: number) => DeviceSpec): Promise<RegistrationStats> {
  const stats = new RegistrationStats();
  let next = from;
  const end = from + count;
  const worker = async (connection: Connection) => {
    while (next < end) await register(connection, spec(next++), stats);
  };
  const start = performance.now();
  await Promise.all(clients.connections.map(worker));
  stats.wallS = (performance.now() - start) / 1000;
  return stats;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return round(sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]);
}

function latency(xs: number[]) {
  const sorted = [...xs].sort((a, b) => a - b);
  return { p50_ms: percentile(sorted, 50), p90_ms: percentile(sorted, 90), p99_ms: percentile(sorted, 99), max_ms: round(sorted[sorted.length - 1] ?? 0) };
}

/** The target: full OTAA registrations per second at 32 clients on the bench machine. */
export const TARGET_PER_S = 300;

export interface RegisterOptions {
  baseUrl: string;
  auth: Record<string, string>;
  app: string;
  clients: number;
  warmup: number;
  registrations: number;
  /** Processes whose CPU time is charged per registration (name → pid). */
  pids: Record<string, number>;
}

/**
 * The `register` phase: `warmup` OTAA registrations not counted, then `registrations` measured
 * ones, `clients` in flight. Throws when more than 0.1 % of the measured registrations fail.
 */
export async function registerPhase(o: RegisterOptions) {
  const clients = new Clients(o.baseUrl, o.auth, o.clients);
  try {
    const spec = (i: number) => deviceSpec(o.app, 'reg', 'F0', i, 'otaa');
    log(`register: warm-up ${o.warmup} registrations, ${o.clients} clients`);
    const warm = await registerDevices(clients, 0, o.warmup, spec);
    log(`register: warm-up ${round(warm.ok / warm.wallS)} registrations/s, ${warm.failures} failures`);
    log(`register: ${o.registrations} registrations (IS + JS + NS + AS), ${o.clients} clients`);
    const before = Object.fromEntries(Object.entries(o.pids).map(([n, pid]) => [n, cpuMs(pid)]));
    const s = await registerDevices(clients, o.warmup, o.registrations, spec);
    const cpu: Record<string, number> = {};
    for (const [n, pid] of Object.entries(o.pids)) {
      const b = before[n];
      const now = cpuMs(pid);
      if (b !== undefined && now !== undefined) cpu[n] = round((now - b) / Math.max(1, s.ok), 3);
    }
    const perS = round(s.ok / s.wallS);
    const figures = {
      registrations_per_s: perS,
      target_per_s: TARGET_PER_S,
      meets_300_per_s: perS >= TARGET_PER_S,
      clients: o.clients,
      registrations: o.registrations,
      warmup_registrations: o.warmup,
      ok: s.ok,
      failures: s.failures,
      warmup_failures: warm.failures,
      failure_kinds: s.failureKinds,
      warmup_failure_kinds: warm.failureKinds,
      first_failures: [...warm.firstFailures, ...s.firstFailures].slice(0, 3),
      wall_s: round(s.wallS),
      http_req_per_s: round((s.ok * 4) / s.wallS),
      ...latency(s.total),
      steps: Object.fromEntries(STEPS.map((step) => [step, latency(s.steps[step])])) as Record<Step, ReturnType<typeof latency>>,
      /** CPU ms each process used per measured registration (4 HTTP requests). */
      cpu_ms_per_registration: cpu,
    };
    log(`register: ${JSON.stringify(figures)}`);
    if (s.failures > o.registrations * 0.001) {
      throw new Error(
        `register: ${s.failures} of ${o.registrations} registrations failed (> 0.1 %): ${JSON.stringify(figures.failure_kinds)} ${figures.first_failures.join(' | ')}`,
      );
    }
    return figures;
  } finally {
    clients.close();
  }
}

/** ABP registrations (IS + NS + AS with sessions) for the `ns_get` phase; returns their device IDs. */
export async function registerAbpDevices(baseUrl: string, auth: Record<string, string>, app: string, clients: number, count: number) {
  const pool = new Clients(baseUrl, auth, clients);
  try {
    const spec = (i: number) => deviceSpec(app, 'abp', 'F1', i, 'abp');
    const s = await registerDevices(pool, 0, count, spec);
    if (s.failures > 0)
      throw new Error(`ABP registrations: ${s.failures} of ${count} failed: ${JSON.stringify(s.failureKinds)} ${s.firstFailures.join(' | ')}`);
    return { deviceIds: Array.from({ length: count }, (_, i) => spec(i).deviceId), registrationsPerS: round(s.ok / s.wallS), wallS: round(s.wallS) };
  } finally {
    pool.close();
  }
}
