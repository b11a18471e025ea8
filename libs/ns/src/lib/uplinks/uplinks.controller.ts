import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { type RpcContext, rpcPattern, type UplinkMessage } from '@lorawan/api';
import { RpcCallContext, RpcRequest } from '@lorawan/component';
import { UplinkService } from './uplink.service';

/** `GsNs.HandleUplink`: every copy of an uplink the Gateway Servers receive. */
@Controller()
export class UplinksController {
  constructor(private readonly uplinks: UplinkService) {}

  @MessagePattern(rpcPattern('GsNs.HandleUplink'))
  handleUplink(@RpcRequest() up: UplinkMessage, @RpcCallContext() ctx: RpcContext) {
    return this.uplinks.handle(up, ctx);
  }
}
