import autocannon, { type AutocannonOptions, type AutocannonResult } from 'autocannon';
import { cpuMs } from './procs';

export interface LoadFigures {
  req_per_s: number;
  p50_ms: number;
  p90_ms: number;
  p99_ms: number;
  max_ms: number;
  requests: number;
  ok: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  duration_s: number;
}

export function log(message: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

export function round(n: number, digits = 2): number {
  const m = 10 ** digits;
  return Math.round(n * m) / m;
}

/** One autocannon run; `onLatency` sees every response time (ms). */
export async function run(options: AutocannonOptions, onLatency?: (ms: number) => void): Promise<AutocannonResult> {
  const instance = autocannon({ timeout: 30, ...options });
  if (onLatency) instance.on('response', (_client, _status, _bytes, ms) => onLatency(ms));
  return instance;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return round(sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]);
}

class Accumulator {
  latencies: number[] = [];
  ok = 0;
  non2xx = 0;
  errors = 0;
  timeouts = 0;
  durationS = 0;
  cpu: Record<string, number> = {};

  add(r: AutocannonResult): void {
    this.ok += r['2xx'];
    this.non2xx += r.non2xx;
    this.errors += r.errors;
    this.timeouts += r.timeouts;
    this.durationS += r.duration;
  }

  figures(): LoadFigures {
    const sorted = [...this.latencies].sort((a, b) => a - b);
    const requests = this.ok + this.non2xx;
    return {
      req_per_s: round(requests / this.durationS),
      p50_ms: percentile(sorted, 50),
      p90_ms: percentile(sorted, 90),
      p99_ms: percentile(sorted, 99),
      max_ms: round(sorted[sorted.length - 1] ?? 0),
      requests,
      ok: this.ok,
      errors: this.errors,
      timeouts: this.timeouts,
      non2xx: this.non2xx,
      duration_s: round(this.durationS),
    };
  }
}

/** Single run figures (from autocannon's own histogram). */
export function figures(r: AutocannonResult): LoadFigures {
  const requests = r['2xx'] + r.non2xx;
  return {
    req_per_s: round(requests / r.duration),
    p50_ms: r.latency.p50,
    p90_ms: r.latency.p90,
    p99_ms: r.latency.p99,
    max_ms: r.latency.max,
    requests,
    ok: r['2xx'],
    errors: r.errors,
    timeouts: r.timeouts,
    non2xx: r.non2xx,
    duration_s: r.duration,
  };
}

export interface Target {
  name: string;
  options: AutocannonOptions;
  /** Processes whose CPU time is charged to this target's requests (name → pid). */
  pids: Record<string, number>;
}

export type TargetFigures = LoadFigures & {
  /** CPU time per completed request, per process (µs): independent of other load on the machine. */
  cpu_us_per_req: Record<string, number>;
};

/**
 * A warm-up of every target, then `rounds` measured rounds of `roundS` seconds, the targets
 * alternating (A B A B …) so that other load on the machine hits them alike. Latency
 * percentiles are exact over every response of every round.
 */
export async function measureInterleaved(targets: Target[], warmupS: number, roundS: number, rounds: number): Promise<Record<string, TargetFigures>> {
  for (const t of targets) {
    log(`${t.name}: warm-up ${warmupS}s`);
    await run({ ...t.options, duration: warmupS });
  }
  const acc = new Map(targets.map((t) => [t.name, new Accumulator()]));
  for (let i = 0; i < rounds; i++) {
    for (const t of targets) {
      const a = acc.get(t.name) as Accumulator;
      const before = Object.fromEntries(Object.entries(t.pids).map(([n, pid]) => [n, cpuMs(pid)]));
      const r = await run({ ...t.options, duration: roundS }, (ms) => a.latencies.push(ms));
      for (const [n, pid] of Object.entries(t.pids)) {
        const b = before[n];
        const now = cpuMs(pid);
        if (b !== undefined && now !== undefined) a.cpu[n] = (a.cpu[n] ?? 0) + (now - b);
      }
      a.add(r);
      log(`${t.name} round ${i + 1}/${rounds}: ${round((r['2xx'] + r.non2xx) / r.duration)} req/s, p50 ${r.latency.p50} ms`);
    }
  }
  const out: Record<string, TargetFigures> = {};
  for (const t of targets) {
    const a = acc.get(t.name) as Accumulator;
    const f = a.figures();
    out[t.name] = {
      ...f,
      cpu_us_per_req: Object.fromEntries(Object.entries(a.cpu).map(([n, ms]) => [n, Math.round((ms * 1000) / Math.max(1, f.requests))])),
    };
    log(`${t.name}: ${JSON.stringify(out[t.name])}`);
  }
  return out;
}
