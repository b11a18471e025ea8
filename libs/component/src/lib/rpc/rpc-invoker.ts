import { Inject, Injectable } from '@nestjs/common';
import { RPCS, type RequestOf, type ResponseOf, type RpcContext, type RpcName } from '@lorawan/api';
import type { RpcClient } from '@lorawan/transport';
import { COMPONENT_RPC_CLIENT } from '../tokens';

/**
 * How a component calls another's RPC: by its name in the table, with the request and answer
 * types the table gives it (`RequestOf`, `ResponseOf`), so that caller and callee cannot drift
 * apart. A failed call rejects as the transport does (the callee's ErrorDetails, or its own error
 * when the callee cannot be reached).
 */
@Injectable()
export class RpcInvoker {
  constructor(@Inject(COMPONENT_RPC_CLIENT) private readonly client: RpcClient) {}

  /**
   * Calls RPC `name` with `request` in `ctx`. `o.subject`: an RPC served per target on a subject of
   * its own (`NsGs.ScheduleDownlink` on the gateway's, `gatewayDownlinkSubject`).
   */
  invoke<N extends RpcName>(name: N, request: RequestOf<N>, ctx: RpcContext, o: { subject?: string } = {}): Promise<ResponseOf<N>> {
    return this.client.call<ResponseOf<N>>(o.subject ?? RPCS[name].subject, { ctx, body: request });
  }
}
