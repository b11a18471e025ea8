import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { type RpcContext, rpcPattern, type ScheduleDownlinkRequest, type ScheduleDownlinkResponse } from '@lorawan/api';
import { RpcCallContext, RpcRequest } from '@lorawan/component';
import { DownlinksService } from './downlinks.service';

/** `NsGs.ScheduleDownlink`: served on the subject of each gateway this replica holds (see GatewayServerService). */
@Controller()
export class DownlinksController {
  constructor(private readonly downlinks: DownlinksService) {}

  @MessagePattern(rpcPattern('NsGs.ScheduleDownlink'))
  scheduleDownlink(@RpcRequest() request: ScheduleDownlinkRequest, @RpcCallContext() ctx: RpcContext): ScheduleDownlinkResponse {
    return this.downlinks.schedule(request, ctx);
  }
}
