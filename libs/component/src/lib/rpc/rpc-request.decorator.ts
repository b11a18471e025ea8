import { createParamDecorator, type ExecutionContext, Injectable, type PipeTransform } from '@nestjs/common';
import type { RpcDefinition } from '@lorawan/api';
import type { RpcEnvelope } from '@lorawan/transport';
import { rpcOf } from './handler-rpc';
import { RequestDecoder } from './request-decoder';

/** The body of a request with the RPC it was sent to: what the decode pipe turns into the request message. */
export interface ReceivedRequest {
  rpc: RpcDefinition;
  body: unknown;
}

/** Decodes and validates the request into its contract class (from the RPC table): a validation error is a `pkg/errors:validation` reply. */
@Injectable()
export class DecodeRequestPipe implements PipeTransform<ReceivedRequest, object> {
  constructor(private readonly decoder: RequestDecoder) {}

  transform(received: ReceivedRequest): object {
    return this.decoder.decode(received.rpc, received.body);
  }
}

const receivedRequest = createParamDecorator((_: unknown, context: ExecutionContext): ReceivedRequest => {
  const rpc = rpcOf(context);
  if (!rpc) throw new Error(`@RpcRequest() on ${context.getClass().name}.${context.getHandler().name}, which has no @MessagePattern of the RPC table`);
  return { rpc, body: context.switchToRpc().getData<RpcEnvelope>().body };
});

/**
 * The request message of an RPC handler (`@MessagePattern(rpcPattern(…))`), decoded and
 * validated into the class the RPC table names for it.
 */
export const RpcRequest = (): ParameterDecorator => receivedRequest(undefined, DecodeRequestPipe);

/** The request's context: request ID, correlation IDs and the caller the gateway resolved. */
export const RpcCallContext = createParamDecorator((_: unknown, context: ExecutionContext) => context.switchToRpc().getData<RpcEnvelope>().ctx);
