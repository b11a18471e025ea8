import { randomBytes } from 'node:crypto';
import { PROBE_FORMATTERS } from '@lorawan/testing';
import { createApplications } from './applications';
import { log, round } from './load';
import { cpuMs, rssMb } from './procs';
import { Connection } from './register';

/**
 * `formatter_isolation` (issue 29): does one application's abusive payload formatters cost another
 * application anything? The victim application sends, open loop at a fixed rate, simulated uplinks
 * decoded by its own (ordinary) JavaScript formatter and Gets of its AS device; the abuser
 * application sends simulated uplinks at `abuseRate` per second whose formatters are the probe's
 * four scripts in turn (memory bomb, endless loop, 5000-deep result, endless recursion). Rounds
 * alternate without and with the abuse (same offered load, so other load on the machine hits both
 * alike: many short rounds, as its load comes and goes); the figures are the victim's latencies (p50…max, per request kind) without and with
 * abuse, their p99 ratio (target ≤ 1.2), the abuser's answers by status, and the AS process's RSS
 * (start, max over the phase) against its bound.
 */
export interface FormatterIsolationOptions {
  baseUrl: string;
  auth: Record<string, string>;
  /** The AS process (its RSS and CPU). */
  asPid: number;
  /** The AS's formatter settings, for the RSS bound (docs/integrations.md: FORMATTER_WORKERS × (FORMATTER_MEMORY_LIMIT_MB + 50 MB)). */
  formatterWorkers: number;
  formatterMemoryMb: number;
  /** The AS's FORMATTER_APP_RUNAWAYS_PER_MIN (0: the worker pool alone, no runaway budget). */
  runawaysPerMinute: number;
  /** Victim requests per second of each kind (simulate, get). */
  victimRate: number;
  /** Abusive simulated uplinks per second. */
  abuseRate: number;
  roundS: number;
  rounds: number;
  warmupS: number;
}

const VICTIM_APP = 'bench-formatter-victim';
const ABUSER_APP = 'bench-formatter-abuser';
/** An ordinary decoder: a 7-byte reading into named fields. */
const VICTIM_DECODER = `function decodeUplink(input) {
  var b = input.bytes;
  return { data: { temperature: ((b[0] << 8) | b[1]) / 10, humidity: b[2] / 2, battery: ((b[3] << 8) | b[4]) / 1000, counter: (b[5] << 8) | b[6] } };
}`;
const PAYLOAD = Buffer.from('00f55a0e740017', 'hex').toString('base64');
/** What one formatter worker may hold besides its QuickJS heap: its V8 heap (32 + 8 MB limits) and the thread (~10 MB). */
const WORKER_OVERHEAD_MB = 50;

const hex = (bytes: number) => randomBytes(bytes).toString('hex').toUpperCase();

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

function latencyFigures(ms: number[]) {
  const sorted = [...ms].sort((a, b) => a - b);
  return {
    requests: sorted.length,
    p50_ms: round(percentile(sorted, 50)),
    p90_ms: round(percentile(sorted, 90)),
    p99_ms: round(percentile(sorted, 99)),
    max_ms: round(sorted[sorted.length - 1] ?? 0),
  };
}

/** Keep-alive connections, one request at a time each; a request takes an idle one or opens another. */
class ConnectionPool {
  private readonly idle: Connection[] = [];
  private readonly all: Connection[] = [];

  constructor(
    private readonly baseUrl: string,
    private readonly auth: Record<string, string>,
  ) {}

  async request(method: string, path: string, body?: unknown): Promise<{ status: number; ms: number; body: string }> {
    let conn = this.idle.pop();
    if (!conn) {
      conn = new Connection(this.baseUrl, this.auth);
      this.all.push(conn);
    }
    const t = performance.now();
    try {
      const res = await conn.request(method, path, body);
      return { status: res.status, ms: performance.now() - t, body: res.body };
    } finally {
      this.idle.push(conn);
    }
  }

  close(): void {
    for (const c of this.all) c.close();
  }
}

/** An ABP device in the IS and the AS (session with an AppSKey) with a JavaScript up formatter. */
async function abpDevice(pool: ConnectionPool, app: string, dev: string, script: string): Promise<void> {
  const ids = { device_id: dev, dev_eui: hex(8), join_eui: hex(8) };
  const steps: Array<[string, string, unknown]> = [
    ['POST', `/api/v3/applications/${app}/devices`, { end_device: { ids: { ...ids, application_ids: { application_id: app } } } }],
    [
      'PUT',
      `/api/v3/as/applications/${app}/devices/${dev}`,
      {
        end_device: {
          ids,
          session: { dev_addr: hex(4).replace(/^./, '0'), keys: { session_key_id: 'AQID', app_s_key: { key: hex(16) } } },
          formatters: { up_formatter: 'FORMATTER_JAVASCRIPT', up_formatter_parameter: script },
        },
        field_mask: { paths: ['session.dev_addr', 'session.keys.session_key_id', 'session.keys.app_s_key.key', 'formatters'] },
      },
    ],
  ];
  for (const [method, path, body] of steps) {
    const res = await pool.request(method, path, body);
    if (res.status !== 200) throw new Error(`${method} ${path}: HTTP ${res.status} ${res.body.slice(0, 1000)}`);
  }
}

/** Calls `send` every `1000 / rate` ms for `seconds` (open loop: it does not wait for answers), then waits for every answer. */
async function openLoop(rate: number, seconds: number, send: (n: number) => Promise<void>): Promise<void> {
  const pending: Array<Promise<void>> = [];
  const start = performance.now();
  for (let n = 0; ; n++) {
    const due = start + (n * 1000) / rate;
    if (due >= start + seconds * 1000) break;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    pending.push(send(n));
  }
  await Promise.all(pending);
}

