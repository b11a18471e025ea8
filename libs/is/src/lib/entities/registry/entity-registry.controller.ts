import { Controller, Inject, type Type } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { type CallerIdentity, type EntityKind, type RpcContext, rpcPattern } from '@lorawan/api';
import { RpcCallContext, RpcRequest } from '@lorawan/component';
import type { CollaboratedRegistryName, CreateRequestOf, GetRequestOf, IdsOf, ListRequestOf, RegistryName, UpdateRequestOf } from './entity-kind';

/** The operations every entity registry serves. */
export interface RegistryOperations<K extends EntityKind, W> {
  create(req: CreateRequestOf<K, W>, ctx: RpcContext): Promise<unknown>;
  get(req: GetRequestOf<K>): Promise<unknown>;
  list(req: ListRequestOf, caller: CallerIdentity | undefined): Promise<unknown>;
  update(req: UpdateRequestOf<K, W>, ctx: RpcContext): Promise<unknown>;
  delete(ids: IdsOf<K>, ctx: RpcContext): Promise<unknown>;
}

/** …and those of the registries of kinds with collaborators. */
export interface CollaboratedRegistryOperations<K extends EntityKind, W> extends RegistryOperations<K, W> {
  restore(ids: IdsOf<K>, ctx: RpcContext): Promise<unknown>;
  purge(ids: IdsOf<K>, ctx: RpcContext): Promise<unknown>;
}

/**
 * The `<Kind>Registry` RPC handlers of an entity kind (TTS `<kind>_registry.go`'s gRPC methods):
 * one definition for every kind, named by its declaration, each handler delegating in one line to
 * the kind's service.
 */
export function entityRegistryController<K extends EntityKind, W>(
  { registry }: { registry: RegistryName },
  service: Type<RegistryOperations<K, W>>,
): Type<unknown> {
  const controller = registryController(registry, service);
  Object.defineProperty(controller, 'name', { value: `${registry}Controller` });
  return controller;
}

function registryController<K extends EntityKind, W>(registry: RegistryName, service: Type<RegistryOperations<K, W>>) {
  @Controller()
  class EntityRegistryController {
    constructor(@Inject(service) readonly registry: RegistryOperations<K, W>) {}

    @MessagePattern(rpcPattern(`${registry}.Create`))
    create(@RpcRequest() req: CreateRequestOf<K, W>, @RpcCallContext() ctx: RpcContext) {
      return this.registry.create(req, ctx);
    }

    @MessagePattern(rpcPattern(`${registry}.Get`))
    get(@RpcRequest() req: GetRequestOf<K>) {
      return this.registry.get(req);
    }

    @MessagePattern(rpcPattern(`${registry}.List`))
    list(@RpcRequest() req: ListRequestOf, @RpcCallContext() ctx: RpcContext) {
      return this.registry.list(req, ctx.caller);
    }

    @MessagePattern(rpcPattern(`${registry}.Update`))
    update(@RpcRequest() req: UpdateRequestOf<K, W>, @RpcCallContext() ctx: RpcContext) {
      return this.registry.update(req, ctx);
    }

    @MessagePattern(rpcPattern(`${registry}.Delete`))
    delete(@RpcRequest() req: IdsOf<K>, @RpcCallContext() ctx: RpcContext) {
      return this.registry.delete(req, ctx);
    }
  }
  return EntityRegistryController;
}

/** The same for a kind with collaborators, with Restore and Purge. */
export function collaboratedRegistryController<K extends EntityKind, W>(
  { registry }: { registry: CollaboratedRegistryName },
  service: Type<CollaboratedRegistryOperations<K, W>>,
): Type<unknown> {
  @Controller()
  class CollaboratedRegistryController extends registryController(registry, service) {
    constructor(@Inject(service) override readonly registry: CollaboratedRegistryOperations<K, W>) {
      super(registry);
    }

    @MessagePattern(rpcPattern(`${registry}.Restore`))
    restore(@RpcRequest() req: IdsOf<K>, @RpcCallContext() ctx: RpcContext) {
      return this.registry.restore(req, ctx);
    }

    @MessagePattern(rpcPattern(`${registry}.Purge`))
    purge(@RpcRequest() req: IdsOf<K>, @RpcCallContext() ctx: RpcContext) {
      return this.registry.purge(req, ctx);
    }
  }
  Object.defineProperty(CollaboratedRegistryController, 'name', { value: `${registry}Controller` });
  return CollaboratedRegistryController;
}
