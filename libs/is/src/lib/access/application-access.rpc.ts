import { Injectable } from '@nestjs/common';
import type {
  ApplicationIdentifiers,
  CreateApplicationAPIKeyRequest,
  DeleteApplicationAPIKeyRequest,
  GetApplicationAPIKeyRequest,
  ListApplicationAPIKeysRequest,
  RpcContext,
  UpdateApplicationAPIKeyRequest,
} from '@lorawan/api';
import { RpcHandler } from '@lorawan/component';
import { ApiKeyService, type KeyOwner } from './api-key.service';
import { EntityAccessService } from './entity-access.service';

const app = (application_id: string): KeyOwner => ({ kind: 'application', id: application_id });

/** ApplicationAccess RPC handlers (rights and API keys of an application): each delegates in one line. */
@Injectable()
export class ApplicationAccessRpc {
  constructor(
    private readonly keys: ApiKeyService,
    private readonly access: EntityAccessService,
  ) {}

  @RpcHandler('ApplicationAccess.ListRights')
  listRights(req: ApplicationIdentifiers, ctx: RpcContext) {
    return this.access.listRights(app(req.application_id), ctx);
  }

  @RpcHandler('ApplicationAccess.CreateAPIKey')
  createAPIKey(req: CreateApplicationAPIKeyRequest, ctx: RpcContext) {
    return this.keys.create(app(req.application_ids.application_id), req, ctx);
  }

  @RpcHandler('ApplicationAccess.ListAPIKeys')
  listAPIKeys(req: ListApplicationAPIKeysRequest) {
    return this.keys.list(app(req.application_ids.application_id), req);
  }

  @RpcHandler('ApplicationAccess.GetAPIKey')
  getAPIKey(req: GetApplicationAPIKeyRequest) {
    return this.keys.get(app(req.application_ids.application_id), req.key_id);
  }

  @RpcHandler('ApplicationAccess.UpdateAPIKey')
  updateAPIKey(req: UpdateApplicationAPIKeyRequest, ctx: RpcContext) {
    return this.keys.update(app(req.application_ids.application_id), req, ctx);
  }

  @RpcHandler('ApplicationAccess.DeleteAPIKey')
  deleteAPIKey(req: DeleteApplicationAPIKeyRequest, ctx: RpcContext) {
    return this.keys.delete(app(req.application_ids.application_id), req.key_id, ctx);
  }
}
