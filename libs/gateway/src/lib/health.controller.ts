import { Controller, Get, Inject, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { ComponentName } from '@lorawan/api';
import { type Transport, TRANSPORT } from '@lorawan/transport';
import { RpcForwarder } from './rpc-forwarder';
import { GATEWAY_READY_COMPONENTS } from './tokens';

/** Liveness and readiness (transport up, and the registries it fronts answer with their database up). */
@Controller()
export class HealthController {
  constructor(
    @Inject(TRANSPORT) private readonly transport: Transport,
    @Inject(GATEWAY_READY_COMPONENTS) private readonly components: ComponentName[],
    private readonly forwarder: RpcForwarder,
  ) {}

  @Get('healthz')
  healthz() {
    return { status: 'ok' };
  }

  @Get('readyz')
  async readyz(@Res() reply: FastifyReply) {
    const checks: Record<string, 'ok' | 'unavailable'> = { transport: (await this.transport.healthy()) ? 'ok' : 'unavailable' };
    const results = await Promise.all(this.components.map(async (c) => [c, await this.forwarder.componentHealthy(c)] as const));
    for (const [c, ok] of results) checks[c] = ok ? 'ok' : 'unavailable';
    const ok = Object.values(checks).every((v) => v === 'ok');
    void reply.code(ok ? 200 : 503).send({ status: ok ? 'ok' : 'unavailable', checks });
  }
}
