import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import type { RpcEnvelope } from '@lorawan/transport';
import { rpcOf } from './handler-rpc';
import { RequestDecoder } from './request-decoder';
import { requireRights } from './rights';

/**
 * Components enforce rights themselves (the gateway is not the only line of defence): the caller
 * the gateway attached needs the rights the RPC table names for the RPC and for the request's
 * field mask. A refusal is the TTS rights error (`no_<kind>_rights`, `insufficient_<kind>_rights`).
 * The request is validated first (as TTS's validator middleware runs before its handlers' rights
 * checks), through the decoder the request pipe shares.
 */
@Injectable()
export class RightsGuard implements CanActivate {
  constructor(private readonly decoder: RequestDecoder) {}

  canActivate(context: ExecutionContext): boolean {
    const rpc = rpcOf(context);
    if (!rpc) return true;
    const envelope = context.switchToRpc().getData<RpcEnvelope>();
    requireRights(envelope?.ctx ?? { request_id: '', correlation_ids: [] }, rpc, this.decoder.decode(rpc, envelope?.body));
    return true;
  }
}
