import { Inject, Injectable } from '@nestjs/common';
import { type PubSub, PUBSUB, settleWithin } from '@lorawan/transport';

export interface HealthIndicator {
  readonly name: string;
  isHealthy(): Promise<boolean>;
}

export type CheckState = 'ok' | 'unavailable';

export interface HealthReport {
  status: CheckState;
  checks: Record<string, CheckState>;
}

/** A check that does not answer within this counts as failed: a probe must never hang. */
const CHECK_TIMEOUT_MS = 2000;

/**
 * Readiness: the transport and every registered indicator (a component's database) answer, and
 * the process is not shutting down (SIGTERM turns readiness false before anything stops).
 */
@Injectable()
export class HealthService {
  private readonly indicators: HealthIndicator[] = [];
  private stopping = false;

  constructor(@Inject(PUBSUB) private readonly pubsub: PubSub) {}

  /** Called by a component's own providers (e.g. its data source) at module init. */
  register(indicator: HealthIndicator): void {
    this.indicators.push(indicator);
  }

  /** The process is shutting down: not ready from now on. */
  beginShutdown(): void {
    this.stopping = true;
  }

  async check(): Promise<HealthReport> {
    const probes = [{ name: 'transport', isHealthy: () => this.pubsub.healthy() }, ...this.indicators];
    const results = await Promise.all(probes.map((p) => settleWithin(p.isHealthy(), CHECK_TIMEOUT_MS, false)));
    const checks: HealthReport['checks'] = {};
    probes.forEach((p, i) => (checks[p.name] = results[i] ? 'ok' : 'unavailable'));
    if (this.stopping) checks['shutdown'] = 'unavailable';
    return { status: Object.values(checks).every((c) => c === 'ok') ? 'ok' : 'unavailable', checks };
  }
}
