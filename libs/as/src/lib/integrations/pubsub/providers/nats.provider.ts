import { connect, type ConnectionOptions, Events, type NatsConnection, type Subscription } from 'nats';
import type { ApplicationPubSub } from '@lorawan/api';
import { topicOf } from '../pubsub-topics';
import { type DownlinkOperation, type ProviderConnection, type ProviderListener, type ProviderOptions, type PubSubProviderDriver, redact } from './provider';

/** `nats://[user[:password]@]host:port` (or `tls://`) as nats.js options: the credentials apart from the server, TLS for `tls://`. */
export function natsOptions(serverUrl: string): ConnectionOptions {
  const url = new URL(serverUrl);
  const user = decodeURIComponent(url.username);
  const pass = decodeURIComponent(url.password);
  return {
    servers: `${url.hostname.includes(':') ? `[${url.hostname}]` : url.hostname}:${url.port || '4222'}`,
    ...(user && pass ? { user, pass } : user ? { token: user } : {}),
    ...(url.protocol === 'tls:' ? { tls: {} } : {}),
  };
}

/**
 * The NATS provider (TTS `provider/nats`) on nats.js: publishes to `base_topic.topic` subjects
 * and subscribes to the downlink subjects in the AS replicas' queue group (each downlink is taken
 * by one replica). Each attempt to connect is ours, with capped exponential backoff; once
 * connected, nats.js reconnects by itself with the same backoff, and when it gives up (or the
 * server closes the connection for good) the next attempt is ours again.
 */
export class NatsProviderDriver implements PubSubProviderDriver {
  open(pubsub: ApplicationPubSub, listener: ProviderListener, options: ProviderOptions): ProviderConnection {
    return new NatsPubSubConnection(pubsub, listener, options);
  }
}

class NatsPubSubConnection implements ProviderConnection {
  private nc?: NatsConnection;
  private up = false;
  private closed = false;
  private attempt = 0;
  private retry?: NodeJS.Timeout;
  private readonly downlinks: Array<{ subject: string; operation: DownlinkOperation }> = [];

  constructor(
    private readonly pubsub: ApplicationPubSub,
    private readonly listener: ProviderListener,
    private readonly options: ProviderOptions,
  ) {
    for (const operation of ['push', 'replace'] as const) {
      const subject = topicOf(pubsub, 'nats', `downlink_${operation}`);
      if (subject) this.downlinks.push({ subject, operation });
    }
    void this.dial();
  }

  get connected(): boolean {
    return this.up && !this.closed;
  }

  publish(subject: string, body: Buffer, done: (err?: Error) => void): boolean {
    const nc = this.nc;
    // While nats.js reconnects it would buffer messages (up to its reconnect buffer): they are dropped instead.
    if (!this.connected || !nc) return false;
    try {
      nc.publish(subject, body);
      done();
    } catch (err) {
      done(err as Error);
    }
    return true;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.up = false;
    clearTimeout(this.retry);
    await this.nc?.close().catch(() => undefined);
  }

  private async dial(): Promise<void> {
    if (this.closed) return;
    let nc: NatsConnection;
    try {
      nc = await connect({
        ...natsOptions(this.pubsub.nats?.server_url ?? ''),
        name: `lorawan-as pubsub ${this.pubsub.ids.application_ids.application_id}/${this.pubsub.ids.pub_sub_id}`,
        timeout: 10_000,
        reconnect: true,
        maxReconnectAttempts: 10,
        reconnectDelayHandler: () => this.options.backoffMs(++this.attempt),
      });
    } catch (err) {
      this.listener.disconnected(redact((err as Error).message), false);
      this.schedule();
      return;
    }
    if (this.closed) {
      await nc.close().catch(() => undefined);
      return;
    }
    this.nc = nc;
    this.onUp();
    for (const { subject, operation } of this.downlinks) this.subscribe(nc, subject, operation);
    void this.watch(nc);
    void nc.closed().then((err) => {
      this.up = false;
      if (this.closed) return;
      this.listener.disconnected(redact(err?.message ?? 'connection closed'), true);
      this.schedule();
    });
  }

  private subscribe(nc: NatsConnection, subject: string, operation: DownlinkOperation): Subscription {
    return nc.subscribe(subject, {
      queue: this.options.queueGroup,
      callback: (err, msg) => {
        if (err) this.listener.disconnected(redact(err.message), true);
        else this.listener.downlink(operation, msg.subject, Buffer.from(msg.data));
      },
    });
  }

  private async watch(nc: NatsConnection): Promise<void> {
    for await (const status of nc.status()) {
      if (this.closed) return;
      if (status.type === Events.Disconnect) {
        this.up = false;
        this.listener.disconnected(`disconnected from ${String(status.data)}`, true);
      } else if (status.type === Events.Reconnect) {
        this.onUp();
      } else if (status.type === Events.Error) {
        this.listener.disconnected(redact(String((status.data as unknown as Error)?.message ?? status.data)), this.up);
      }
    }
  }

  private onUp(): void {
    this.attempt = 0;
    this.up = true;
    this.listener.connected();
  }

  private schedule(): void {
    if (this.closed) return;
    clearTimeout(this.retry);
    this.retry = setTimeout(() => void this.dial(), this.options.backoffMs(++this.attempt));
    this.retry.unref();
  }
}
