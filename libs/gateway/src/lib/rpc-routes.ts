import { Injectable, Logger } from '@nestjs/common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { RPCS, type RpcContext, rpcCorrelationId, type RpcDefinition } from '@lorawan/api';
import { Code, ErrInternal, StackError } from '@lorawan/errors';
import { Authenticator } from './authenticator';
import { ErrUnauthenticated, PlainStatus } from './gateway-errors';
import { sendError, sendJson, sendStream } from './http-reply';
import { buildRequest, type CompiledBinding, compileBinding } from './request-builder';
import { RpcForwarder } from './rpc-forwarder';
import { RouteMetrics } from './route-metrics';
import { frameError, frameResult, framingFor, type StreamFraming } from './stream-framing';

/**
 * Registers one Fastify route per HTTP binding of the RPC table. Every route: authenticate (but
 * the public ones), build the request (grpc-gateway semantics), forward to the owning component, answer JSON. What
 * is logged while serving it names the request ID and the RPC (explicitly: the gateway keeps no
 * AsyncLocalStorage context per request, whose promise hooks would cost every request ~6 µs).
 */
@Injectable()
export class RpcRoutes {
  private readonly logger = new Logger('Gateway');
  private readonly compiled: CompiledBinding[] = [];

  constructor(
    private readonly auth: Authenticator,
    private readonly forwarder: RpcForwarder,
  ) {}

  register(fastify: FastifyInstance, bodyLimit: number): void {
    for (const rpc of Object.values(RPCS) as RpcDefinition[]) {
      for (const binding of rpc.http) {
        const compiled = compileBinding(binding);
        this.compiled.push(compiled);
        // Streams have their own handler (EventStreamRoute); their paths still count for unknownRoute.
        if (rpc.stream) continue;
        const route = routeLabel(binding.path);
        fastify.route({
          method: binding.verb,
          url: compiled.fastifyPath,
          bodyLimit,
          config: { route, metrics: new RouteMetrics(binding.verb, route) },
          handler: (req: FastifyRequest, reply: FastifyReply) => this.handle(rpc, binding, compiled, req, reply),
        });
      }
    }
  }

  private async handle(
    rpc: RpcDefinition,
    binding: RpcDefinition['http'][number],
    compiled: CompiledBinding,
    req: FastifyRequest,
    reply: FastifyReply,
  ): Promise<FastifyReply | undefined> {
    try {
      const authorization = req.headers.authorization;
      if (!authorization && !rpc.public) throw ErrUnauthenticated.with();
      const request = buildRequest(
        binding,
        compiled,
        req.params as Record<string, string>,
        req.query as Record<string, string | string[]>,
        req.body as string | undefined,
        rpc.request,
      );
      // A public RPC (TTS's `Configuration`) is answered to anyone: its credential, if any, is not looked at.
      const caller = rpc.public || !authorization ? undefined : await this.auth.authenticate(authorization, rpc, request, req.id);
      req.callerId = caller?.id;
      const ctx = { request_id: req.id, correlation_ids: [rpcCorrelationId(rpc, req.id)], caller };
      const result = await this.forwarder.forward(rpc, request, ctx);
      if (result.total !== undefined) reply.header('x-total-count', String(result.total));
      if (rpc.emptyResponse) void reply.code(200).send('');
      else if (rpc.streamOf) {
        const framing = framingFor(req.headers.accept);
        sendStream(reply, framing.contentType, this.pages(rpc, rpc.streamOf, request, ctx, result.body as StreamPage, framing, req.id));
        // An async handler that sent a stream returns the reply, so that Fastify waits for the stream instead of ending the response.
        return reply;
      } else sendJson(reply, result.body);
    } catch (err) {
      const status = rpc.httpStatusFor && err instanceof StackError ? rpc.httpStatusFor[`${err.namespace}:${err.errorName}`] : undefined;
      if (status !== undefined) void reply.code(status).send('');
      else sendError(reply, err, (fields, message) => this.logger.error({ ...fields, request_id: req.id, rpc: rpc.name }, message));
    }
    return undefined;
  }

  /**
   * The frames of a server stream answered in pages (`RpcDefinition.streamOf`): each page's
   * messages, then the next page while the reply names one; an error of a later page is the
   * stream's last message. Stops when the client is gone (the stream is then not read on).
   */
  private async *pages(
    rpc: RpcDefinition,
    field: string,
    request: object,
    ctx: RpcContext,
    first: StreamPage,
    framing: StreamFraming,
    requestId: string,
  ): AsyncGenerator<string> {
    let page = first;
    for (;;) {
      const messages = page[field];
      if (Array.isArray(messages) && messages.length > 0) yield messages.map((m) => frameResult(m, framing)).join('');
      const token = page.continuation_token;
      if (typeof token !== 'string' || token === '') return;
      try {
        page = (await this.forwarder.forward(rpc, { ...request, continuation_token: token }, ctx)).body as StreamPage;
      } catch (err) {
        let error = err;
        if (!(err instanceof StackError)) {
          error = ErrInternal.with();
          this.logger.error({ err, correlation_id: (error as StackError).correlationId, request_id: requestId, rpc: rpc.name }, 'unhandled error');
        }
        yield frameError((error as StackError).toStatus(), framing);
        return;
      }
    }
  }

  /** Unknown route: 501 "Method Not Allowed" when the path exists with another verb, else 404 (grpc-gateway). */
  unknownRoute(url: string): PlainStatus {
    const path = url.split('?')[0];
    if (path.startsWith('/api/v3/') && this.compiled.some((c) => c.pattern.test(path))) return new PlainStatus(Code.Unimplemented, 'Method Not Allowed');
    return new PlainStatus(Code.NotFound, 'Not Found');
  }
}

/** The route as the RPC table writes it (`/api/v3/applications/{application_ids.application_id}/devices`), for logs and metrics. */
export function routeLabel(path: string): string {
  return `/api/v3${path}`;
}

/** A page of a server stream: its messages (in the RPC's `streamOf` field) and the token of the next one. */
type StreamPage = Record<string, unknown> & { continuation_token?: unknown };

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's template in the RPC table's notation. */
    route?: string;
    /** The route's request metrics, resolved once. */
    metrics?: RouteMetrics;
  }

  interface FastifyRequest {
    /** The ID of the credential the request was made with (an API key ID, never its secret), for the access log. */
    callerId?: string;
  }
}
