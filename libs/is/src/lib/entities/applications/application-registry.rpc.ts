import { Injectable } from '@nestjs/common';
import type { ApplicationIdentifiers, CreateApplicationRequest, GetApplicationRequest, ListApplicationsRequest, RpcContext, UpdateApplicationRequest } from '@lorawan/api';
import { RpcHandler } from '@lorawan/component';
import { ApplicationRegistryService } from './application-registry.service';

/** ApplicationRegistry RPC handlers: each delegates in one line. */
@Injectable()
export class ApplicationRegistryRpc {
  constructor(private readonly registry: ApplicationRegistryService) {}

  @RpcHandler('ApplicationRegistry.Create')
  create(req: CreateApplicationRequest) {
    return this.registry.create(req);
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
  update(req: UpdateApplicationRequest) {
    return this.registry.update(req);
  }

  @RpcHandler('ApplicationRegistry.Delete')
  delete(req: ApplicationIdentifiers) {
    return this.registry.delete(req);
  }

  @RpcHandler('ApplicationRegistry.Restore')
  restore(req: ApplicationIdentifiers) {
    return this.registry.restore(req);
  }

  @RpcHandler('ApplicationRegistry.Purge')
  purge(req: ApplicationIdentifiers) {
    return this.registry.purge(req);
  }
}
