import { SetMetadata } from '@nestjs/common';
import type { RpcName } from '@lorawan/api';

export const RPC_HANDLER = Symbol('RPC_HANDLER');

/** Marks a provider method as the handler of an RPC of the table; the RpcServer subscribes it. */
export const RpcHandler = (name: RpcName) => SetMetadata(RPC_HANDLER, name);

/** A handler result with a total count (List RPCs: becomes `X-Total-Count`). */
export class WithTotal<T> {
  constructor(
    readonly body: T,
    readonly total: number,
  ) {}
}
