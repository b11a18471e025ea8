import { Controller, type Type } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { type RpcContext, rpcPattern } from '@lorawan/api';
import { RpcCallContext, RpcRequest } from '@lorawan/component';
import { ApiKeyService, type CreateRequest, type KeyOwner, type ListRequest, type UpdateRequest } from './api-key.service';
import { ACCESS_SERVICES, type Identified, requestedId } from './access-services';
import { EntityAccessService } from './entity-access.service';

type Kind = KeyOwner['kind'];

function owner(kind: Kind, req: Identified, nested: boolean): KeyOwner {
  return { kind, id: requestedId(kind, req, nested) };
}

/**
 * The `<Entity>Access` RPC handlers (rights and API keys of an application, gateway, user or
 * organization): one definition for the four services, whose operations differ only in the entity, each delegating
 * in one line to the ApiKeyService or the EntityAccessService.
 */
export function entityAccessController(kind: Kind): Type<unknown> {
  const service = ACCESS_SERVICES[kind];

  @Controller()
  class EntityKindAccessController {
    constructor(
      private readonly keys: ApiKeyService,
      private readonly access: EntityAccessService,
    ) {}

    @MessagePattern(rpcPattern(`${service}.ListRights`))
    listRights(@RpcRequest() req: Identified, @RpcCallContext() ctx: RpcContext) {
      return this.access.listRights(owner(kind, req, false), ctx);
    }

    @MessagePattern(rpcPattern(`${service}.CreateAPIKey`))
    createAPIKey(@RpcRequest() req: Identified & CreateRequest, @RpcCallContext() ctx: RpcContext) {
      return this.keys.create(owner(kind, req, true), req, ctx);
    }

    @MessagePattern(rpcPattern(`${service}.ListAPIKeys`))
    listAPIKeys(@RpcRequest() req: Identified & ListRequest) {
      return this.keys.list(owner(kind, req, true), req);
    }

    @MessagePattern(rpcPattern(`${service}.GetAPIKey`))
    getAPIKey(@RpcRequest() req: Identified & { key_id: string }) {
      return this.keys.get(owner(kind, req, true), req.key_id);
    }

    @MessagePattern(rpcPattern(`${service}.UpdateAPIKey`))
    updateAPIKey(@RpcRequest() req: Identified & UpdateRequest, @RpcCallContext() ctx: RpcContext) {
      return this.keys.update(owner(kind, req, true), req, ctx);
    }

    @MessagePattern(rpcPattern(`${service}.DeleteAPIKey`))
    deleteAPIKey(@RpcRequest() req: Identified & { key_id: string }, @RpcCallContext() ctx: RpcContext) {
      return this.keys.delete(owner(kind, req, true), req.key_id, ctx);
    }
  }
  Object.defineProperty(EntityKindAccessController, 'name', { value: `${service}Controller` });
  return EntityKindAccessController;
}
