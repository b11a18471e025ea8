/**
 * Reading Prometheus text expositions (`GET /metrics`) in the e2e suites: a counter's value summed
 * over the series whose labels include the given ones.
 */

/** The sum of the samples of `name` whose labels include every one of `labels` (0 without any). */
export function metricSum(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const [, labelText = '', value] of text.matchAll(new RegExp(`^${name}(?:\\{([^}]*)\\})? (\\S+)$`, 'gm'))) {
    const series = Object.fromEntries([...labelText.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, k, v]) => [k, v]));
    if (Object.entries(labels).every(([k, v]) => series[k] === v)) sum += Number(value);
  }
  return sum;
}

/** The text of a `/metrics` endpoint. */
export async function scrape(url: string): Promise<string> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  return res.text();
}
