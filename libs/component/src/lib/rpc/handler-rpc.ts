import type { ExecutionContext } from '@nestjs/common';
import { PATTERN_METADATA } from '@nestjs/microservices/constants';
import { rpcBySubject, type RpcDefinition } from '@lorawan/api';

const cache = new WeakMap<object, RpcDefinition | null>();

/**
 * The RPC of the table a handler serves, from its `@MessagePattern` (the RPC's subject); undefined
 * for handlers that are not RPCs of the table (the health check).
 */
export function rpcOfHandler(handler: object): RpcDefinition | undefined {
  let rpc = cache.get(handler);
  if (rpc === undefined) {
    const patterns = Reflect.getMetadata(PATTERN_METADATA, handler) as unknown[] | undefined;
    rpc = (patterns?.length === 1 && typeof patterns[0] === 'string' ? rpcBySubject(patterns[0]) : undefined) ?? null;
    cache.set(handler, rpc);
  }
  return rpc ?? undefined;
}

export function rpcOf(context: ExecutionContext): RpcDefinition | undefined {
  return rpcOfHandler(context.getHandler());
}
