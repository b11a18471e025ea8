import { Injectable } from '@nestjs/common';
import type { CreateGatewayRequest, GatewayIdentifiers, GetGatewayIdentifiersForEUIRequest, GetGatewayRequest, ListGatewaysRequest, RpcContext, UpdateGatewayRequest } from '@lorawan/api';
import { RpcHandler } from '@lorawan/component';
import { GatewayRegistryService } from './gateway-registry.service';

/** GatewayRegistry RPC handlers: each delegates in one line. */
@Injectable()
export class GatewayRegistryRpc {
  constructor(private readonly registry: GatewayRegistryService) {}

  @RpcHandler('GatewayRegistry.Create')
  create(req: CreateGatewayRequest) {
    return this.registry.create(req);
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
  update(req: UpdateGatewayRequest) {
    return this.registry.update(req);
  }

  @RpcHandler('GatewayRegistry.Delete')
  delete(req: GatewayIdentifiers) {
    return this.registry.delete(req);
  }

  @RpcHandler('GatewayRegistry.Restore')
  restore(req: GatewayIdentifiers) {
    return this.registry.restore(req);
  }

  @RpcHandler('GatewayRegistry.Purge')
  purge(req: GatewayIdentifiers) {
    return this.registry.purge(req);
  }
}
