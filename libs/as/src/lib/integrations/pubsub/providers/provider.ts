import type { ApplicationPubSub } from '@lorawan/api';

/** A downlink queue operation a Pub/Sub subscribes to. */
export type DownlinkOperation = 'push' | 'replace';

/** What a provider connection reports to its owner (PubSubConnections). */
export interface ProviderListener {
  /** Connected (again): messages are published from now on. */
  connected(): void;
  /** Could not connect, or lost the connection; `message` is the client's, without credentials. It retries by itself. */
  disconnected(message: string, wasConnected: boolean): void;
  /** A message on a downlink topic. */
  downlink(operation: DownlinkOperation, topic: string, body: Buffer): void;
}

export interface ProviderOptions {
  /** MQTT: the shared-subscription group of the downlink topics (undefined: plain subscriptions). NATS: always a queue group. */
  shareGroup: string | undefined;
  queueGroup: string;
  /** The wait before reconnection attempt `n` (1, 2, …). */
  backoffMs(attempt: number): number;
}

/** One Pub/Sub's connection to its broker: it connects, reconnects with backoff and subscribes by itself until closed. */
export interface ProviderConnection {
  readonly connected: boolean;
  /**
   * Hands a message to the client without waiting for the broker: false (nothing sent) when the
   * connection is down or its client already holds too many unsent messages. `done` reports the
   * outcome of a message that was handed on.
   */
  publish(topic: string, body: Buffer, done: (err?: Error) => void): boolean;
  close(): Promise<void>;
}

/** Opens connections of one provider kind. */
export interface PubSubProviderDriver {
  open(pubsub: ApplicationPubSub, listener: ProviderListener, options: ProviderOptions): ProviderConnection;
}

/** Unsent messages one connection may hold (its client's buffer); beyond, messages are dropped. */
export const MAX_IN_FLIGHT = 1000;

/** A client's error text without the credentials a URL may carry (`scheme://user:password@host`). */
export function redact(message: string): string {
  return message.replace(/\/\/[^/@\s]*@/g, '//');
}
