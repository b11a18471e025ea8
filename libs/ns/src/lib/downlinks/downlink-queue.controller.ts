import { Controller, Inject } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { type AsNsDownlinkQueueRequest, type EndDeviceIdentifiers, rpcPattern } from '@lorawan/api';
import { RpcRequest } from '@lorawan/component';
import { NsDownlinkQueue } from './downlink-queue.service';

/** `AsNs.DownlinkQueuePush|Replace|List`: the Application Server's downlinks, delegated to NsDownlinkQueue. */
@Controller()
export class AsNsController {
  constructor(@Inject(NsDownlinkQueue) private readonly queue: NsDownlinkQueue) {}

  @MessagePattern(rpcPattern('AsNs.DownlinkQueuePush'))
  push(@RpcRequest() req: AsNsDownlinkQueueRequest) {
    return this.queue.push(req);
  }

  @MessagePattern(rpcPattern('AsNs.DownlinkQueueReplace'))
  replace(@RpcRequest() req: AsNsDownlinkQueueRequest) {
    return this.queue.replace(req);
  }

  @MessagePattern(rpcPattern('AsNs.DownlinkQueueList'))
  list(@RpcRequest() req: EndDeviceIdentifiers) {
    return this.queue.list(req);
  }
}
