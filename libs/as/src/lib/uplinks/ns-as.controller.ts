import { Controller, Inject } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { type NsAsHandleUplinkRequest, type RpcContext, rpcPattern } from '@lorawan/api';
import { RpcCallContext, RpcRequest } from '@lorawan/component';
import { NsUplinks } from './ns-uplinks.service';

/** NsAs.HandleUplink: the Network Server's application messages (join-accepts, data uplinks), delegated to NsUplinks. */
@Controller()
export class NsAsController {
  constructor(@Inject(NsUplinks) private readonly uplinks: NsUplinks) {}

  @MessagePattern(rpcPattern('NsAs.HandleUplink'))
  handleUplink(@RpcRequest() request: NsAsHandleUplinkRequest, @RpcCallContext() ctx: RpcContext) {
    return this.uplinks.handle(request, ctx);
  }
}
