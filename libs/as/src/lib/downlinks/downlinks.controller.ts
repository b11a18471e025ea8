import { Inject, Controller } from '@nestjs/common';
import { rpcPattern, type DownlinkQueueRequest, type EndDeviceIdentifiers, type RpcContext } from '@lorawan/api';
import { RpcCallContext, RpcRequest } from '@lorawan/component';
import { MessagePattern } from '@nestjs/microservices';
import { DownlinkQueue } from './downlink-queue.service';

/** AppAs.DownlinkQueuePush|Replace|List: each delegates to the DownlinkQueue. */
@Controller()
export class AppAsController {
  constructor(@Inject(DownlinkQueue) private readonly queue: DownlinkQueue) {}

  @MessagePattern(rpcPattern('AppAs.DownlinkQueuePush'))
  push(@RpcRequest() req: DownlinkQueueRequest, @RpcCallContext() ctx: RpcContext) {
    return this.queue.push(req, ctx);
  }

  @MessagePattern(rpcPattern('AppAs.DownlinkQueueReplace'))
  replace(@RpcRequest() req: DownlinkQueueRequest, @RpcCallContext() ctx: RpcContext) {
    return this.queue.replace(req, ctx);
  }

  @MessagePattern(rpcPattern('AppAs.DownlinkQueueList'))
  list(@RpcRequest() req: EndDeviceIdentifiers, @RpcCallContext() ctx: RpcContext) {
    return this.queue.list(req, ctx);
  }
}
