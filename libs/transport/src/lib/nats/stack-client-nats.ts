import { ClientNats, type ReadPacket, type WritePacket } from '@nestjs/microservices';
import { ErrorCode, type NatsConnection, type NatsError } from 'nats';
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
 * @nestjs/microservices' NATS client, adapted to the stack: requests use the connection's
 * multiplexed request inbox (`nc.request`, one subscription for all requests) instead of a
 * subscription per request, on the process's shared connection, under the subject prefix. A
 * request fails at once with `RpcTransportError`: `unavailable` when no replica serves the subject
 * (NATS "no responders") or the broker is away (also every request in flight when the connection
 * drops: their replies can no longer arrive), `too_large` beyond the broker's `max_payload`;
 * `timeout` after `timeoutMs`.
 */
export class StackClientNats extends ClientNats {
  private readonly inFlight = new Set<Callback>();

  constructor(private readonly stack: StackClientNatsOptions) {
    super({});
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
    let done = false;
    const finish: Callback = (packet) => {
      if (done) return;
      done = true;
      this.inFlight.delete(finish);
      callback(packet);
    };
    this.inFlight.add(finish);
    link.connection.request(link.subjectPrefix + subject, bytes, { timeout: timeoutMs }).then(
      (msg) => finish(replyToWritePacket(msg.data, subject)),
      (err: NatsError) => finish({ err: transportError(err, subject), isDisposed: true }),
    );
    return () => {
      // Unsubscribed before the reply (e.g. a shorter timeout of the caller): the reply is ignored.
      done = true;
      this.inFlight.delete(finish);
    };
  }

  protected override async dispatchEvent<T = undefined>(packet: ReadPacket): Promise<T> {
    const link = this.stack.link;
    link.connection.publish(link.subjectPrefix + this.normalizePattern(packet.pattern), encodeRequest(packet.data));
    return undefined as T;
  }
}

function transportError(err: NatsError, subject: string): RpcTransportError {
  switch (err.code) {
    case ErrorCode.Timeout:
      return new RpcTransportError('timeout', `request to ${subject} timed out`);
    case ErrorCode.MaxPayloadExceeded:
      return new RpcTransportError('too_large', `request to ${subject} is too large`);
    default:
      // No responders, connection closed or lost, and anything else that kept the request from an answer.
      return new RpcTransportError('unavailable', `no answer from ${subject}: ${err.code ?? err.message}`);
  }
}
