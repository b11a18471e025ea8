import type { ErrorDetails } from '@lorawan/errors';
import type { RpcContext } from '@lorawan/api';

/** What crosses the transport: the request with its context, and a reply that is data or an error. */
export interface RpcRequestEnvelope {
  ctx: RpcContext;
  body: unknown;
}

export type RpcReplyEnvelope = { ok: unknown; total?: number } | { error: ErrorDetails };

const decoder = new TextDecoder();

export function encode(value: unknown): Uint8Array {
  // Buffer.from (a Uint8Array) writes the same UTF-8 as TextEncoder, in about a third of the time.
  return Buffer.from(JSON.stringify(value));
}

export function decode<T>(bytes: Uint8Array): T {
  return JSON.parse(decoder.decode(bytes)) as T;
}
