import { Controller } from '@nestjs/common';
import {
  rpcPattern,
  type ApplicationIdentifiers,
  type CreateApplicationRequest,
  type GetApplicationRequest,
  type ListApplicationsRequest,
  type RpcContext,
  type UpdateApplicationRequest,
} from '@lorawan/api';
import { RpcCallContext, RpcRequest } from '@lorawan/component';
import { MessagePattern } from '@nestjs/microservices';
import { ApplicationRegistryService } from './application-registry.service';

/** ApplicationRegistry RPC handlers: each delegates in one line. */
@Controller()
export class ApplicationRegistryController {
  constructor(private readonly registry: ApplicationRegistryService) {}

  @MessagePattern(rpcPattern('ApplicationRegistry.Create'))
  create(@RpcRequest() req: CreateApplicationRequest, @RpcCallContext() ctx: RpcContext) {
    return this.registry.create(req, ctx);
  }

  @MessagePattern(rpcPattern('ApplicationRegistry.Get'))
  get(@RpcRequest() req: GetApplicationRequest) {
    return this.registry.get(req);
  }

  @MessagePattern(rpcPattern('ApplicationRegistry.List'))
  list(@RpcRequest() req: ListApplicationsRequest, @RpcCallContext() ctx: RpcContext) {
    return this.registry.list(req, ctx.caller);
  }

  @MessagePattern(rpcPattern('ApplicationRegistry.Update'))
  update(@RpcRequest() req: UpdateApplicationRequest, @RpcCallContext() ctx: RpcContext) {
    return this.registry.update(req, ctx);
  }

  @MessagePattern(rpcPattern('ApplicationRegistry.Delete'))
  delete(@RpcRequest() req: ApplicationIdentifiers, @RpcCallContext() ctx: RpcContext) {
    return this.registry.delete(req, ctx);
  }

  @MessagePattern(rpcPattern('ApplicationRegistry.Restore'))
  restore(@RpcRequest() req: ApplicationIdentifiers, @RpcCallContext() ctx: RpcContext) {
    return this.registry.restore(req, ctx);
  }

  @MessagePattern(rpcPattern('ApplicationRegistry.Purge'))
  purge(@RpcRequest() req: ApplicationIdentifiers, @RpcCallContext() ctx: RpcContext) {
    return this.registry.purge(req, ctx);
  }
}
