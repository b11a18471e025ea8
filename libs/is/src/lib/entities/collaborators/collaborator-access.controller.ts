import { Controller, type Type } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { type Collaborator, type OrganizationOrUserIdentifiers, type RpcContext, rpcPattern } from '@lorawan/api';
import { RpcCallContext, RpcRequest } from '@lorawan/component';
import { ACCESS_SERVICES, type Identified, requestedId } from '../../access/access-services';
import { CollaboratorService, type ListCollaboratorsRequest, type ManagedKind, type ManagedRef } from './collaborator.service';

function entity(kind: ManagedKind, req: Identified): ManagedRef {
  return { kind, id: requestedId(kind, req, true) };
}

/**
 * The collaborator RPCs of `ApplicationAccess`, `GatewayAccess`, `ClientAccess` and
 * `OrganizationAccess` (members; the rest of those services is the access side's
 * `entityAccessController`): one definition for every kind, each handler
 * delegating in one line to the CollaboratorService.
 */
export function collaboratorAccessController(kind: ManagedKind): Type<unknown> {
  const service = ACCESS_SERVICES[kind];

  @Controller()
  class CollaboratorAccessController {
    constructor(private readonly collaborators: CollaboratorService) {}

    @MessagePattern(rpcPattern(`${service}.ListCollaborators`))
    list(@RpcRequest() req: Identified & ListCollaboratorsRequest, @RpcCallContext() ctx: RpcContext) {
      return this.collaborators.list(entity(kind, req), req, ctx);
    }

    @MessagePattern(rpcPattern(`${service}.GetCollaborator`))
    get(@RpcRequest() req: Identified & { collaborator?: OrganizationOrUserIdentifiers }) {
      return this.collaborators.get(entity(kind, req), req.collaborator);
    }

    @MessagePattern(rpcPattern(`${service}.SetCollaborator`))
    set(@RpcRequest() req: Identified & { collaborator: Collaborator }, @RpcCallContext() ctx: RpcContext) {
      return this.collaborators.set(entity(kind, req), req.collaborator, ctx);
    }

    @MessagePattern(rpcPattern(`${service}.DeleteCollaborator`))
    delete(@RpcRequest() req: Identified & { collaborator_ids?: OrganizationOrUserIdentifiers }, @RpcCallContext() ctx: RpcContext) {
      return this.collaborators.delete(entity(kind, req), req.collaborator_ids, ctx);
    }
  }
  Object.defineProperty(CollaboratorAccessController, 'name', { value: `${service}CollaboratorsController` });
  return CollaboratorAccessController;
}
