import { createInbox, type Msg, type NatsConnection, type Subscription } from 'nats';

interface Pending {
  resolve: () => void;
  reject: (err: Error) => void;
  deadline: number;
}

/**
 * Publishes to a JetStream stream and resolves when the stream acknowledged, like
 * `JetStreamClient.publish`, but with one reply subscription and one timeout sweep for all
 * messages instead of a request object, an error object and a timer per message: delivery
 * publishes every retry and the integration every job, so this is on the hot path.
 */
export class AckedPublisher {
  private readonly inbox: string;
  private readonly pending = new Map<string, Pending>();
  private readonly sub: Subscription;
  private readonly sweep: NodeJS.Timeout;
  private next = 0;

  constructor(
    private readonly nc: NatsConnection,
    private readonly timeoutMs: number,
    /** The connection's reply inbox prefix (the NATS user's own, `natsInboxPrefix`; the broker lets it subscribe to nothing else). */
    inboxPrefix?: string,
  ) {
    this.inbox = createInbox(inboxPrefix);
    this.sub = nc.subscribe(`${this.inbox}.*`, { callback: (_err, msg) => this.settle(msg) });
    this.sweep = setInterval(() => this.expire(), Math.min(1000, timeoutMs));
    this.sweep.unref();
  }

  publish(subject: string, data: Uint8Array): Promise<void> {
    const token = (this.next++).toString(36);
    return new Promise((resolve, reject) => {
      this.pending.set(token, { resolve, reject, deadline: Date.now() + this.timeoutMs });
      try {
        this.nc.publish(subject, data, { reply: `${this.inbox}.${token}` });
      } catch (err) {
        this.pending.delete(token);
        reject(err as Error);
      }
    });
  }

  /** Fails whatever still waits for an ack. */
  close(): void {
    clearInterval(this.sweep);
    this.sub.unsubscribe();
    for (const p of this.pending.values()) p.reject(new Error('publisher closed before the stream acknowledged'));
    this.pending.clear();
  }

  private settle(msg: Msg): void {
    const token = msg.subject.slice(this.inbox.length + 1);
    const p = this.pending.get(token);
    if (!p) return;
    this.pending.delete(token);
    // No stream listens on the subject: the server answers "no responders" (503).
    if (msg.headers?.hasError) return p.reject(new Error(`JetStream publish failed: ${msg.headers.code} ${msg.headers.description}`));
    try {
      const ack = JSON.parse(msg.string()) as { error?: { description?: string } };
      if (ack.error) return p.reject(new Error(`JetStream publish failed: ${ack.error.description ?? 'error'}`));
      p.resolve();
    } catch {
      p.reject(new Error('JetStream publish failed: unreadable acknowledgement'));
    }
  }

  private expire(): void {
    const now = Date.now();
    for (const [token, p] of this.pending) {
      if (p.deadline > now) continue;
      this.pending.delete(token);
      p.reject(new Error(`JetStream publish not acknowledged within ${this.timeoutMs} ms`));
    }
  }
}
