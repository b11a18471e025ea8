import { Controller } from '@nestjs/common';
import {
  rpcPattern,
  type CreateGatewayRequest,
  type GatewayIdentifiers,
  type GetGatewayForEUIRequest,
  type GetGatewayIdentifiersForEUIRequest,
  type GetGatewayRequest,
  type ListGatewaysRequest,
  type RpcContext,
  type UpdateGatewayRequest,
} from '@lorawan/api';
import { RpcCallContext, RpcRequest } from '@lorawan/component';
import { MessagePattern } from '@nestjs/microservices';
import { GatewayRegistryService } from './gateway-registry.service';

/** GatewayRegistry RPC handlers: each delegates in one line. */
@Controller()
export class GatewayRegistryController {
  constructor(private readonly registry: GatewayRegistryService) {}

  @MessagePattern(rpcPattern('GatewayRegistry.Create'))
  create(@RpcRequest() req: CreateGatewayRequest, @RpcCallContext() ctx: RpcContext) {
    return this.registry.create(req, ctx);
  }

  @MessagePattern(rpcPattern('GatewayRegistry.Get'))
  get(@RpcRequest() req: GetGatewayRequest) {
    return this.registry.get(req);
  }

  @MessagePattern(rpcPattern('GatewayRegistry.GetIdentifiersForEUI'))
  getIdentifiersForEUI(@RpcRequest() req: GetGatewayIdentifiersForEUIRequest) {
    return this.registry.getIdentifiersForEUI(req);
  }

  @MessagePattern(rpcPattern('GsIs.GetGatewayForEUI'))
  forEui(@RpcRequest() req: GetGatewayForEUIRequest) {
    return this.registry.forEui(req);
  }

  @MessagePattern(rpcPattern('GatewayRegistry.List'))
  list(@RpcRequest() req: ListGatewaysRequest, @RpcCallContext() ctx: RpcContext) {
    return this.registry.list(req, ctx.caller);
  }

  @MessagePattern(rpcPattern('GatewayRegistry.Update'))
  update(@RpcRequest() req: UpdateGatewayRequest, @RpcCallContext() ctx: RpcContext) {
    return this.registry.update(req, ctx);
  }

  @MessagePattern(rpcPattern('GatewayRegistry.Delete'))
  delete(@RpcRequest() req: GatewayIdentifiers, @RpcCallContext() ctx: RpcContext) {
    return this.registry.delete(req, ctx);
  }

  @MessagePattern(rpcPattern('GatewayRegistry.Restore'))
  restore(@RpcRequest() req: GatewayIdentifiers, @RpcCallContext() ctx: RpcContext) {
    return this.registry.restore(req, ctx);
  }

  @MessagePattern(rpcPattern('GatewayRegistry.Purge'))
  purge(@RpcRequest() req: GatewayIdentifiers, @RpcCallContext() ctx: RpcContext) {
    return this.registry.purge(req, ctx);
  }
}
