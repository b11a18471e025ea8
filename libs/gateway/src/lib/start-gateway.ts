import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type IncomingMessage } from 'node:http';
import { randomBytes } from 'node:crypto';
import { factory } from 'ulid';
import { createLogger } from '@lorawan/component';
import { Code, ErrRequestTooLarge } from '@lorawan/errors';
import { PlainStatus } from './gateway-errors';
import { GatewayModule, type GatewayOptions } from './gateway.module';
import { sendError } from './http-reply';
import { RpcRoutes } from './rpc-routes';
import { EventStreamRoute } from './event-stream.route';
import { ApiExceptionFilter } from './api-exception.filter';

/** 16 MiB, as TTS. */
export const BODY_LIMIT = 16 * 1024 * 1024;
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** ULIDs from a pooled CSPRNG buffer: the default draws `randomBytes(1)` per character (~50 µs a request). */
const pool = { bytes: randomBytes(4096), offset: 4096 };
const ulid = factory(() => {
  if (pool.offset >= pool.bytes.length) {
    pool.bytes = randomBytes(4096);
    pool.offset = 0;
  }
  return pool.bytes[pool.offset++] / 256;
});

function requestId(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : ulid();
}

export interface RunningGateway {
  app: NestFastifyApplication;
  port: number;
  close(): Promise<void>;
}

/** The HTTP edge: `/api/v3/**` from the RPC table (event streams included), `/healthz`, `/readyz`. */
export async function startGateway(options: GatewayOptions & { port?: number; host?: string }): Promise<RunningGateway> {
  const adapter = new FastifyAdapter({ bodyLimit: BODY_LIMIT, genReqId: requestId, requestIdHeader: false, logger: false, return503OnClosing: true });
  const app = await NestFactory.create<NestFastifyApplication>(GatewayModule.forRoot(options), adapter, {
    bodyParser: false,
    logger: createLogger(options.config, 'gateway'),
    abortOnError: false,
  });
  const fastify = app.getHttpAdapter().getInstance() as unknown as FastifyInstance;

  fastify.addHook('onRequest', async (req, reply) => {
    reply.header('x-request-id', req.id);
  });
  // Bodies stay text until a route that takes one decodes them (request-builder), whatever the
  // Content-Type, as grpc-gateway does; routes without a body and unknown routes never parse it.
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (_req: FastifyRequest, body: string | Buffer, done) => done(null, body.toString()));
  fastify.setErrorHandler((err, _req, reply) => {
    const e = err as { code?: string; statusCode?: number };
    if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return sendError(reply, ErrRequestTooLarge.with({ limit: BODY_LIMIT }));
    if (err instanceof PlainStatus) return sendError(reply, err);
    if (e.statusCode && e.statusCode < 500) return sendError(reply, new PlainStatus(Code.InvalidArgument, (err as Error).message));
    sendError(reply, err);
  });
  const routes = app.get(RpcRoutes);
  routes.register(fastify);
  app.get(EventStreamRoute).register(fastify);
  app.useGlobalFilters(new ApiExceptionFilter(routes));

  await app.listen(options.port ?? options.config.httpPort, options.host ?? '0.0.0.0');
  const address = fastify.server.address();
  const port = typeof address === 'object' && address ? address.port : (options.port ?? options.config.httpPort);
  return { app, port, close: () => app.close() };
}
