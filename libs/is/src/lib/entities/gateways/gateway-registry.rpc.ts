import { Injectable } from '@nestjs/common';
import type { CreateGatewayRequest, GatewayIdentifiers, GetGatewayIdentifiersForEUIRequest, GetGatewayRequest, ListGatewaysRequest, RpcContext, UpdateGatewayRequest } from '@lorawan/api';
import { RpcHandler } from '@lorawan/component';
import { GatewayRegistryService } from './gateway-registry.service';

/** GatewayRegistry RPC handlers: each delegates in one line. */
@Injectable()
export class GatewayRegistryRpc {
  constructor(private readonly registry: GatewayRegistryService) {}

  @RpcHandler('GatewayRegistry.Create')
  create(req: CreateGatewayRequest, ctx: RpcContext) {
    return this.registry.create(req, ctx);
  }

  @RpcHandler('GatewayRegistry.Get')
  get(req: GetGatewayRequest) {
    return this.registry.get(req);
  }

  @RpcHandler('GatewayRegistry.GetIdentifiersForEUI')
  getIdentifiersForEUI(req: GetGatewayIdentifiersForEUIRequest) {
    return this.registry.getIdentifiersForEUI(req);
  }

  @RpcHandler('GatewayRegistry.List')
  list(req: ListGatewaysRequest, ctx: RpcContext) {
    return this.registry.list(req, ctx.caller);
  }

  @RpcHandler('GatewayRegistry.Update')
  update(req: UpdateGatewayRequest, ctx: RpcContext) {
    return this.registry.update(req, ctx);
  }

  @RpcHandler('GatewayRegistry.Delete')
  delete(req: GatewayIdentifiers, ctx: RpcContext) {
    return this.registry.delete(req, ctx);
  }

  @RpcHandler('GatewayRegistry.Restore')
  restore(req: GatewayIdentifiers, ctx: RpcContext) {
    return this.registry.restore(req, ctx);
  }

  @RpcHandler('GatewayRegistry.Purge')
  purge(req: GatewayIdentifiers, ctx: RpcContext) {
    return this.registry.purge(req, ctx);
  }
}
