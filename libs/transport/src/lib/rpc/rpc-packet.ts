import type { RpcContext } from '@lorawan/api';
import type { ErrorDetails } from '@lorawan/errors';
import { decode, encode } from '../codec';

/**
 * What a request carries (`data` of the packet): the caller's context (request ID, correlation
 * IDs, the identity the gateway resolved) and the request message as JSON.
 */
export interface RpcEnvelope {
  ctx: RpcContext;
  body: unknown;
}

/** A request on the wire: @nestjs/microservices' packet (`id` + `data`); the subject is the pattern. */
export interface RequestPacket {
  id: string;
  data: RpcEnvelope;
}

/**
 * A reply on the wire: @nestjs/microservices' packet. `response` is the handler's result, `err`
 * the error details the exception filter made of a failure. One reply per request
 * (`isDisposed: true`).
 */
export interface ReplyPacket {
  id: string;
  response?: unknown;
  err?: ErrorDetails;
  isDisposed?: boolean;
}

export type RpcTransportErrorKind =
  /** No replica serves the subject, or the broker is unreachable: retry later (503). */
  | 'unavailable'
  /** No reply within the timeout (504). */
  | 'timeout'
  /** The request is larger than the broker carries (413). */
  | 'too_large';

/** A request that did not get an answer from a component (as opposed to an error answer). */
export class RpcTransportError extends Error {
  constructor(
    readonly kind: RpcTransportErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'RpcTransportError';
  }
}

/** NATS's default `max_payload`; the in-process transport keeps the same bound, so both modes refuse alike. */
export const DEFAULT_MAX_PAYLOAD = 1024 * 1024;

export function encodePacket(packet: RequestPacket | ReplyPacket): Uint8Array {
  return encode(packet);
}

/** A packet, or undefined for bytes that are not one (JSON object expected). */
export function decodePacket<T extends RequestPacket | ReplyPacket>(bytes: Uint8Array): T | undefined {
  try {
    const packet = decode<T>(bytes);
    return typeof packet === 'object' && packet !== null && !Array.isArray(packet) ? packet : undefined;
  } catch {
    return undefined;
  }
}

let sequence = 0;

/** Packet IDs only pair a reply with its request on one connection: a process-wide counter is enough. */
export function nextPacketId(): string {
  sequence = (sequence + 1) % Number.MAX_SAFE_INTEGER;
  return sequence.toString(36);
}
