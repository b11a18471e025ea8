import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { type RpcContext, rpcPattern, type ScheduleDownlinkRequest } from '@lorawan/api';
import { RpcCallContext, RpcRequest } from '@lorawan/component';
import { GatewayServerService } from './gateway-server.service';

/** `NsGs.ScheduleDownlink`: served on the subject of each gateway this replica holds (see GatewayServerService). */
@Controller()
export class DownlinksController {
  constructor(private readonly gs: GatewayServerService) {}

  @MessagePattern(rpcPattern('NsGs.ScheduleDownlink'))
  scheduleDownlink(@RpcRequest() request: ScheduleDownlinkRequest, @RpcCallContext() ctx: RpcContext) {
    return this.gs.scheduleDownlink(request, ctx);
  }
}
