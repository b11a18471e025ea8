/**
 * Request/reply between the gateway and the components. Two implementations share this interface:
 * NATS (distributed: queue groups spread requests over a component's replicas) and in-process
 * (embedded). Payloads are JSON bytes either way, so both behave the same.
 */
export type RequestHandler = (payload: Uint8Array) => Promise<Uint8Array>;

export interface Subscription {
  unsubscribe(): void;
}

export interface Transport {
  readonly kind: 'nats' | 'in-process';
  /** Sends a request; rejects with TransportError('no_responders' | 'timeout' | 'closed'). */
  request(subject: string, payload: Uint8Array, timeoutMs: number): Promise<Uint8Array>;
  /** Serves a subject within a queue group: each request goes to one member of the group. */
  serve(subject: string, queue: string, handler: RequestHandler): Subscription;
  /** Broadcasts a message to every subscriber of the subject (no queue group, no reply); fire and forget. */
  publish(subject: string, payload: Uint8Array): void;
  /**
   * Receives every message published on the subject (each subscriber gets its own copy). `subject`
   * (without the subject prefix) is the one the message was published on: with wildcards it tells
   * which of the subjects it was.
   */
  subscribe(subject: string, handler: (payload: Uint8Array, subject: string) => void): Subscription;
  /** True when the transport can carry requests now (broker connection up). */
  healthy(): Promise<boolean>;
  close(): Promise<void>;
}

export type TransportErrorKind = 'no_responders' | 'timeout' | 'closed';

export class TransportError extends Error {
  constructor(
    readonly kind: TransportErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'TransportError';
  }
}

export const TRANSPORT = Symbol('TRANSPORT');
