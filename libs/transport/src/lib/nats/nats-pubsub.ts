import type { PublishOptions, PubSub, Subscription } from '../pubsub';
import { publishDeferrable } from './coalesced-writes';
import type { NatsLink } from './nats-link';

/** Publish/subscribe on the process's NATS connection (subjects under the link's prefix). */
export class NatsPubSub implements PubSub {
  readonly kind = 'nats' as const;

  constructor(private readonly link: NatsLink) {}

  publish(subject: string, payload: Uint8Array, options?: PublishOptions): void {
    const nc = this.link.connection;
    if (nc.isClosed()) return;
    if (options?.deferrable) publishDeferrable(nc, this.link.subjectPrefix + subject, payload);
    else nc.publish(this.link.subjectPrefix + subject, payload);
  }

  beforeNextReply(hook: () => void): void {
    this.link.beforeNextReply(hook);
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
