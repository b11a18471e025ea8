import { Injectable } from '@nestjs/common';
import type { ApplicationIdentifiers, CreateApplicationRequest, GetApplicationRequest, ListApplicationsRequest, RpcContext, UpdateApplicationRequest } from '@lorawan/api';
import { RpcHandler } from '@lorawan/component';
import { ApplicationRegistryService } from './application-registry.service';

/** ApplicationRegistry RPC handlers: each delegates in one line. */
@Injectable()
export class ApplicationRegistryRpc {
  constructor(private readonly registry: ApplicationRegistryService) {}

  @RpcHandler('ApplicationRegistry.Create')
  create(req: CreateApplicationRequest, ctx: RpcContext) {
    return this.registry.create(req, ctx);
  }

  @RpcHandler('ApplicationRegistry.Get')
  get(req: GetApplicationRequest) {
    return this.registry.get(req);
  }

  @RpcHandler('ApplicationRegistry.List')
  list(req: ListApplicationsRequest, ctx: RpcContext) {
    return this.registry.list(req, ctx.caller);
  }

  @RpcHandler('ApplicationRegistry.Update')
  update(req: UpdateApplicationRequest, ctx: RpcContext) {
    return this.registry.update(req, ctx);
  }

  @RpcHandler('ApplicationRegistry.Delete')
  delete(req: ApplicationIdentifiers, ctx: RpcContext) {
    return this.registry.delete(req, ctx);
  }

  @RpcHandler('ApplicationRegistry.Restore')
  restore(req: ApplicationIdentifiers, ctx: RpcContext) {
    return this.registry.restore(req, ctx);
  }

  @RpcHandler('ApplicationRegistry.Purge')
  purge(req: ApplicationIdentifiers, ctx: RpcContext) {
    return this.registry.purge(req, ctx);
  }
}
