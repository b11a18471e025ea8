import { Injectable } from '@nestjs/common';
import type {
  UserIdentifiers,
  CreateUserAPIKeyRequest,
  DeleteUserAPIKeyRequest,
  GetUserAPIKeyRequest,
  ListUserAPIKeysRequest,
  RpcContext,
  UpdateUserAPIKeyRequest,
} from '@lorawan/api';
import { RpcHandler } from '@lorawan/component';
import { ApiKeyService, type KeyOwner } from './api-key.service';
import { EntityAccessService } from './entity-access.service';

const usr = (user_id: string): KeyOwner => ({ kind: 'user', id: user_id });

/** UserAccess RPC handlers (rights and API keys of a user): each delegates in one line. */
@Injectable()
export class UserAccessRpc {
  constructor(
    private readonly keys: ApiKeyService,
    private readonly access: EntityAccessService,
  ) {}

  @RpcHandler('UserAccess.ListRights')
  listRights(req: UserIdentifiers, ctx: RpcContext) {
    return this.access.listRights(usr(req.user_id), ctx);
  }

  @RpcHandler('UserAccess.CreateAPIKey')
  createAPIKey(req: CreateUserAPIKeyRequest, ctx: RpcContext) {
    return this.keys.create(usr(req.user_ids.user_id), req, ctx);
  }

  @RpcHandler('UserAccess.ListAPIKeys')
  listAPIKeys(req: ListUserAPIKeysRequest) {
    return this.keys.list(usr(req.user_ids.user_id), req);
  }

  @RpcHandler('UserAccess.GetAPIKey')
  getAPIKey(req: GetUserAPIKeyRequest) {
    return this.keys.get(usr(req.user_ids.user_id), req.key_id);
  }

  @RpcHandler('UserAccess.UpdateAPIKey')
  updateAPIKey(req: UpdateUserAPIKeyRequest, ctx: RpcContext) {
    return this.keys.update(usr(req.user_ids.user_id), req, ctx);
  }

  @RpcHandler('UserAccess.DeleteAPIKey')
  deleteAPIKey(req: DeleteUserAPIKeyRequest, ctx: RpcContext) {
    return this.keys.delete(usr(req.user_ids.user_id), req.key_id, ctx);
  }
}
