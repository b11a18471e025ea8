import { Injectable } from '@nestjs/common';
import type { ApplicationWebhookIdentifiers, GetApplicationWebhookRequest, ListApplicationWebhooksRequest, RpcContext, SetApplicationWebhookRequest } from '@lorawan/api';
import { RpcHandler } from '@lorawan/component';
import { WebhookRegistryService } from './webhook-registry.service';

/** The ApplicationWebhookRegistry's RPC handlers: each delegates in one line. */
@Injectable()
export class WebhookRegistryRpc {
  constructor(private readonly registry: WebhookRegistryService) {}

  @RpcHandler('ApplicationWebhookRegistry.GetFormats')
  getFormats() {
    return this.registry.getFormats();
  }

  @RpcHandler('ApplicationWebhookRegistry.List')
  list(req: ListApplicationWebhooksRequest, ctx: RpcContext) {
    return this.registry.list(req, ctx);
  }

  @RpcHandler('ApplicationWebhookRegistry.Get')
  get(req: GetApplicationWebhookRequest, ctx: RpcContext) {
    return this.registry.get(req, ctx);
  }

  @RpcHandler('ApplicationWebhookRegistry.Set')
  set(req: SetApplicationWebhookRequest, ctx: RpcContext) {
    return this.registry.set(req, ctx);
  }

  @RpcHandler('ApplicationWebhookRegistry.Delete')
  delete(req: ApplicationWebhookIdentifiers) {
    return this.registry.delete(req);
  }
}
