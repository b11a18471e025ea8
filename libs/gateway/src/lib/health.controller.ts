import { Controller, Get, Header, Inject, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { ComponentName } from '@lorawan/api';
import { metricsText } from '@lorawan/observability';
import { type PubSub, PUBSUB } from '@lorawan/transport';
import { GatewayState } from './gateway-state';
import { RpcForwarder } from './rpc-forwarder';
import { GATEWAY_READY_COMPONENTS } from './tokens';

/**
 * Operations endpoints on the HTTP port, without authentication: liveness, readiness (transport
 * up, the components it fronts answer with their database up, not shutting down) and Prometheus
 * metrics.
 */
@Controller()
export class HealthController {
  constructor(
    @Inject(PUBSUB) private readonly pubsub: PubSub,
    @Inject(GATEWAY_READY_COMPONENTS) private readonly components: ComponentName[],
    private readonly forwarder: RpcForwarder,
    private readonly state: GatewayState,
  ) {}

  @Get('healthz')
  healthz() {
    return { status: 'ok' };
  }

  @Get('readyz')
  async readyz(@Res() reply: FastifyReply) {
    const checks: Record<string, 'ok' | 'unavailable'> = { transport: (await this.pubsub.healthy()) ? 'ok' : 'unavailable' };
    const results = await Promise.all(this.components.map(async (c) => [c, await this.forwarder.componentHealthy(c)] as const));
    for (const [c, ok] of results) checks[c] = ok ? 'ok' : 'unavailable';
    if (this.state.shuttingDown) checks['shutdown'] = 'unavailable';
    const ok = Object.values(checks).every((v) => v === 'ok');
    void reply.code(ok ? 200 : 503).send({ status: ok ? 'ok' : 'unavailable', checks });
  }

  @Get('metrics')
  @Header('cache-control', 'no-store')
  async metrics(@Res() reply: FastifyReply) {
    const { contentType, body } = await metricsText();
    void reply.code(200).header('content-type', contentType).send(body);
  }
}
