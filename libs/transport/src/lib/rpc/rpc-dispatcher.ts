import { performance } from 'node:perf_hooks';
import { Logger } from '@nestjs/common';
import type { BaseRpcContext, MessageHandler, WritePacket } from '@nestjs/microservices';
import type { Observable, Subscription } from 'rxjs';
import { Code, defineError, type ErrorDetails } from '@lorawan/errors';
import { rpcServerHandled, rpcServerHandling, rpcServerInFlight, withLogFields } from '@lorawan/observability';
import { decodePacket, encodePacket, type ReplyPacket, type RequestPacket } from './rpc-packet';

const ErrMalformedPacket = defineError('pkg/rpc', 'malformed_request', 'the request is not a JSON request packet', Code.InvalidArgument);
const ErrNoHandler = defineError('pkg/rpc', 'unimplemented', '`{subject}` is not served here', Code.Unimplemented);
const ErrResponseTooLarge = defineError(
  'pkg/rpc',
  'response_too_large',
  'the response of {bytes} bytes is larger than the {max_bytes} bytes the transport carries',
  Code.ResourceExhausted,
);

/** What a server strategy lends the dispatcher: Nest's handler lookup and reply plumbing (`Server`). */
export interface HandlerHost {
  getHandlerByPattern(pattern: string): MessageHandler | null;
  transformToObservable<T>(resultOrDeferred: Observable<T> | Promise<T> | T): Observable<T>;
  send(stream$: Observable<unknown>, respond: (data: WritePacket) => Promise<unknown> | void): Subscription;
}

/** Where a reply goes (a NATS message's reply subject, or an in-process caller). */
export type Reply = (bytes: Uint8Array) => void;

const CODE_NAMES = Code as unknown as Record<number, string>;

/**
 * The part of serving an RPC that both server strategies (NATS and in-process) share, so both
 * run one code path: decodes the packet, runs Nest's handler (guards, pipes, the handler,
 * exception filters) with the request's log fields (request ID, RPC, component) on every line,
 * sends one reply (refusing one larger than the transport carries), counts and times it, and
 * keeps track of what is in flight so a shutdown can wait for it.
 */
export class RpcDispatcher {
  private readonly logger = new Logger('RpcServer');
  private inFlight = 0;
  private idleWaiters: Array<() => void> = [];

  constructor(
    private readonly host: HandlerHost,
    private readonly component: string,
    private readonly maxPayload: () => number,
  ) {
    rpcServerInFlight.set({ component }, 0);
  }

  get pending(): number {
    return this.inFlight;
  }

  /** Serves one request on `channel` (the pattern, without subject prefix). */
  async dispatch(channel: string, bytes: Uint8Array, reply: Reply | undefined, transportContext: BaseRpcContext): Promise<void> {
    const started = performance.now();
    const rpc = rpcName(channel);
    this.enter();
    let replied = false;
    let response: unknown;
    // One reply per request: the last value the handler produced, or its error, once it is done.
    const respond = (out: ReplyPacket): void => {
      if (replied) return;
      if (out.response !== undefined) response = out.response;
      if (!out.isDisposed && out.err === undefined) return;
      replied = true;
      const final: ReplyPacket = out.err !== undefined ? { id: out.id, err: out.err, isDisposed: true } : { id: out.id, response, isDisposed: true };
      this.send(reply, final, rpc);
      const code = codeName(out.err?.code ?? Code.OK);
      const seconds = (performance.now() - started) / 1000;
      rpcServerHandled.inc({ component: this.component, rpc, code });
      rpcServerHandling.observe({ component: this.component, rpc }, seconds);
      this.logger.debug({ code, duration_ms: Math.round(seconds * 100_000) / 100 }, 'handled');
      this.leave();
    };
    const packet = decodePacket<RequestPacket>(bytes);
    if (!packet || typeof packet.id !== 'string') return respond({ id: '', err: ErrMalformedPacket.with().toDetails(), isDisposed: true });
    const handler = this.host.getHandlerByPattern(channel);
    if (!handler) return respond({ id: packet.id, err: ErrNoHandler.with({ subject: channel }).toDetails(), isDisposed: true });
    const requestId = typeof packet.data?.ctx?.request_id === 'string' ? packet.data.ctx.request_id : undefined;
    await withLogFields({ request_id: requestId, rpc, component: this.component }, async () => {
      try {
        const result$ = this.host.transformToObservable(await handler(packet.data, transportContext));
        this.host.send(result$, (out) => respond({ id: packet.id, response: out.response as unknown, err: out.err as ErrorDetails | undefined, isDisposed: out.isDisposed }));
      } catch (err) {
        // Nest's exception filters answer errors as data; reaching here is a bug in the pipeline.
        this.logger.error({ err }, 'RPC pipeline failed');
        respond({ id: packet.id, err: { namespace: 'pkg/errors', name: 'internal', message_format: 'internal error', correlation_id: '', code: Code.Internal }, isDisposed: true });
      }
    });
  }

  /** Resolves when nothing is in flight, or after `timeoutMs`; true when idle. */
  async idle(timeoutMs: number): Promise<boolean> {
    if (this.inFlight === 0) return true;
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.idleWaiters.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  private send(reply: Reply | undefined, packet: ReplyPacket, rpc: string): void {
    if (!reply) return;
    let bytes = encodePacket(packet);
    const max = this.maxPayload();
    if (bytes.byteLength > max) {
      this.logger.warn({ bytes: bytes.byteLength, max_bytes: max }, `reply of ${rpc} too large for the transport`);
      const err: ErrorDetails = ErrResponseTooLarge.with({ bytes: bytes.byteLength, max_bytes: max }).toDetails();
      bytes = encodePacket({ id: packet.id, err, isDisposed: true });
    }
    try {
      reply(bytes);
    } catch (err) {
      // The connection went away (shutdown or broker loss): the caller's timeout or fail-fast answers it.
      this.logger.warn({ error: (err as Error).message }, `reply of ${rpc} not sent`);
    }
  }

  private enter(): void {
    this.inFlight++;
    rpcServerInFlight.inc({ component: this.component });
  }

  private leave(): void {
    this.inFlight--;
    rpcServerInFlight.dec({ component: this.component });
    if (this.inFlight === 0) for (const waiter of this.idleWaiters.splice(0)) waiter();
  }
}

/** `rpc.<component>.<Service>.<Method>` → `<Service>.<Method>`. */
export function rpcName(channel: string): string {
  const parts = channel.split('.');
  return parts.length >= 4 && parts[0] === 'rpc' ? parts.slice(2).join('.') : channel;
}

function codeName(code: number): string {
  return CODE_NAMES[code] ?? String(code);
}
