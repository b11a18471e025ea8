import { ClientProxy, type ReadPacket, type WritePacket } from '@nestjs/microservices';
import { Observable } from 'rxjs';
import { decodePacket, encodePacket, nextPacketId, type ReplyPacket, type RequestPacket, RpcTransportError } from '../rpc/rpc-packet';
import type { InProcessBroker } from './in-process-broker';

/** Embedded mode's @nestjs/microservices client: requests to the in-process broker, JSON both ways, the same errors as over NATS. */
export class InProcessClient extends ClientProxy {
  constructor(
    private readonly broker: InProcessBroker,
    private readonly timeoutMs: number,
  ) {
    super();
  }

  async connect(): Promise<void> {
    return;
  }

  async close(): Promise<void> {
    return;
  }

  unwrap<T>(): T {
    return this.broker as unknown as T;
  }

  /**
   * As `ClientProxy.send`, without its `defer(connect())` step per request: the connection is the
   * process's, open before any request is sent.
   */
  override send<TResult = unknown, TInput = unknown>(pattern: unknown, data: TInput): Observable<TResult> {
    return new Observable<TResult>((observer) => this.publish({ pattern, data }, this.createObserver(observer)));
  }

  /** One request as a promise (what `send()` answers, without an Observable per request): the response, or a rejection with the error. */
  call<T = unknown>(pattern: string, data: unknown, timeoutMs = this.timeoutMs): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.request(pattern, data, timeoutMs, (packet) => (packet.err !== undefined ? reject(packet.err) : resolve(packet.response as T)));
    });
  }

  protected publish(packet: ReadPacket, callback: (packet: WritePacket) => void): () => void {
    return this.request(this.normalizePattern(packet.pattern), packet.data, this.timeoutMs, callback);
  }

  private request(subject: string, data: unknown, timeoutMs: number, callback: (packet: WritePacket) => void): () => void {
    let done = false;
    this.broker.request(subject, encodePacket({ id: nextPacketId(), data: data as RequestPacket['data'] }), timeoutMs).then(
      (bytes) => {
        if (done) return;
        const reply = decodePacket<ReplyPacket>(bytes);
        if (!reply) return callback({ err: new RpcTransportError('unavailable', `malformed reply from ${subject}`), isDisposed: true });
        callback(reply.err !== undefined ? { err: reply.err, isDisposed: true } : { response: reply.response, isDisposed: true });
      },
      (err: unknown) => {
        if (!done) callback({ err, isDisposed: true });
      },
    );
    return () => {
      done = true;
    };
  }

  protected async dispatchEvent<T = undefined>(packet: ReadPacket): Promise<T> {
    this.broker.publish(this.normalizePattern(packet.pattern), encodePacket({ id: nextPacketId(), data: packet.data }));
    return undefined as T;
  }
}
