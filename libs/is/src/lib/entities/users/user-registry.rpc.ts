import { Injectable } from '@nestjs/common';
import type { CreateUserRequest, GetUserRequest, ListUsersRequest, RpcContext, UpdateUserRequest, UserIdentifiers } from '@lorawan/api';
import { RpcHandler } from '@lorawan/component';
import { UserRegistryService } from './user-registry.service';

/** UserRegistry RPC handlers: each delegates in one line. */
@Injectable()
export class UserRegistryRpc {
  constructor(private readonly registry: UserRegistryService) {}

  @RpcHandler('UserRegistry.Create')
  create(req: CreateUserRequest, ctx: RpcContext) {
    return this.registry.create(req, ctx);
  }

  @RpcHandler('UserRegistry.Get')
  get(req: GetUserRequest) {
    return this.registry.get(req);
  }

  @RpcHandler('UserRegistry.List')
  list(req: ListUsersRequest) {
    return this.registry.list(req);
  }

  @RpcHandler('UserRegistry.Update')
  update(req: UpdateUserRequest, ctx: RpcContext) {
    return this.registry.update(req, ctx);
  }

  @RpcHandler('UserRegistry.Delete')
  delete(req: UserIdentifiers, ctx: RpcContext) {
    return this.registry.delete(req, ctx);
  }
}
