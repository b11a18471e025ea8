import { performance } from 'node:perf_hooks';
import { Inject, Injectable } from '@nestjs/common';
import { type ComponentName, healthSubject, type RpcContext, type RpcDefinition } from '@lorawan/api';
import { STACK_CONFIG, type StackConfig } from '@lorawan/config';
import { Code, codeName, ErrDeadlineExceeded, ErrRequestTooLarge, ErrUnavailable, isErrorDetails, StackError } from '@lorawan/errors';
import { RpcMetrics } from '@lorawan/observability';
import { type RpcClient, type RpcEnvelope, RpcTransportError } from '@lorawan/transport';
import { REQUEST_BODY_LIMIT, RPC_CLIENT } from './tokens';

export interface ForwardResult {
  body: unknown;
  total?: number;
}

/** How long a readiness probe waits for a component's health answer. */
const HEALTH_TIMEOUT_MS = 2000;
const METRICS = new WeakMap<RpcDefinition, RpcMetrics>();

function metricsOf(rpc: RpcDefinition): RpcMetrics {
  let metrics = METRICS.get(rpc);
  if (!metrics) METRICS.set(rpc, (metrics = RpcMetrics.sent(rpc.component, rpc.name)));
  return metrics;
}

/**
 * Sends a request to the component that owns the RPC (through the @nestjs/microservices client
 * proxy) and turns the reply into a result or a StackError: the component's error as it sent it,
 * no replica or no broker → `Unavailable` (503) at once, no reply in time → `DeadlineExceeded`
 * (504), a request larger than the transport carries → 413.
 */
@Injectable()
export class RpcForwarder {
  constructor(
    @Inject(RPC_CLIENT) private readonly client: RpcClient,
    @Inject(STACK_CONFIG) private readonly config: StackConfig,
    @Inject(REQUEST_BODY_LIMIT) private readonly bodyLimit: number,
  ) {}

  async forward(rpc: RpcDefinition, body: unknown, ctx: RpcContext): Promise<ForwardResult> {
    const started = performance.now();
    let code = Code.OK;
    try {
      const response = await this.request(rpc.subject, rpc.component, { ctx, body });
      return rpc.paginated ? (response as ForwardResult) : { body: response };
    } catch (err) {
      code = err instanceof StackError ? err.code : Code.Unknown;
      throw err;
    } finally {
      metricsOf(rpc).record(codeName(code), (performance.now() - started) / 1000);
    }
  }

  /** Health of a component, for readiness. */
  async componentHealthy(component: ComponentName): Promise<boolean> {
    try {
      const report = (await this.request(healthSubject(component), component, {}, HEALTH_TIMEOUT_MS)) as { status?: string };
      return report?.status === 'ok';
    } catch {
      return false;
    }
  }

  private async request(subject: string, component: ComponentName, envelope: RpcEnvelope | object, timeoutMs?: number): Promise<unknown> {
    try {
      return (await this.client.call<unknown>(subject, envelope, timeoutMs)) ?? {};
    } catch (err) {
      throw this.toStackError(err, component, timeoutMs ?? this.config.rpcTimeoutMs);
    }
  }

  private toStackError(err: unknown, component: ComponentName, timeoutMs: number): unknown {
    if (err instanceof RpcTransportError) {
      switch (err.kind) {
        case 'timeout':
          return ErrDeadlineExceeded.with({ component, timeout_ms: timeoutMs });
        case 'too_large':
          return ErrRequestTooLarge.with({ limit: this.bodyLimit });
        case 'unavailable':
          return ErrUnavailable.with({ component });
      }
    }
    if (isErrorDetails(err)) return StackError.fromDetails(err);
    return err;
  }
}
