import { Injectable } from '@nestjs/common';
import type {
  GatewayIdentifiers,
  CreateGatewayAPIKeyRequest,
  DeleteGatewayAPIKeyRequest,
  GetGatewayAPIKeyRequest,
  ListGatewayAPIKeysRequest,
  RpcContext,
  UpdateGatewayAPIKeyRequest,
} from '@lorawan/api';
import { RpcHandler } from '@lorawan/component';
import { ApiKeyService, type KeyOwner } from './api-key.service';
import { EntityAccessService } from './entity-access.service';

const gtw = (gateway_id: string): KeyOwner => ({ kind: 'gateway', id: gateway_id });

/** GatewayAccess RPC handlers (rights and API keys of a gateway): each delegates in one line. */
@Injectable()
export class GatewayAccessRpc {
  constructor(
    private readonly keys: ApiKeyService,
    private readonly access: EntityAccessService,
  ) {}

  @RpcHandler('GatewayAccess.ListRights')
  listRights(req: GatewayIdentifiers, ctx: RpcContext) {
    return this.access.listRights(gtw(req.gateway_id), ctx);
  }

  @RpcHandler('GatewayAccess.CreateAPIKey')
  createAPIKey(req: CreateGatewayAPIKeyRequest, ctx: RpcContext) {
    return this.keys.create(gtw(req.gateway_ids.gateway_id), req, ctx);
  }

  @RpcHandler('GatewayAccess.ListAPIKeys')
  listAPIKeys(req: ListGatewayAPIKeysRequest) {
    return this.keys.list(gtw(req.gateway_ids.gateway_id), req);
  }

  @RpcHandler('GatewayAccess.GetAPIKey')
  getAPIKey(req: GetGatewayAPIKeyRequest) {
    return this.keys.get(gtw(req.gateway_ids.gateway_id), req.key_id);
  }

  @RpcHandler('GatewayAccess.UpdateAPIKey')
  updateAPIKey(req: UpdateGatewayAPIKeyRequest, ctx: RpcContext) {
    return this.keys.update(gtw(req.gateway_ids.gateway_id), req, ctx);
  }

  @RpcHandler('GatewayAccess.DeleteAPIKey')
  deleteAPIKey(req: DeleteGatewayAPIKeyRequest, ctx: RpcContext) {
    return this.keys.delete(gtw(req.gateway_ids.gateway_id), req.key_id, ctx);
  }
}
