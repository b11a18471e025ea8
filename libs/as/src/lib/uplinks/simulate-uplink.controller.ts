import { Inject, Controller } from '@nestjs/common';
import { rpcPattern, type ApplicationUp, type RpcContext } from '@lorawan/api';
import { RpcCallContext, RpcRequest } from '@lorawan/component';
import { MessagePattern } from '@nestjs/microservices';
import { SimulateUplink } from './simulate-uplink.service';

/** AppAs.SimulateUplink: delegates to the SimulateUplink service. */
@Controller()
export class SimulateUplinkController {
  constructor(@Inject(SimulateUplink) private readonly simulator: SimulateUplink) {}

  @MessagePattern(rpcPattern('AppAs.SimulateUplink'))
  simulate(@RpcRequest() req: ApplicationUp, @RpcCallContext() ctx: RpcContext) {
    return this.simulator.simulate(req, ctx);
  }
}
