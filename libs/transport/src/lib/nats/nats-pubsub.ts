import type { PubSub, Subscription } from '../pubsub';
import type { NatsLink } from './nats-link';

/**
 * Publish/subscribe on the process's NATS connection (subjects under the link's prefix).
 *
 * Publishing is fire and forget, so what a process publishes during one turn of its event loop
 * goes out together at the end of the turn (`setImmediate`), in publishing order: under load one
 * socket write carries the events of many requests instead of one write each (the NATS client
 * writes what was queued once per microtask checkpoint, i.e. about once per `await`).
 */
export class NatsPubSub implements PubSub {
  readonly kind = 'nats' as const;
  private pending: Array<[string, Uint8Array]> = [];

  constructor(private readonly link: NatsLink) {}

  publish(subject: string, payload: Uint8Array): void {
    if (this.pending.push([this.link.subjectPrefix + subject, payload]) === 1) setImmediate(() => this.flush());
  }

  private flush(): void {
    const batch = this.pending;
    this.pending = [];
    const nc = this.link.connection;
    if (nc.isClosed()) return;
    for (const [subject, payload] of batch) nc.publish(subject, payload);
  }

  subscribe(subject: string, handler: (payload: Uint8Array, subject: string) => void): Subscription {
    const prefixLength = this.link.subjectPrefix.length;
    const sub = this.link.connection.subscribe(this.link.subjectPrefix + subject, {
      callback: (err, msg) => {
        if (!err) handler(msg.data, msg.subject.slice(prefixLength));
      },
    });
    return { unsubscribe: () => sub.unsubscribe() };
  }

  async healthy(): Promise<boolean> {
    const nc = this.link.connection;
    if (nc.isClosed() || this.link.state !== 'connected') return false;
    try {
      await nc.flush();
      return true;
    } catch {
      return false;
    }
  }
}
