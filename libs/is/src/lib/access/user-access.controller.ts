import { Controller } from '@nestjs/common';
import { rpcPattern, type UserIdentifiers, type CreateUserAPIKeyRequest, type DeleteUserAPIKeyRequest, type GetUserAPIKeyRequest, type ListUserAPIKeysRequest, type RpcContext, type UpdateUserAPIKeyRequest } from '@lorawan/api';
import { RpcCallContext, RpcRequest } from '@lorawan/component';
import { MessagePattern } from '@nestjs/microservices';
import { ApiKeyService, type KeyOwner } from './api-key.service';
import { EntityAccessService } from './entity-access.service';

const usr = (user_id: string): KeyOwner => ({ kind: 'user', id: user_id });

/** UserAccess RPC handlers (rights and API keys of a user): each delegates in one line. */
@Controller()
export class UserAccessController {
  constructor(
    private readonly keys: ApiKeyService,
    private readonly access: EntityAccessService,
  ) {}

  @MessagePattern(rpcPattern('UserAccess.ListRights'))
  listRights(@RpcRequest() req: UserIdentifiers, @RpcCallContext() ctx: RpcContext) {
    return this.access.listRights(usr(req.user_id), ctx);
  }

  @MessagePattern(rpcPattern('UserAccess.CreateAPIKey'))
  createAPIKey(@RpcRequest() req: CreateUserAPIKeyRequest, @RpcCallContext() ctx: RpcContext) {
    return this.keys.create(usr(req.user_ids.user_id), req, ctx);
  }

  @MessagePattern(rpcPattern('UserAccess.ListAPIKeys'))
  listAPIKeys(@RpcRequest() req: ListUserAPIKeysRequest) {
    return this.keys.list(usr(req.user_ids.user_id), req);
  }

  @MessagePattern(rpcPattern('UserAccess.GetAPIKey'))
  getAPIKey(@RpcRequest() req: GetUserAPIKeyRequest) {
    return this.keys.get(usr(req.user_ids.user_id), req.key_id);
  }

  @MessagePattern(rpcPattern('UserAccess.UpdateAPIKey'))
  updateAPIKey(@RpcRequest() req: UpdateUserAPIKeyRequest, @RpcCallContext() ctx: RpcContext) {
    return this.keys.update(usr(req.user_ids.user_id), req, ctx);
  }

  @MessagePattern(rpcPattern('UserAccess.DeleteAPIKey'))
  deleteAPIKey(@RpcRequest() req: DeleteUserAPIKeyRequest, @RpcCallContext() ctx: RpcContext) {
    return this.keys.delete(usr(req.user_ids.user_id), req.key_id, ctx);
  }
}
