import { Inject, Injectable } from '@nestjs/common';
import type { DownlinkQueueRequest, EndDeviceIdentifiers, RpcContext, WebhookDownlinkQueueRequest } from '@lorawan/api';
import { RpcHandler } from '@lorawan/component';
import { DownlinkQueue } from './downlink-queue.service';
import { WebhookDownlinkQueue } from './webhook-downlink-queue.service';

/** AppAs.DownlinkQueuePush|Replace|List: each delegates to the DownlinkQueue. */
@Injectable()
export class AppAsRpc {
  constructor(@Inject(DownlinkQueue) private readonly queue: DownlinkQueue) {}

  @RpcHandler('AppAs.DownlinkQueuePush')
  push(req: DownlinkQueueRequest, ctx: RpcContext) {
    return this.queue.push(req, ctx);
  }

  @RpcHandler('AppAs.DownlinkQueueReplace')
  replace(req: DownlinkQueueRequest, ctx: RpcContext) {
    return this.queue.replace(req, ctx);
  }

  @RpcHandler('AppAs.DownlinkQueueList')
  list(req: EndDeviceIdentifiers) {
    return this.queue.list(req);
  }
}

/** AppAs.WebhookDownlinkQueuePush|Replace (wire contract §8.3): each delegates to the WebhookDownlinkQueue. */
@Injectable()
export class WebhookDownlinkRpc {
  constructor(@Inject(WebhookDownlinkQueue) private readonly queue: WebhookDownlinkQueue) {}

  @RpcHandler('AppAs.WebhookDownlinkQueuePush')
  push(req: WebhookDownlinkQueueRequest, ctx: RpcContext) {
    return this.queue.push(req, ctx);
  }

  @RpcHandler('AppAs.WebhookDownlinkQueueReplace')
  replace(req: WebhookDownlinkQueueRequest, ctx: RpcContext) {
    return this.queue.replace(req, ctx);
  }
}
