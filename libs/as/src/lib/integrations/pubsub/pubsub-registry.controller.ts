import { Controller } from '@nestjs/common';
import {
  rpcPattern,
  type ApplicationPubSubIdentifiers,
  type GetApplicationPubSubRequest,
  type ListApplicationPubSubsRequest,
  type RpcContext,
  type SetApplicationPubSubRequest,
} from '@lorawan/api';
import { RpcCallContext, RpcRequest } from '@lorawan/component';
import { MessagePattern } from '@nestjs/microservices';
import { PubSubRegistryService } from './pubsub-registry.service';

/** The ApplicationPubSubRegistry's RPC handlers: each delegates in one line. */
@Controller()
export class PubSubRegistryController {
  constructor(private readonly registry: PubSubRegistryService) {}

  @MessagePattern(rpcPattern('ApplicationPubSubRegistry.GetFormats'))
  getFormats() {
    return this.registry.getFormats();
  }

  @MessagePattern(rpcPattern('ApplicationPubSubRegistry.List'))
  list(@RpcRequest() req: ListApplicationPubSubsRequest, @RpcCallContext() ctx: RpcContext) {
    return this.registry.list(req, ctx);
  }

  @MessagePattern(rpcPattern('ApplicationPubSubRegistry.Get'))
  get(@RpcRequest() req: GetApplicationPubSubRequest, @RpcCallContext() ctx: RpcContext) {
    return this.registry.get(req, ctx);
  }

  @MessagePattern(rpcPattern('ApplicationPubSubRegistry.Set'))
  set(@RpcRequest() req: SetApplicationPubSubRequest, @RpcCallContext() ctx: RpcContext) {
    return this.registry.set(req, ctx);
  }

  @MessagePattern(rpcPattern('ApplicationPubSubRegistry.Delete'))
  delete(@RpcRequest() req: ApplicationPubSubIdentifiers, @RpcCallContext() ctx: RpcContext) {
    return this.registry.delete(req, ctx);
  }
}