export async function formatterIsolationPhase(o: FormatterIsolationOptions) {
  const pool = new ConnectionPool(o.baseUrl, o.auth);
  const startRss = rssMb(o.asPid) ?? 0;
  let maxRss = startRss;
  const sampler = setInterval(() => (maxRss = Math.max(maxRss, rssMb(o.asPid) ?? 0)), 50);
  try {
    await createApplications(o.baseUrl, o.auth, [VICTIM_APP, ABUSER_APP]);
    await abpDevice(pool, VICTIM_APP, 'victim-dev', VICTIM_DECODER);
    for (const [i, f] of PROBE_FORMATTERS.entries()) await abpDevice(pool, ABUSER_APP, `abuser-dev-${i}`, f.script);

    type Samples = { simulate: number[]; get: number[]; failures: string[]; cpuMs: number; s: number; roundP99: Array<{ simulate: number; get: number }> };
    const victim: Record<'quiet' | 'abused', Samples> = {
      quiet: { simulate: [], get: [], failures: [], cpuMs: 0, s: 0, roundP99: [] },
      abused: { simulate: [], get: [], failures: [], cpuMs: 0, s: 0, roundP99: [] },
    };
    const abuserStatuses: Record<string, number> = {};
    const victimLoad = (into: Samples | undefined, seconds: number) =>
      openLoop(o.victimRate, seconds, async (n) => {
        const [sim, get] = await Promise.all([
          pool.request('POST', `/api/v3/as/applications/${VICTIM_APP}/devices/victim-dev/up/simulate`, {
            uplink_message: { f_port: 1, f_cnt: n, frm_payload: PAYLOAD },
          }),
          pool.request('GET', `/api/v3/as/applications/${VICTIM_APP}/devices/victim-dev?field_mask=formatters,session.dev_addr`),
        ]);
        if (!into) return;
        into.simulate.push(sim.ms);
        into.get.push(get.ms);
        for (const [kind, res] of [
          ['simulate', sim],
          ['get', get],
        ] as const)
          if (res.status !== 200) into.failures.push(`${kind}: HTTP ${res.status} ${res.body.slice(0, 300)}`);
      });
    const abuse = (seconds: number) =>
      openLoop(o.abuseRate, seconds, async (n) => {
        const res = await pool.request('POST', `/api/v3/as/applications/${ABUSER_APP}/devices/abuser-dev-${n % PROBE_FORMATTERS.length}/up/simulate`, {
          uplink_message: { f_port: 1, f_cnt: n, frm_payload: PAYLOAD },
        });
        abuserStatuses[res.status] = (abuserStatuses[res.status] ?? 0) + 1;
      });

    log(`formatter_isolation: warm-up ${o.warmupS}s (victim ${o.victimRate}/s of each kind)`);
    await victimLoad(undefined, o.warmupS);
    for (let round_ = 1; round_ <= o.rounds; round_++) {
      for (const kind of ['quiet', 'abused'] as const) {
        const cpuBefore = cpuMs(o.asPid) ?? 0;
        const t = performance.now();
        const samples: Samples = { simulate: [], get: [], failures: [], cpuMs: 0, s: 0, roundP99: [] };
        await Promise.all([victimLoad(samples, o.roundS), kind === 'abused' ? abuse(o.roundS) : Promise.resolve()]);
        const into = victim[kind];
        into.cpuMs += (cpuMs(o.asPid) ?? 0) - cpuBefore;
        into.s += (performance.now() - t) / 1000;
        into.simulate.push(...samples.simulate);
        into.get.push(...samples.get);
        into.failures.push(...samples.failures);
        into.roundP99.push({ simulate: latencyFigures(samples.simulate).p99_ms, get: latencyFigures(samples.get).p99_ms });
        log(
          `formatter_isolation round ${round_}/${o.rounds} ${kind}: victim p99 simulate ${into.roundP99.at(-1)?.simulate} ms, get ${into.roundP99.at(-1)?.get} ms`,
        );
      }
    }
    const figures = (kind: 'quiet' | 'abused') => ({
      simulate: latencyFigures(victim[kind].simulate),
      get: latencyFigures(victim[kind].get),
      failures: victim[kind].failures.length,
      first_failures: victim[kind].failures.slice(0, 5),
      as_cpu_cores: round(victim[kind].cpuMs / 1000 / Math.max(victim[kind].s, 1e-3)),
      round_p99_ms: victim[kind].roundP99,
    });
    const baseline = figures('quiet');
    const abused = figures('abused');
    const ratio = {
      simulate_p99: round(abused.simulate.p99_ms / Math.max(baseline.simulate.p99_ms, 1e-3), 3),
      get_p99: round(abused.get.p99_ms / Math.max(baseline.get.p99_ms, 1e-3), 3),
    };
    const rssBound = round(startRss + o.formatterWorkers * (o.formatterMemoryMb + WORKER_OVERHEAD_MB));
    return {
      victim_rate_per_s: o.victimRate,
      abuse_rate_per_s: o.abuseRate,
      abusive_scripts: PROBE_FORMATTERS.map((f) => f.name),
      runaways_per_min: o.runawaysPerMinute,
      rounds: o.rounds,
      round_s: o.roundS,
      baseline,
      abused,
      p99_ratio: ratio,
      meets_target: ratio.simulate_p99 <= 1.2 && ratio.get_p99 <= 1.2 && baseline.failures === 0 && abused.failures === 0,
      abuser_statuses: abuserStatuses,
      as_rss_mb: { start: startRss, max: maxRss, bound: rssBound, within_bound: maxRss <= rssBound },
    };
  } finally {
    clearInterval(sampler);
    pool.close();
  }
}
