import { performance } from 'node:perf_hooks';
import { Logger } from '@nestjs/common';
import type { BaseRpcContext, MessageHandler, WritePacket } from '@nestjs/microservices';
import { isObservable, type Observable, type Subscription } from 'rxjs';
import { rpcNameOfSubject } from '@lorawan/api';
import { Code, codeName, defineError, type ErrorDetails, ErrInternal } from '@lorawan/errors';
import { logsAt, RpcMetrics, setInFlightSource, withLogFields } from '@lorawan/observability';
import { decodeRequest, encodePacket, type ReplyPacket } from './rpc-packet';

const ErrMalformedPacket = defineError('pkg/rpc', 'malformed_request', 'the request is not a JSON request packet', Code.InvalidArgument);
const ErrNoHandler = defineError('pkg/rpc', 'unimplemented', '`{subject}` is not served here', Code.Unimplemented);
const ErrResponseTooLarge = defineError(
  'pkg/rpc',
  'response_too_large',
  'the response of {bytes} bytes is larger than the {max_bytes} bytes the transport carries',
  Code.ResourceExhausted,
);

/**
 * What a server strategy lends the dispatcher (Nest's `Server`): its handlers by pattern (looked up
 * directly: `getHandlerByPattern` first tries `JSON.parse` on the pattern, which throws for every
 * plain subject) and its reply plumbing for Observable results.
 */
export interface HandlerHost {
  getHandlers(): Map<string, MessageHandler>;
  send(stream$: Observable<unknown>, respond: (data: WritePacket) => Promise<unknown> | void): Subscription;
}

/** Where a reply goes (a NATS message's reply subject, or an in-process caller). */
export type Reply = (bytes: Uint8Array) => void;

/** What is counted per subject, resolved once. */
interface Channel {
  rpc: string;
  metrics: RpcMetrics;
}

/**
 * The part of serving an RPC that both server strategies (NATS and in-process) share, so both
 * run one code path: decodes the packet, runs Nest's handler (guards, pipes, the handler,
 * exception filters) with the request's log fields (request ID, RPC, component) on every line,
 * sends one reply (refusing one larger than the transport carries), counts and times it, and
 * keeps track of what is in flight so a shutdown can wait for it.
 */
export class RpcDispatcher {
  private readonly logger = new Logger('RpcServer');
  private readonly channels = new Map<string, Channel>();
  private inFlight = 0;
  private idleWaiters: Array<() => void> = [];

  constructor(
    private readonly host: HandlerHost,
    private readonly component: string,
    private readonly maxPayload: () => number,
  ) {
    setInFlightSource(component, () => this.inFlight);
  }

  /** Serves one request on `channel` (the pattern, without subject prefix). */
  async dispatch(channel: string, bytes: Uint8Array, reply: Reply | undefined, transportContext: BaseRpcContext): Promise<void> {
    const started = performance.now();
    const stats = this.channel(channel);
    this.inFlight++;
    let replied = false;
    const respond = (out: ReplyPacket): void => {
      if (replied) return;
      replied = true;
      this.send(reply, out, stats.rpc);
      const code = codeName(out.err?.code ?? Code.OK);
      const seconds = (performance.now() - started) / 1000;
      stats.metrics.record(code, seconds);
      if (logsAt('debug')) this.logger.debug({ code, duration_ms: Math.round(seconds * 100_000) / 100 }, 'handled');
      if (--this.inFlight === 0) for (const waiter of this.idleWaiters.splice(0)) waiter();
    };
    const packet = decodeRequest(bytes);
    if (!packet) return respond({ id: '', err: ErrMalformedPacket.with().toDetails(), isDisposed: true });
    const handler = this.host.getHandlers().get(channel);
    if (!handler) return respond({ id: packet.id, err: ErrNoHandler.with({ subject: channel }).toDetails(), isDisposed: true });
    const requestId = typeof packet.data?.ctx?.request_id === 'string' ? packet.data.ctx.request_id : undefined;
    const fields = { request_id: requestId, rpc: stats.rpc, component: this.component, ...uplinkOf(packet.data?.ctx?.correlation_ids) };
    await withLogFields(fields, async () => {
      try {
        const result: unknown = await handler(packet.data, transportContext);
        // Nest answers a failure (its exception filter's) and an Observable handler as Observables;
        // everything else is the reply itself.
        if (!isObservable(result)) return respond({ id: packet.id, response: result, isDisposed: true });
        let last: unknown;
        this.host.send(result, (out) => {
          if (out.response !== undefined) last = out.response;
          if (out.err !== undefined) respond({ id: packet.id, err: out.err as ErrorDetails, isDisposed: true });
          else if (out.isDisposed) respond({ id: packet.id, response: last, isDisposed: true });
        });
      } catch (err) {
        // Nest's exception filters answer errors as data; reaching here is a bug in the pipeline.
        this.logger.error({ err }, 'RPC pipeline failed');
        respond({ id: packet.id, err: ErrInternal.with().toDetails(), isDisposed: true });
      }
    });
  }

  /**
   * A server's close, once it takes no more requests: waits until nothing is in flight, at most
   * `graceMs` (SHUTDOWN_GRACE_MS), and says so when it gives up.
   */
  async drain(graceMs: number): Promise<void> {
    if (this.inFlight === 0) return;
    const idle = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), graceMs);
      this.idleWaiters.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    if (!idle) this.logger.warn({ in_flight: this.inFlight, grace_ms: graceMs }, 'requests still in flight after the grace period; closing anyway');
  }

  private channel(channel: string): Channel {
    let stats = this.channels.get(channel);
    if (!stats) {
      const rpc = rpcNameOfSubject(channel);
      this.channels.set(channel, (stats = { rpc, metrics: RpcMetrics.served(this.component, rpc) }));
    }
    return stats;
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
}

/** The radio uplink a request belongs to (its first `gs:uplink:` correlation ID), so every line of the uplink's handling carries it. */
function uplinkOf(correlationIds: unknown): { uplink_id?: string } {
  if (!Array.isArray(correlationIds)) return {};
  const id = correlationIds.find((c): c is string => typeof c === 'string' && c.startsWith('gs:uplink:'));
  return id ? { uplink_id: id } : {};
}
