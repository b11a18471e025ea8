import { Controller } from '@nestjs/common';
import { rpcPattern, type AuthorizeRequest, type RpcContext } from '@lorawan/api';
import { RpcCallContext, RpcRequest } from '@lorawan/component';
import { MessagePattern } from '@nestjs/microservices';
import { EntityAccessService } from './entity-access.service';

/** EntityAccess RPC handlers: each delegates in one line. */
@Controller()
export class EntityAccessController {
  constructor(private readonly access: EntityAccessService) {}

  @MessagePattern(rpcPattern('EntityAccess.Authorize'))
  authorize(@RpcRequest() req: AuthorizeRequest) {
    return this.access.authorize(req);
  }

  @MessagePattern(rpcPattern('EntityAccess.AuthInfo'))
  authInfo(@RpcCallContext() ctx: RpcContext) {
    return this.access.authInfo(ctx);
  }
}
