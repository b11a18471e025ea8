import { httpRequestDuration, httpRequests } from '@lorawan/observability';

/** The HTTP metric series of a (method, route): one recorder per status, resolved once. */
export class RouteMetrics {
  private readonly byStatus = new Map<number, (seconds: number) => void>();

  constructor(
    private readonly method: string,
    private readonly route: string,
  ) {}

  record(status: number, seconds: number): void {
    let record = this.byStatus.get(status);
    if (!record) {
      const count = httpRequests.with(this.method, this.route, String(status));
      const duration = httpRequestDuration.with(this.method, this.route, String(status));
      this.byStatus.set(
        status,
        (record = (s) => {
          count.inc();
          duration.observe(s);
        }),
      );
    }
    record(seconds);
  }
}

/** Routes without their own (Nest's probes, unknown paths). */
const OTHER_ROUTES = new Map<string, RouteMetrics>();
export function metricsOf(method: string, route: string): RouteMetrics {
  const key = `${method} ${route}`;
  let metrics = OTHER_ROUTES.get(key);
  if (!metrics) OTHER_ROUTES.set(key, (metrics = new RouteMetrics(method, route)));
  return metrics;
}
