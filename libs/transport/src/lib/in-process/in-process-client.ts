import { ClientProxy, type ReadPacket, type WritePacket } from '@nestjs/microservices';
import { Observable } from 'rxjs';
import { encodeRequest, replyToWritePacket, requestAsPromise } from '../rpc/rpc-packet';
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
    // Boundary: Nest's ClientProxy.unwrap<T>() lets the caller name the underlying client's type.
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
    return requestAsPromise((callback) => this.request(pattern, data, timeoutMs, callback));
  }

  protected publish(packet: ReadPacket, callback: (packet: WritePacket) => void): () => void {
    return this.request(this.normalizePattern(packet.pattern), packet.data, this.timeoutMs, callback);
  }

  private request(subject: string, data: unknown, timeoutMs: number, callback: (packet: WritePacket) => void): () => void {
    let done = false;
    this.broker.request(subject, encodeRequest(data), timeoutMs).then(
      (bytes) => {
        if (!done) callback(replyToWritePacket(bytes, subject));
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
    this.broker.publish(this.normalizePattern(packet.pattern), encodeRequest(packet.data));
    return undefined as T;
  }
}
