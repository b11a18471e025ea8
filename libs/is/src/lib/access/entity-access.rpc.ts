import { Injectable } from '@nestjs/common';
import type { AuthorizeRequest, RpcContext } from '@lorawan/api';
import { RpcHandler } from '@lorawan/component';
import { EntityAccessService } from './entity-access.service';

/** EntityAccess RPC handlers: each delegates in one line. */
@Injectable()
export class EntityAccessRpc {
  constructor(private readonly access: EntityAccessService) {}

  @RpcHandler('EntityAccess.Authorize')
  authorize(req: AuthorizeRequest) {
    return this.access.authorize(req);
  }

  @RpcHandler('EntityAccess.AuthInfo')
  authInfo(_req: object, ctx: RpcContext) {
    return this.access.authInfo(ctx);
  }
}
