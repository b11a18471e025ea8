import 'reflect-metadata';
import type { IncomingMessage } from 'node:http';
import type { LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { newUlid } from '@lorawan/api';
import { childLogger } from '@lorawan/observability';
import { ApiExceptionFilter } from './api-exception.filter';
import { EventStreamRoute } from './event-stream.route';
import { GatewayModule, type GatewayOptions, requestBodyLimit } from './gateway.module';
import { GatewayState } from './gateway-state';
import { metricsOf } from './route-metrics';
import { RpcRoutes } from './rpc-routes';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const OPERATIONS_ROUTES = new Set(['/healthz', '/readyz', '/metrics']);

/** The client's X-Request-Id when it is a sane one, else a new ULID. */
function requestId(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : newUlid();
}

export interface RunningGateway {
  app: NestFastifyApplication;
  port: number;
  /** Readiness turns false (first step of a shutdown). */
  beginShutdown(): void;
  /** Stops accepting, finishes requests in flight, ends event streams. */
  close(): Promise<void>;
}

/**
 * The HTTP edge: `/api/v3/**` from the RPC table (event streams included), `/healthz`, `/readyz`,
 * `/metrics`; one access-log line and one metrics sample per request.
 */
export async function startGateway(options: GatewayOptions & { port?: number; host?: string; logger?: LoggerService | false }): Promise<RunningGateway> {
  const bodyLimit = requestBodyLimit(options.messaging.maxPayload);
  const adapter = new FastifyAdapter({ bodyLimit, genReqId: requestId, requestIdHeader: false, logger: false, return503OnClosing: true });
  const app = await NestFactory.create<NestFastifyApplication>(GatewayModule.forRoot(options), adapter, {
    bodyParser: false,
    logger: options.logger ?? ['error', 'warn'],
    abortOnError: false,
  });
  const fastify = app.getHttpAdapter().getInstance() as unknown as FastifyInstance;
  // Straight through pino (level checked first): one line per request is on the hottest path.
  const accessLog = childLogger({ context: 'Access' });

  fastify.decorateRequest('callerId', undefined);
  // Callback hooks, not async ones: no promise per request and hook.
  fastify.addHook('onRequest', (req, reply, done) => {
    reply.header('x-request-id', req.id);
    done();
  });
  fastify.addHook('onResponse', (req, reply, done) => {
    const options = req.routeOptions; // a new object per read
    const config = options.config;
    const route = config.route ?? options.url ?? 'unmatched';
    (config.metrics ?? metricsOf(req.method, route)).record(reply.statusCode, reply.elapsedTime / 1000);
    // One line per request: never the Authorization header, only the key's ID. Probes and scrapes only at debug.
    const level = OPERATIONS_ROUTES.has(route) ? 'debug' : 'info';
    if (accessLog?.isLevelEnabled(level)) {
      accessLog[level](
        {
          request_id: req.id,
          method: req.method,
          route,
          status: reply.statusCode,
          duration_ms: Math.round(reply.elapsedTime * 100) / 100,
          api_key_id: req.callerId,
        },
        'request',
      );
    }
    done();
  });
  // Bodies stay text until a route that takes one decodes them (request-builder), whatever the
  // Content-Type, as grpc-gateway does; routes without a body and unknown routes never parse it.
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', { parseAs: 'string', bodyLimit }, (_req: FastifyRequest, body: string | Buffer, done) => done(null, body.toString()));
  const routes = app.get(RpcRoutes);
  routes.register(fastify, bodyLimit);
  app.get(EventStreamRoute).register(fastify);
  // Errors Fastify raises before a route runs (body too large, bad request) reach Nest's error handler and this filter.
  app.useGlobalFilters(new ApiExceptionFilter(routes, bodyLimit));

  await app.listen(options.port ?? options.config.httpPort, options.host ?? '0.0.0.0');
  const address = fastify.server.address();
  const port = typeof address === 'object' && address ? address.port : (options.port ?? options.config.httpPort);
  const state = app.get(GatewayState);
  return {
    app,
    port,
    beginShutdown: () => state.beginShutdown(),
    close: async () => {
      state.beginShutdown();
      await app.close();
    },
  };
}
