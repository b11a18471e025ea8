import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { type HandleJoinRequest, type RpcContext, rpcPattern } from '@lorawan/api';
import { RpcCallContext, RpcRequest } from '@lorawan/component';
import { JoinService } from './join.service';

/** `NsJs.HandleJoin`: the Network Server's join-requests. */
@Controller()
export class JoinController {
  constructor(private readonly joins: JoinService) {}

  @MessagePattern(rpcPattern('NsJs.HandleJoin'))
  handleJoin(@RpcRequest() request: HandleJoinRequest, @RpcCallContext() ctx: RpcContext) {
    return this.joins.handleJoin(request, ctx);
  }
}
