import { round } from './load';

/**
 * The components' Prometheus metrics (`GET /metrics` on each HEALTH_PORT), scraped before and
 * after a measurement: what the stack itself counted (results by label, RPC handling times, event
 * loop lag) as evidence of where the time went.
 */

/** One scrape: the value of every series, keyed by `name{labels}` as the text format writes it. */
export type Scrape = Map<string, number>;

export async function scrape(url: string): Promise<Scrape> {
  const out: Scrape = new Map();
  try {
    const res = await fetch(url);
    if (res.status !== 200) return out;
    for (const line of (await res.text()).split('\n')) {
      if (!line || line.startsWith('#')) continue;
      const space = line.lastIndexOf(' ');
      const value = Number(line.slice(space + 1));
      if (space > 0 && Number.isFinite(value)) out.set(line.slice(0, space), value);
    }
  } catch {
    // a process gone: nothing to report
  }
  return out;
}

/** Scrapes every process (name → `/metrics` URL) at once. */
export async function scrapeAll(urls: Record<string, string>): Promise<Record<string, Scrape>> {
  const entries = await Promise.all(Object.entries(urls).map(async ([name, url]) => [name, await scrape(url)] as const));
  return Object.fromEntries(entries);
}

function parseSeries(key: string): { name: string; labels: Record<string, string> } {
  const brace = key.indexOf('{');
  if (brace < 0) return { name: key, labels: {} };
  const labels: Record<string, string> = {};
  for (const m of key.slice(brace + 1, -1).matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[m[1]] = m[2];
  return { name: key.slice(0, brace), labels };
}

/** The series of a counter that increased between two scrapes: their labels and increase. */
export function counterIncreases(before: Scrape, after: Scrape, name: string): Array<{ labels: Record<string, string>; increase: number }> {
  const out: Array<{ labels: Record<string, string>; increase: number }> = [];
  for (const [key, value] of after) {
    const s = parseSeries(key);
    if (s.name !== name) continue;
    const increase = value - (before.get(key) ?? 0);
    if (increase > 0) out.push({ labels: s.labels, increase });
  }
  return out;
}

/** A counter's increase between two scrapes, by the value of one label (`result`, `reason`, …); zero rows left out. */
export function counterDelta(before: Scrape, after: Scrape, name: string, label: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const { labels, increase } of counterIncreases(before, after, name)) out[labels[label] ?? ''] = (out[labels[label] ?? ''] ?? 0) + increase;
  return out;
}

export interface RpcTiming {
  count: number;
  mean_ms: number;
  /** The upper bound of the histogram bucket the 50th / 99th percentile falls in. */
  p50_le_ms: number;
  p99_le_ms: number;
}

/**
 * `lorawan_rpc_server_handling_seconds` between two scrapes, per RPC: how many a component
 * answered, how long they took on average, and the buckets of the median and the 99th percentile.
 */
export function rpcServerTimings(before: Scrape, after: Scrape): Record<string, RpcTiming> {
  const base = 'lorawan_rpc_server_handling_seconds';
  const rpcs = new Map<string, { count: number; sum: number; buckets: Array<[number, number]> }>();
  const entry = (rpc: string) => {
    let e = rpcs.get(rpc);
    if (!e) rpcs.set(rpc, (e = { count: 0, sum: 0, buckets: [] }));
    return e;
  };
  for (const [key, value] of after) {
    const s = parseSeries(key);
    if (!s.name.startsWith(base)) continue;
    const d = value - (before.get(key) ?? 0);
    const e = entry(s.labels.rpc ?? '');
    if (s.name === `${base}_count`) e.count += d;
    else if (s.name === `${base}_sum`) e.sum += d;
    else if (s.name === `${base}_bucket`) e.buckets.push([s.labels.le === '+Inf' ? Infinity : Number(s.labels.le), d]);
  }
  const out: Record<string, RpcTiming> = {};
  for (const [rpc, e] of [...rpcs].sort(([a], [b]) => a.localeCompare(b))) {
    if (e.count <= 0) continue;
    const sorted = e.buckets.sort((a, b) => a[0] - b[0]);
    const le = (q: number) => {
      const bound = sorted.find(([, cumulative]) => cumulative >= q * e.count)?.[0] ?? Infinity;
      return Number.isFinite(bound) ? round(bound * 1000) : -1;
    };
    out[rpc] = { count: e.count, mean_ms: round((e.sum / e.count) * 1000), p50_le_ms: le(0.5), p99_le_ms: le(0.99) };
  }
  return out;
}

/** A gauge's value in one scrape (the sum over its series). */
export function gauge(s: Scrape, name: string): number | undefined {
  let total: number | undefined;
  for (const [key, value] of s) if (parseSeries(key).name === name) total = (total ?? 0) + value;
  return total;
}

/** A counter's increase between two scrapes of every process, keyed by the values of `labels` joined by `:`; zero rows left out. */
export function counterDeltaAll(
  before: Record<string, Scrape>,
  after: Record<string, Scrape>,
  name: string,
  labels: readonly string[],
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [process, a] of Object.entries(after)) {
    for (const { labels: l, increase } of counterIncreases(before[process] ?? new Map(), a, name)) {
      const key = labels.map((label) => l[label] ?? '').join(':');
      out[key] = (out[key] ?? 0) + increase;
    }
  }
  return out;
}

/**
 * The GS's downlink duty cycle in one scrape of every process (`lorawan_gs_sub_band_utilization`):
 * per band and sub-band, the busiest gateway's share of the window on the air and the limit.
 */
export function subBandUtilization(scrapes: Record<string, Scrape>): Record<string, { max: number; limit: number }> {
  const out: Record<string, { max: number; limit: number }> = {};
  for (const s of Object.values(scrapes)) {
    for (const [key, value] of s) {
      const { name, labels } = parseSeries(key);
      if (name !== 'lorawan_gs_sub_band_utilization') continue;
      const row = (out[`${labels.band_id}:${labels.sub_band}`] ??= { max: 0, limit: 1 });
      if (labels.aggregate === 'max') row.max = Math.max(row.max, round(value, 5));
      else if (labels.aggregate === 'limit') row.limit = value;
    }
  }
  return out;
}
