import { Controller } from '@nestjs/common';
import {
  rpcPattern,
  type CreateUserRequest,
  type GetUserRequest,
  type ListUsersRequest,
  type RpcContext,
  type UpdateUserRequest,
  type UserIdentifiers,
} from '@lorawan/api';
import { RpcCallContext, RpcRequest } from '@lorawan/component';
import { MessagePattern } from '@nestjs/microservices';
import { UserRegistryService } from './user-registry.service';

/** UserRegistry RPC handlers: each delegates in one line. */
@Controller()
export class UserRegistryController {
  constructor(private readonly registry: UserRegistryService) {}

  @MessagePattern(rpcPattern('UserRegistry.Create'))
  create(@RpcRequest() req: CreateUserRequest, @RpcCallContext() ctx: RpcContext) {
    return this.registry.create(req, ctx);
  }

  @MessagePattern(rpcPattern('UserRegistry.Get'))
  get(@RpcRequest() req: GetUserRequest) {
    return this.registry.get(req);
  }

  @MessagePattern(rpcPattern('UserRegistry.List'))
  list(@RpcRequest() req: ListUsersRequest) {
    return this.registry.list(req);
  }

  @MessagePattern(rpcPattern('UserRegistry.Update'))
  update(@RpcRequest() req: UpdateUserRequest, @RpcCallContext() ctx: RpcContext) {
    return this.registry.update(req, ctx);
  }

  @MessagePattern(rpcPattern('UserRegistry.Delete'))
  delete(@RpcRequest() req: UserIdentifiers, @RpcCallContext() ctx: RpcContext) {
    return this.registry.delete(req, ctx);
  }
}
