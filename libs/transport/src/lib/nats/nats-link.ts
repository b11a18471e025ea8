import { Logger } from '@nestjs/common';
import type { ConnectionOptions, NatsConnection } from 'nats';
import { natsConnectionUp } from '@lorawan/observability';
import { DEFAULT_MAX_PAYLOAD } from '../rpc/rpc-packet';
import { connectNats } from './coalesced-writes';

export type NatsLinkState = 'connected' | 'disconnected' | 'closed';

/**
 * The process's NATS connection, shared by its RPC server or client (@nestjs/microservices) and
 * its publish/subscribe. It reconnects for ever (every 500 ms while the broker is away); every
 * loss and recovery is logged and reported to listeners, so the RPC client can fail requests at
 * once while the broker is away instead of letting them wait for their timeout.
 */
export class NatsLink {
  private readonly logger = new Logger('NATS');
  private readonly listeners = new Set<(state: NatsLinkState) => void>();
  private current: NatsLinkState = 'connected';
  /** What runs before the process's next RPC reply on this connection (`beforeNextReply`). */
  private replyHooks?: Array<() => void>;

  private constructor(
    readonly connection: NatsConnection,
    readonly subjectPrefix: string,
    /** The connection's reply inbox prefix (`_INBOX` unless the user has its own, see `natsInboxPrefix`). */
    readonly inboxPrefix: string | undefined,
  ) {
    natsConnectionUp.set(1);
    void this.watch();
  }

  /** Connects (failing if the broker cannot be reached now, so a misconfigured process stops at boot). */
  static async connect(url: string, name: string, subjectPrefix?: string, options: Partial<ConnectionOptions> = {}): Promise<NatsLink> {
    const connection = await connectNats({
      servers: url,
      name,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 500,
      // No stack captured per request (~45 µs each): transport errors are mapped to our own anyway.
      noAsyncTraces: true,
      ...options,
    });
    return new NatsLink(connection, subjectPrefix ? `${subjectPrefix}.` : '', options.inboxPrefix);
  }

  get state(): NatsLinkState {
    return this.current;
  }

  /** Largest message the broker accepts (its `max_payload`). */
  get maxPayload(): number {
    return this.connection.info?.max_payload ?? DEFAULT_MAX_PAYLOAD;
  }

  /** Runs `hook` once, just before the process's next RPC reply on this connection (`PubSub.beforeNextReply`). */
  beforeNextReply(hook: () => void): void {
    (this.replyHooks ??= []).push(hook);
  }

  /** The RPC server is about to reply: runs (and forgets) the hooks waiting for it. */
  replying(): void {
    const hooks = this.replyHooks;
    if (!hooks) return;
    this.replyHooks = undefined;
    for (const hook of hooks) hook();
  }

  onStateChange(listener: (state: NatsLinkState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Drains (finishes what was received, flushes what was sent) and closes. */
  async close(): Promise<void> {
    if (this.connection.isClosed()) return;
    // Draining needs the broker; without it there is nothing left to deliver.
    if (this.current !== 'connected') return this.connection.close();
    try {
      await this.connection.drain();
    } catch {
      await this.connection.close();
    }
  }

  private async watch(): Promise<void> {
    const server = () => this.connection.getServer();
    for await (const status of this.connection.status()) {
      const type = String(status.type);
      if (type === 'disconnect') {
        this.logger.warn({ server: String(status.data) }, 'lost the connection to NATS; reconnecting');
        this.set('disconnected');
      } else if (type === 'reconnect') {
        this.logger.log({ server: String(status.data) }, 'reconnected to NATS');
        this.set('connected');
      } else if (type === 'error') {
        this.logger.error({ server: server(), error: String(status.data) }, 'NATS connection error');
      }
    }
    this.set('closed');
  }

  private set(state: NatsLinkState): void {
    if (state === this.current) return;
    this.current = state;
    natsConnectionUp.set(state === 'connected' ? 1 : 0);
    for (const listener of this.listeners) listener(state);
  }
}
