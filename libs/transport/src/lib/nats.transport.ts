import { connect, ErrorCode, type NatsConnection, type NatsError } from 'nats';
import { type RequestHandler, type Subscription, type Transport, TransportError } from './transport';

/** Distributed mode: NATS request/reply; one queue group per component shares load over replicas. */
export class NatsTransport implements Transport {
  readonly kind = 'nats' as const;

  private readonly prefix: string;

  private constructor(
    private readonly nc: NatsConnection,
    subjectPrefix?: string,
  ) {
    this.prefix = subjectPrefix ? `${subjectPrefix}.` : '';
  }

  static async connect(url: string, name: string, subjectPrefix?: string): Promise<NatsTransport> {
    // noAsyncTraces: no stack captured per request (~45 µs each); transport errors are mapped to our own anyway.
    const nc = await connect({ servers: url, name, maxReconnectAttempts: -1, reconnectTimeWait: 500, noAsyncTraces: true });
    return new NatsTransport(nc, subjectPrefix);
  }

  async request(subject: string, payload: Uint8Array, timeoutMs: number): Promise<Uint8Array> {
    if (this.nc.isClosed()) throw new TransportError('closed', 'NATS connection is closed');
    try {
      const msg = await this.nc.request(this.prefix + subject, payload, { timeout: timeoutMs });
      return msg.data;
    } catch (err) {
      const code = (err as NatsError).code;
      if (code === ErrorCode.NoResponders) throw new TransportError('no_responders', `no responders for ${subject}`);
      if (code === ErrorCode.Timeout) throw new TransportError('timeout', `request to ${subject} timed out`);
      if (code === ErrorCode.ConnectionClosed || code === ErrorCode.Disconnect) throw new TransportError('closed', 'NATS connection is closed');
      throw err;
    }
  }

  serve(subject: string, queue: string, handler: RequestHandler): Subscription {
    const sub = this.nc.subscribe(this.prefix + subject, {
      queue,
      callback: (err, msg) => {
        if (err) return;
        handler(msg.data).then(
          (reply) => msg.respond(reply),
          () => undefined, // handlers answer errors as data; a throw here is a bug already logged by the handler
        );
      },
    });
    return { unsubscribe: () => sub.unsubscribe() };
  }

  publish(subject: string, payload: Uint8Array): void {
    if (!this.nc.isClosed()) this.nc.publish(this.prefix + subject, payload);
  }

  subscribe(subject: string, handler: (payload: Uint8Array, subject: string) => void): Subscription {
    const sub = this.nc.subscribe(this.prefix + subject, {
      callback: (err, msg) => {
        if (!err) handler(msg.data, msg.subject.slice(this.prefix.length));
      },
    });
    return { unsubscribe: () => sub.unsubscribe() };
  }

  async healthy(): Promise<boolean> {
    if (this.nc.isClosed()) return false;
    try {
      await this.nc.flush();
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (!this.nc.isClosed()) await this.nc.drain();
  }
}
