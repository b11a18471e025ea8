import { GatewayIdentifiers } from '../messages/identifiers';
import { BatchGetGatewayConnectionStatsRequest, BatchGetGatewayConnectionStatsResponse, GatewayConnectionStats } from '../messages/gateway-server';
import { Right } from './rights';
import { defineRpc, type RpcDefinition } from './define-rpc';

/**
 * The Gateway Server's service (TTS `Gs`, `api/gatewayserver.proto`): the connection stats of the
 * gateways connected to it. Any GS replica takes a request and checks the rights; the replica that
 * holds a gateway answers for it on the gateway's own subject (`GsGs.GetGatewayConnectionStats`,
 * `gatewayDownlinkSubject`), as the NS reaches a gateway's downlink path.
 */
export function gsRpcs() {
  return {
    'Gs.GetGatewayConnectionStats': defineRpc({
      service: 'Gs',
      method: 'GetGatewayConnectionStats',
      component: 'gs',
      http: [{ verb: 'GET', path: '/gs/gateways/{gateway_id}/connection/stats' }],
      entity: { kind: 'gateway', path: 'gateway_id' },
      rights: [Right.RIGHT_GATEWAY_STATUS_READ],
      request: GatewayIdentifiers,
      response: GatewayConnectionStats,
    }),
    'Gs.BatchGetGatewayConnectionStats': defineRpc({
      service: 'Gs',
      method: 'BatchGetGatewayConnectionStats',
      component: 'gs',
      http: [{ verb: 'POST', path: '/gs/gateways/connection/stats', body: '*' }],
      // TTS AssertGatewayBatchRights: the right on every gateway of the batch.
      entities: { kind: 'gateway', path: 'gateway_ids', field: 'gateway_id' },
      rights: [Right.RIGHT_GATEWAY_STATUS_READ],
      request: BatchGetGatewayConnectionStatsRequest,
      response: BatchGetGatewayConnectionStatsResponse,
    }),
    /**
     * The GS replica that took a stats request asks the one holding the gateway, on the gateway's
     * own subject (no replica holds it: not connected). The rights were checked by the asking replica.
     */
    'GsGs.GetGatewayConnectionStats': defineRpc({
      service: 'GsGs',
      method: 'GetGatewayConnectionStats',
      component: 'gs',
      http: [],
      rights: [],
      unauthenticated: true,
      request: GatewayIdentifiers,
      response: GatewayConnectionStats,
    }),
  } satisfies Record<string, RpcDefinition>;
}
