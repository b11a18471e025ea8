import { Controller } from '@nestjs/common';
import {
  type ClientIdentifiers,
  type CreateClientRequest,
  type GetClientRequest,
  type ListClientsRequest,
  rpcPattern,
  type RpcContext,
  type UpdateClientRequest,
} from '@lorawan/api';
import { RpcCallContext, RpcRequest } from '@lorawan/component';
import { MessagePattern } from '@nestjs/microservices';
import { ClientRegistryService } from './client-registry.service';

/** ClientRegistry RPC handlers: each delegates in one line. */
@Controller()
export class ClientRegistryController {
  constructor(private readonly registry: ClientRegistryService) {}

  @MessagePattern(rpcPattern('ClientRegistry.Create'))
  create(@RpcRequest() req: CreateClientRequest, @RpcCallContext() ctx: RpcContext) {
    return this.registry.create(req, ctx);
  }

  @MessagePattern(rpcPattern('ClientRegistry.Get'))
  get(@RpcRequest() req: GetClientRequest) {
    return this.registry.get(req);
  }

  @MessagePattern(rpcPattern('ClientRegistry.List'))
  list(@RpcRequest() req: ListClientsRequest, @RpcCallContext() ctx: RpcContext) {
    return this.registry.list(req, ctx.caller);
  }

  @MessagePattern(rpcPattern('ClientRegistry.Update'))
  update(@RpcRequest() req: UpdateClientRequest, @RpcCallContext() ctx: RpcContext) {
    return this.registry.update(req, ctx);
  }

  @MessagePattern(rpcPattern('ClientRegistry.Delete'))
  delete(@RpcRequest() req: ClientIdentifiers, @RpcCallContext() ctx: RpcContext) {
    return this.registry.delete(req, ctx);
  }

  @MessagePattern(rpcPattern('ClientRegistry.Restore'))
  restore(@RpcRequest() req: ClientIdentifiers, @RpcCallContext() ctx: RpcContext) {
    return this.registry.restore(req, ctx);
  }

  @MessagePattern(rpcPattern('ClientRegistry.Purge'))
  purge(@RpcRequest() req: ClientIdentifiers, @RpcCallContext() ctx: RpcContext) {
    return this.registry.purge(req, ctx);
  }
}
