import { Controller } from '@nestjs/common';
import {
  rpcPattern,
  type CreateOrganizationRequest,
  type GetOrganizationRequest,
  type ListOrganizationsRequest,
  type OrganizationIdentifiers,
  type RpcContext,
  type UpdateOrganizationRequest,
} from '@lorawan/api';
import { RpcCallContext, RpcRequest } from '@lorawan/component';
import { MessagePattern } from '@nestjs/microservices';
import { OrganizationRegistryService } from './organization-registry.service';

/** OrganizationRegistry RPC handlers: each delegates in one line. */
@Controller()
export class OrganizationRegistryController {
  constructor(private readonly registry: OrganizationRegistryService) {}

  @MessagePattern(rpcPattern('OrganizationRegistry.Create'))
  create(@RpcRequest() req: CreateOrganizationRequest, @RpcCallContext() ctx: RpcContext) {
    return this.registry.create(req, ctx);
  }

  @MessagePattern(rpcPattern('OrganizationRegistry.Get'))
  get(@RpcRequest() req: GetOrganizationRequest) {
    return this.registry.get(req);
  }

  @MessagePattern(rpcPattern('OrganizationRegistry.List'))
  list(@RpcRequest() req: ListOrganizationsRequest, @RpcCallContext() ctx: RpcContext) {
    return this.registry.list(req, ctx.caller);
  }

  @MessagePattern(rpcPattern('OrganizationRegistry.Update'))
  update(@RpcRequest() req: UpdateOrganizationRequest, @RpcCallContext() ctx: RpcContext) {
    return this.registry.update(req, ctx);
  }

  @MessagePattern(rpcPattern('OrganizationRegistry.Delete'))
  delete(@RpcRequest() req: OrganizationIdentifiers, @RpcCallContext() ctx: RpcContext) {
    return this.registry.delete(req, ctx);
  }

  @MessagePattern(rpcPattern('OrganizationRegistry.Restore'))
  restore(@RpcRequest() req: OrganizationIdentifiers, @RpcCallContext() ctx: RpcContext) {
    return this.registry.restore(req, ctx);
  }

  @MessagePattern(rpcPattern('OrganizationRegistry.Purge'))
  purge(@RpcRequest() req: OrganizationIdentifiers, @RpcCallContext() ctx: RpcContext) {
    return this.registry.purge(req, ctx);
  }
}
