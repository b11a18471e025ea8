import { Inject, Injectable } from '@nestjs/common';
import type { ApplicationUp, RpcContext } from '@lorawan/api';
import { RpcHandler } from '@lorawan/component';
import { SimulateUplink } from './simulate-uplink.service';

/** AppAs.SimulateUplink: delegates to the SimulateUplink service. */
@Injectable()
export class SimulateUplinkRpc {
  constructor(@Inject(SimulateUplink) private readonly simulator: SimulateUplink) {}

  @RpcHandler('AppAs.SimulateUplink')
  simulate(req: ApplicationUp, ctx: RpcContext) {
    return this.simulator.simulate(req, ctx);
  }
}
