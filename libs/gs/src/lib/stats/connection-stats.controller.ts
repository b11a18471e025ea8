import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import {
  type BatchGetGatewayConnectionStatsRequest,
  type BatchGetGatewayConnectionStatsResponse,
  type GatewayConnectionStats,
  type GatewayIdentifiers,
  type RpcContext,
  rpcPattern,
} from '@lorawan/api';
import { RpcCallContext, RpcRequest } from '@lorawan/component';
import { ConnectionStatsService } from './connection-stats.service';

/** The Gs service (connection stats), and the per-gateway subject each replica serves for the gateways it holds. */
@Controller()
export class ConnectionStatsController {
  constructor(private readonly stats: ConnectionStatsService) {}

  @MessagePattern(rpcPattern('Gs.GetGatewayConnectionStats'))
  get(@RpcRequest() request: GatewayIdentifiers, @RpcCallContext() ctx: RpcContext): Promise<GatewayConnectionStats> {
    return this.stats.get(request, ctx);
  }

  @MessagePattern(rpcPattern('Gs.BatchGetGatewayConnectionStats'))
  batch(@RpcRequest() request: BatchGetGatewayConnectionStatsRequest, @RpcCallContext() ctx: RpcContext): Promise<BatchGetGatewayConnectionStatsResponse> {
    return this.stats.batch(request, ctx);
  }

  @MessagePattern(rpcPattern('GsGs.GetGatewayConnectionStats'))
  local(@RpcRequest() request: GatewayIdentifiers): GatewayConnectionStats {
    return this.stats.local(request);
  }
}
