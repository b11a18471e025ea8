import autocannon from 'autocannon';
import type { AutocannonOptions, AutocannonResult } from 'autocannon';

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

export async function run(options: AutocannonOptions): Promise<AutocannonResult> {
  return autocannon({ timeout: 30, ...options });
}

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

/** Warm-up, then the measured run, with the same options. */
export async function warmAndMeasure(name: string, options: AutocannonOptions, warmupS: number, measureS: number): Promise<LoadFigures> {
  log(`${name}: warm-up ${warmupS}s`);
  await run({ ...options, duration: warmupS });
  log(`${name}: measuring ${measureS}s`);
  const f = figures(await run({ ...options, duration: measureS }));
  log(`${name}: ${JSON.stringify(f)}`);
  return f;
}

export function round(n: number, digits = 2): number {
  const m = 10 ** digits;
  return Math.round(n * m) / m;
}
