import { register } from 'prom-client';

/**
 * Counters and histograms for the paths run on every request (HTTP requests, RPCs served and
 * sent). prom-client validates and hashes the labels on every `inc`/`observe` (several µs with
 * the garbage it makes, on a request that costs ~150 µs of CPU in all); here a caller resolves
 * its label values to a series once and then only adds numbers. They register with prom-client's
 * registry, which renders them with every other metric at `/metrics`.
 */

interface Sample {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

abstract class SeriesMetric<S> {
  abstract readonly type: 'counter' | 'histogram';
  readonly aggregator = 'sum';
  protected readonly series = new Map<string, { labels: Record<string, string>; state: S }>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
  ) {
    // Boundary: prom-client's registry takes any object with get()/reset() but types the parameter as its own Metric class.
    register.registerMetric(this as never);
  }

  protected resolve(values: readonly string[], create: () => S): S {
    const key = values.join('\u0000');
    let entry = this.series.get(key);
    if (!entry) {
      if (values.length !== this.labelNames.length) throw new Error(`${this.name}: expected labels ${this.labelNames.join(', ')}`);
      const labels = Object.fromEntries(this.labelNames.map((n, i) => [n, values[i]]));
      this.series.set(key, (entry = { labels, state: create() }));
    }
    return entry.state;
  }

  reset(): void {
    this.series.clear();
  }

  protected abstract samples(): Sample[];

  async get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: Sample[] }> {
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values: this.samples() };
  }
}

export class CounterSeries {
  value = 0;

  inc(by = 1): void {
    this.value += by;
  }
}

/** A counter whose series are resolved once: `counter.with('is', 'Get', 'OK').inc()`. */
export class SeriesCounter extends SeriesMetric<CounterSeries> {
  readonly type = 'counter' as const;

  with(...values: string[]): CounterSeries {
    return this.resolve(values, () => new CounterSeries());
  }

  protected samples(): Sample[] {
    return [...this.series.values()].map(({ labels, state }) => ({ labels, value: state.value }));
  }
}

export class HistogramSeries {
  readonly counts: number[];
  sum = 0;
  count = 0;

  constructor(private readonly bounds: readonly number[]) {
    this.counts = new Array<number>(bounds.length).fill(0);
  }

  observe(value: number): void {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]) i++;
    if (i < bounds.length) this.counts[i]++;
    this.sum += value;
    this.count++;
  }
}

/** A histogram whose series are resolved once: `histogram.with('is', 'Get').observe(seconds)`. */
export class SeriesHistogram extends SeriesMetric<HistogramSeries> {
  readonly type = 'histogram' as const;

  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    readonly buckets: readonly number[],
  ) {
    super(name, help, labelNames);
  }

  with(...values: string[]): HistogramSeries {
    return this.resolve(values, () => new HistogramSeries(this.buckets));
  }

  protected samples(): Sample[] {
    const out: Sample[] = [];
    for (const { labels, state } of this.series.values()) {
      let cumulative = 0;
      this.buckets.forEach((bound, i) => {
        cumulative += state.counts[i];
        out.push({ labels: { le: bound, ...labels }, value: cumulative, metricName: `${this.name}_bucket` });
      });
      out.push({ labels: { le: '+Inf', ...labels }, value: state.count, metricName: `${this.name}_bucket` });
      out.push({ labels, value: state.sum, metricName: `${this.name}_sum` });
      out.push({ labels, value: state.count, metricName: `${this.name}_count` });
    }
    return out;
  }
}
