import { Controller } from '@nestjs/common';
import { rpcPattern, type GatewayIdentifiers, type CreateGatewayAPIKeyRequest, type DeleteGatewayAPIKeyRequest, type GetGatewayAPIKeyRequest, type ListGatewayAPIKeysRequest, type RpcContext, type UpdateGatewayAPIKeyRequest } from '@lorawan/api';
import { RpcCallContext, RpcRequest } from '@lorawan/component';
import { MessagePattern } from '@nestjs/microservices';
import { ApiKeyService, type KeyOwner } from './api-key.service';
import { EntityAccessService } from './entity-access.service';

const gtw = (gateway_id: string): KeyOwner => ({ kind: 'gateway', id: gateway_id });

/** GatewayAccess RPC handlers (rights and API keys of a gateway): each delegates in one line. */
@Controller()
export class GatewayAccessController {
  constructor(
    private readonly keys: ApiKeyService,
    private readonly access: EntityAccessService,
  ) {}

  @MessagePattern(rpcPattern('GatewayAccess.ListRights'))
  listRights(@RpcRequest() req: GatewayIdentifiers, @RpcCallContext() ctx: RpcContext) {
    return this.access.listRights(gtw(req.gateway_id), ctx);
  }

  @MessagePattern(rpcPattern('GatewayAccess.CreateAPIKey'))
  createAPIKey(@RpcRequest() req: CreateGatewayAPIKeyRequest, @RpcCallContext() ctx: RpcContext) {
    return this.keys.create(gtw(req.gateway_ids.gateway_id), req, ctx);
  }

  @MessagePattern(rpcPattern('GatewayAccess.ListAPIKeys'))
  listAPIKeys(@RpcRequest() req: ListGatewayAPIKeysRequest) {
    return this.keys.list(gtw(req.gateway_ids.gateway_id), req);
  }

  @MessagePattern(rpcPattern('GatewayAccess.GetAPIKey'))
  getAPIKey(@RpcRequest() req: GetGatewayAPIKeyRequest) {
    return this.keys.get(gtw(req.gateway_ids.gateway_id), req.key_id);
  }

  @MessagePattern(rpcPattern('GatewayAccess.UpdateAPIKey'))
  updateAPIKey(@RpcRequest() req: UpdateGatewayAPIKeyRequest, @RpcCallContext() ctx: RpcContext) {
    return this.keys.update(gtw(req.gateway_ids.gateway_id), req, ctx);
  }

  @MessagePattern(rpcPattern('GatewayAccess.DeleteAPIKey'))
  deleteAPIKey(@RpcRequest() req: DeleteGatewayAPIKeyRequest, @RpcCallContext() ctx: RpcContext) {
    return this.keys.delete(gtw(req.gateway_ids.gateway_id), req.key_id, ctx);
  }
}
