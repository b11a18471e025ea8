import { ClientNats, type ReadPacket, type WritePacket } from '@nestjs/microservices';
import { createInbox, ErrorCode, type Msg, type NatsConnection, type NatsError } from 'nats';
import { Observable } from 'rxjs';
import { encodeRequest, replyToWritePacket, requestAsPromise, RpcTransportError } from '../rpc/rpc-packet';
import type { NatsLink } from './nats-link';

export interface StackClientNatsOptions {
  link: NatsLink;
  /** How long a request waits for its reply (RPC_TIMEOUT_MS). */
  timeoutMs: number;
}

type Callback = (packet: WritePacket) => void;

/**
 * @nestjs/microservices' NATS client, adapted to the stack: requests share one reply inbox (one
 * wildcard subscription, replies matched by their token) instead of a subscription per request,
 * on the process's shared connection, under the subject prefix. (Not the connection's own
 * multiplexed `nc.request`: nats.js 2.x builds and throws away an Error, stack trace included,
 * for every answered request, which cost the gateway ~6 µs per request.) A
 * request fails at once with `RpcTransportError`: `unavailable` when no replica serves the subject
 * (NATS "no responders") or the broker is away (also every request in flight when the connection
 * drops: their replies can no longer arrive), `too_large` beyond the broker's `max_payload`;
 * `timeout` after `timeoutMs`.
 */
export class StackClientNats extends ClientNats {
  private readonly inFlight = new Set<Callback>();
  /** Requests waiting for their reply, by the token that ends their reply subject. */
  private readonly awaiting = new Map<string, (msg: Msg) => void>();
  private readonly inbox: string;
  private nextToken = 0;

  private listening = false;

  constructor(private readonly stack: StackClientNatsOptions) {
    super({});
    this.inbox = `${createInbox(stack.link.inboxPrefix)}.`;
    stack.link.onStateChange((state) => {
      if (state === 'connected') return;
      const failed = [...this.inFlight];
      this.inFlight.clear();
      for (const callback of failed) callback({ err: new RpcTransportError('unavailable', 'the connection to NATS was lost'), isDisposed: true });
    });
  }

  override async connect(): Promise<NatsConnection> {
    return this.stack.link.connection;
  }

  /** The connection belongs to the process (NatsLink), which closes it last. */
  override async close(): Promise<void> {
    return;
  }

  /**
   * As `ClientProxy.send`, without its `defer(connect())` step per request: the connection is the
   * process's, open before any request is sent.
   */
  override send<TResult = unknown, TInput = unknown>(pattern: unknown, data: TInput): Observable<TResult> {
    return new Observable<TResult>((observer) => this.publish({ pattern, data }, this.createObserver(observer)));
  }

  /** One request as a promise (what `send()` answers, without an Observable per request): the response, or a rejection with the error. */
  call<T = unknown>(pattern: string, data: unknown, timeoutMs = this.stack.timeoutMs): Promise<T> {
    return requestAsPromise((callback) => this.request(pattern, data, timeoutMs, callback));
  }

  protected override publish(partialPacket: ReadPacket, callback: Callback): () => void {
    return this.request(this.normalizePattern(partialPacket.pattern), partialPacket.data, this.stack.timeoutMs, callback);
  }

  private request(subject: string, data: unknown, timeoutMs: number, callback: Callback): () => void {
    const link = this.stack.link;
    if (link.state !== 'connected') {
      callback({ err: new RpcTransportError('unavailable', 'not connected to NATS'), isDisposed: true });
      return () => undefined;
    }
    const bytes = encodeRequest(data);
    if (bytes.byteLength > link.maxPayload) {
      callback({ err: new RpcTransportError('too_large', `request of ${bytes.byteLength} bytes exceeds ${link.maxPayload}`), isDisposed: true });
      return () => undefined;
    }
    const token = (this.nextToken++).toString(36);
    let done = false;
    const forget = () => {
      done = true;
      clearTimeout(timer);
      this.awaiting.delete(token);
      this.inFlight.delete(finish);
    };
    const finish: Callback = (packet) => {
      if (done) return;
      forget();
      callback(packet);
    };
    const timer = setTimeout(() => finish({ err: new RpcTransportError('timeout', `request to ${subject} timed out`), isDisposed: true }), timeoutMs);
    this.inFlight.add(finish);
    this.listen();
    this.awaiting.set(token, (msg) =>
      // The broker answers a request nobody serves with an empty 503 status message.
      finish(
        msg.data.length === 0 && msg.headers?.code === 503
          ? { err: new RpcTransportError('unavailable', `no responders for ${subject}`), isDisposed: true }
          : replyToWritePacket(msg.data, subject),
      ),
    );
    try {
      link.connection.publish(link.subjectPrefix + subject, bytes, { reply: this.inbox + token });
    } catch (err) {
      finish({ err: transportError(err as NatsError, subject), isDisposed: true });
    }
    // Unsubscribed before the reply (e.g. a shorter timeout of the caller): the reply is ignored.
    return forget;
  }

  /**
   * Subscribes the reply inbox at the first request (a component that never calls another costs
   * no subscription). It lives as long as the connection and nats.js subscribes it again after a
   * reconnect; the SUB goes out before the request's PUB on the same connection, so no reply is missed.
   */
  private listen(): void {
    if (this.listening) return;
    this.listening = true;
    this.stack.link.connection.subscribe(`${this.inbox}*`, {
      callback: (err, msg) => {
        if (!err) this.awaiting.get(msg.subject.slice(this.inbox.length))?.(msg);
      },
    });
  }

  protected override async dispatchEvent<T = undefined>(packet: ReadPacket): Promise<T> {
    const link = this.stack.link;
    link.connection.publish(link.subjectPrefix + this.normalizePattern(packet.pattern), encodeRequest(packet.data));
    return undefined as T;
  }
}

/** A request the connection refused to send. */
function transportError(err: NatsError, subject: string): RpcTransportError {
  if (err.code === ErrorCode.MaxPayloadExceeded) return new RpcTransportError('too_large', `request to ${subject} is too large`);
  // Connection closed or draining, and anything else that kept the request from the broker.
  return new RpcTransportError('unavailable', `request to ${subject} not sent: ${err.code ?? err.message}`);
}
