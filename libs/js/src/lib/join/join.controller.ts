import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { type HandleJoinRequest, type RpcContext, rpcPattern, type SessionKeyRequest } from '@lorawan/api';
import { RpcCallContext, RpcRequest } from '@lorawan/component';
import { JoinService } from './join.service';

/** `NsJs.HandleJoin` (the Network Server's join-requests) and `AsJs.GetAppSKey` (an Application Server's session keys). */
@Controller()
export class JoinController {
  constructor(private readonly joins: JoinService) {}

  @MessagePattern(rpcPattern('NsJs.HandleJoin'))
  handleJoin(@RpcRequest() request: HandleJoinRequest, @RpcCallContext() ctx: RpcContext) {
    return this.joins.handleJoin(request, ctx);
  }

  @MessagePattern(rpcPattern('AsJs.GetAppSKey'))
  appSKey(@RpcRequest() request: SessionKeyRequest) {
    return this.joins.appSKey(request);
  }
}
