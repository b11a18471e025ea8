import { Inject, Injectable } from '@nestjs/common';
import { type Transport, TRANSPORT } from '@lorawan/transport';

export interface HealthIndicator {
  readonly name: string;
  isHealthy(): Promise<boolean>;
}

export interface HealthReport {
  status: 'ok' | 'unavailable';
  checks: Record<string, 'ok' | 'unavailable'>;
}

/** Readiness: the transport and every registered indicator (a component's database) answer. */
@Injectable()
export class HealthService {
  private readonly indicators: HealthIndicator[] = [];

  constructor(@Inject(TRANSPORT) private readonly transport: Transport) {}

  /** Called by a component's own providers (e.g. its data source) at module init. */
  register(indicator: HealthIndicator): void {
    this.indicators.push(indicator);
  }

  async check(): Promise<HealthReport> {
    const checks: HealthReport['checks'] = {};
    const results = await Promise.all([
      this.transport.healthy().then((ok) => ['transport', ok] as const),
      ...this.indicators.map((i) => i.isHealthy().then((ok) => [i.name, ok] as const, () => [i.name, false] as const)),
    ]);
    for (const [name, ok] of results) checks[name] = ok ? 'ok' : 'unavailable';
    return { status: results.every(([, ok]) => ok) ? 'ok' : 'unavailable', checks };
  }
}
