import { Injectable } from '@nestjs/common';
import { decodeMessage, type RpcDefinition } from '@lorawan/api';

/**
 * Decodes and validates a request body into its contract class (`decodeMessage`, the one
 * validation point for messages entering a component). Nest runs guards before pipes, and the
 * rights guard already needs the decoded request (the rights a field mask calls for), so both go
 * through this decoder, which decodes each received body once: the pipe gets what the guard made.
 */
@Injectable()
export class RequestDecoder {
  private readonly decoded = new WeakMap<object, object>();

  decode(rpc: RpcDefinition, body: unknown): object {
    if (typeof body !== 'object' || body === null) return decodeMessage(rpc.request, body);
    let request = this.decoded.get(body);
    if (!request) {
      request = decodeMessage(rpc.request, body);
      this.decoded.set(body, request);
    }
    return request;
  }
}
