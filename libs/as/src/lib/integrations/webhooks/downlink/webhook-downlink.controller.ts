import { Inject, Controller } from '@nestjs/common';
import { rpcPattern, type RpcContext, type WebhookDownlinkQueueRequest } from '@lorawan/api';
import { RpcCallContext, RpcRequest } from '@lorawan/component';
import { MessagePattern } from '@nestjs/microservices';
import { WebhookDownlinkQueue } from './webhook-downlink-queue.service';

/** AppAs.WebhookDownlinkQueuePush|Replace (wire contract §8.3): each delegates to the WebhookDownlinkQueue. */
@Controller()
export class WebhookDownlinkController {
  constructor(@Inject(WebhookDownlinkQueue) private readonly queue: WebhookDownlinkQueue) {}

  @MessagePattern(rpcPattern('AppAs.WebhookDownlinkQueuePush'))
  push(@RpcRequest() req: WebhookDownlinkQueueRequest, @RpcCallContext() ctx: RpcContext) {
    return this.queue.push(req, ctx);
  }

  @MessagePattern(rpcPattern('AppAs.WebhookDownlinkQueueReplace'))
  replace(@RpcRequest() req: WebhookDownlinkQueueRequest, @RpcCallContext() ctx: RpcContext) {
    return this.queue.replace(req, ctx);
  }
}
