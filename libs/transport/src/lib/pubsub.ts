/**
 * Broadcast messaging: every subscriber of a subject gets each message (no queue group, no reply).
 * Events, cache invalidations and event-stream sessions use it; @nestjs/microservices has no
 * equivalent (its NATS server subscribes every pattern in the component's queue group, so a
 * message would reach one replica only). Request/reply goes through @nestjs/microservices.
 * Two implementations: NATS (distributed) and in-process (embedded); payloads are JSON bytes
 * either way.
 */
export interface PubSub {
  readonly kind: 'nats' | 'in-process';
  /** Broadcasts a message to every subscriber of the subject; fire and forget. */
  publish(subject: string, payload: Uint8Array, options?: PublishOptions): void;
  /**
   * Receives every message published on the subject (each subscriber gets its own copy). `subject`
   * (without the subject prefix) is the one the message was published on: with wildcards it tells
   * which of the subjects it was.
   */
  subscribe(subject: string, handler: (payload: Uint8Array, subject: string) => void): Subscription;
  /**
   * Runs `hook` once, just before this process's next RPC reply on the transport, so that what it
   * holds back (EventPublisher's batch) is published before the reply: a caller that has the reply
   * finds the call's events published, as when each was published at once. Absent: the transport
   * publishes at once anyway (in process).
   */
  beforeNextReply?(hook: () => void): void;
  /** True when messages can flow now (broker connection up). */
  healthy(): Promise<boolean>;
}

export interface PublishOptions {
  /**
   * The message may wait a few milliseconds to share a socket write with the connection's other
   * traffic (NATS: `DEFERRED_WRITE_MS`), in its place among what the connection sends (events).
   * In process, it is delivered at once.
   */
  deferrable?: boolean;
}

export interface Subscription {
  unsubscribe(): void;
}

export const PUBSUB = Symbol('PUBSUB');

/**
 * Serves further concrete subjects with the handler of one of the component's patterns: a GS
 * replica serves `NsGs.ScheduleDownlink` on the subject of each gateway it holds, so any NS
 * replica reaches the one replica with that gateway's downlink path. Requests on a routed subject
 * go through the same pipeline (decoding, guard, filter, metrics) as the pattern's own subject.
 */
export interface SubjectRouter {
  route(pattern: string, subject: string): Subscription;
}

export const SUBJECT_ROUTER = Symbol('SUBJECT_ROUTER');
