import type { WritePacket } from '@nestjs/microservices';
import { fromWireContext, type RpcContext, toWireContext } from '@lorawan/api';
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

/**
 * A request's bytes: a packet with a fresh ID around `data`, whose context (when it has one)
 * carries the caller's rights in their wire form (`toWireContext`).
 */
export function encodeRequest(data: unknown): Uint8Array {
  const envelope = data as Partial<RpcEnvelope> | undefined;
  const wire = envelope?.ctx ? { ...envelope, ctx: toWireContext(envelope.ctx) } : data;
  return encodePacket({ id: nextPacketId(), data: wire as RpcEnvelope });
}

/** A received request, its context as the handlers see it (`fromWireContext`); undefined for bytes that are not one. */
export function decodeRequest(bytes: Uint8Array): RequestPacket | undefined {
  const packet = decodePacket<RequestPacket>(bytes);
  if (!packet || typeof packet.id !== 'string') return undefined;
  if (packet.data?.ctx) packet.data.ctx = fromWireContext(packet.data.ctx);
  return packet;
}

let sequence = 0;

/** Packet IDs only pair a reply with its request on one connection: a process-wide counter is enough. */
export function nextPacketId(): string {
  sequence = (sequence + 1) % Number.MAX_SAFE_INTEGER;
  return sequence.toString(36);
}

/** What a client proxy's callback receives for a reply's bytes: the response, the error, or a malformed reply (unavailable). */
export function replyToWritePacket(bytes: Uint8Array, subject: string): WritePacket {
  const reply = decodePacket<ReplyPacket>(bytes);
  if (!reply) return { err: new RpcTransportError('unavailable', `malformed reply from ${subject}`), isDisposed: true };
  return reply.err !== undefined ? { err: reply.err, isDisposed: true } : { response: reply.response, isDisposed: true };
}

type StartRequest = (callback: (packet: WritePacket) => void) => () => void;

/** One request as a promise: its response, or a rejection with its error (the clients' `call`). */
export function requestAsPromise<T>(start: StartRequest): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    start((packet) => (packet.err !== undefined ? reject(packet.err) : resolve(packet.response as T)));
  });
}
