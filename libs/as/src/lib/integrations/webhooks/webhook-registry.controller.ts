import { Controller } from '@nestjs/common';
import {
  rpcPattern,
  type ApplicationWebhookIdentifiers,
  type GetApplicationWebhookRequest,
  type ListApplicationWebhooksRequest,
  type RpcContext,
  type SetApplicationWebhookRequest,
} from '@lorawan/api';
import { RpcCallContext, RpcRequest } from '@lorawan/component';
import { MessagePattern } from '@nestjs/microservices';
import { WebhookRegistryService } from './webhook-registry.service';

/** The ApplicationWebhookRegistry's RPC handlers: each delegates in one line. */
@Controller()
export class WebhookRegistryController {
  constructor(private readonly registry: WebhookRegistryService) {}

  @MessagePattern(rpcPattern('ApplicationWebhookRegistry.GetFormats'))
  getFormats() {
    return this.registry.getFormats();
  }

  @MessagePattern(rpcPattern('ApplicationWebhookRegistry.List'))
  list(@RpcRequest() req: ListApplicationWebhooksRequest, @RpcCallContext() ctx: RpcContext) {
    return this.registry.list(req, ctx);
  }

  @MessagePattern(rpcPattern('ApplicationWebhookRegistry.Get'))
  get(@RpcRequest() req: GetApplicationWebhookRequest, @RpcCallContext() ctx: RpcContext) {
    return this.registry.get(req, ctx);
  }

  @MessagePattern(rpcPattern('ApplicationWebhookRegistry.Set'))
  set(@RpcRequest() req: SetApplicationWebhookRequest, @RpcCallContext() ctx: RpcContext) {
    return this.registry.set(req, ctx);
  }

  @MessagePattern(rpcPattern('ApplicationWebhookRegistry.Delete'))
  delete(@RpcRequest() req: ApplicationWebhookIdentifiers) {
    return this.registry.delete(req);
  }
}
