import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { type RpcContext, rpcPattern, type TxAcknowledgmentRequest, type UplinkMessage } from '@lorawan/api';
import { RpcCallContext, RpcRequest } from '@lorawan/component';
import { TxAcknowledgments } from '../downlinks/tx-acknowledgments.service';
import { UplinkService } from './uplink.service';

/** `GsNs`: every copy of an uplink the Gateway Servers receive, and the gateways' TX acknowledgments. */
@Controller()
export class UplinksController {
  constructor(
    private readonly uplinks: UplinkService,
    private readonly txAcks: TxAcknowledgments,
  ) {}

  @MessagePattern(rpcPattern('GsNs.HandleUplink'))
  handleUplink(@RpcRequest() up: UplinkMessage, @RpcCallContext() ctx: RpcContext) {
    return this.uplinks.handle(up, ctx);
  }

  @MessagePattern(rpcPattern('GsNs.ReportTxAcknowledgment'))
  reportTxAcknowledgment(@RpcRequest() ack: TxAcknowledgmentRequest, @RpcCallContext() ctx: RpcContext) {
    return this.txAcks.report(ack, ctx);
  }
}
