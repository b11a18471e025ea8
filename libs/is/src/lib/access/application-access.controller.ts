import { Controller } from '@nestjs/common';
import { rpcPattern, type ApplicationIdentifiers, type CreateApplicationAPIKeyRequest, type DeleteApplicationAPIKeyRequest, type GetApplicationAPIKeyRequest, type ListApplicationAPIKeysRequest, type RpcContext, type UpdateApplicationAPIKeyRequest } from '@lorawan/api';
import { RpcCallContext, RpcRequest } from '@lorawan/component';
import { MessagePattern } from '@nestjs/microservices';
import { ApiKeyService, type KeyOwner } from './api-key.service';
import { EntityAccessService } from './entity-access.service';

const app = (application_id: string): KeyOwner => ({ kind: 'application', id: application_id });

/** ApplicationAccess RPC handlers (rights and API keys of an application): each delegates in one line. */
@Controller()
export class ApplicationAccessController {
  constructor(
    private readonly keys: ApiKeyService,
    private readonly access: EntityAccessService,
  ) {}

  @MessagePattern(rpcPattern('ApplicationAccess.ListRights'))
  listRights(@RpcRequest() req: ApplicationIdentifiers, @RpcCallContext() ctx: RpcContext) {
    return this.access.listRights(app(req.application_id), ctx);
  }

  @MessagePattern(rpcPattern('ApplicationAccess.CreateAPIKey'))
  createAPIKey(@RpcRequest() req: CreateApplicationAPIKeyRequest, @RpcCallContext() ctx: RpcContext) {
    return this.keys.create(app(req.application_ids.application_id), req, ctx);
  }

  @MessagePattern(rpcPattern('ApplicationAccess.ListAPIKeys'))
  listAPIKeys(@RpcRequest() req: ListApplicationAPIKeysRequest) {
    return this.keys.list(app(req.application_ids.application_id), req);
  }

  @MessagePattern(rpcPattern('ApplicationAccess.GetAPIKey'))
  getAPIKey(@RpcRequest() req: GetApplicationAPIKeyRequest) {
    return this.keys.get(app(req.application_ids.application_id), req.key_id);
  }

  @MessagePattern(rpcPattern('ApplicationAccess.UpdateAPIKey'))
  updateAPIKey(@RpcRequest() req: UpdateApplicationAPIKeyRequest, @RpcCallContext() ctx: RpcContext) {
    return this.keys.update(app(req.application_ids.application_id), req, ctx);
  }

  @MessagePattern(rpcPattern('ApplicationAccess.DeleteAPIKey'))
  deleteAPIKey(@RpcRequest() req: DeleteApplicationAPIKeyRequest, @RpcCallContext() ctx: RpcContext) {
    return this.keys.delete(app(req.application_ids.application_id), req.key_id, ctx);
  }
}
