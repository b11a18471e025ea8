import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { newUlid } from '@lorawan/api';
import { Code, rawHttpResponse } from '@lorawan/errors';
import { childLogger, httpConnectionsRefused, LogSampler } from '@lorawan/observability';
import { ApiExceptionFilter } from './api-exception.filter';
import { limitConnectionsPerAddress } from './connection-limit';
import { httpTimeouts } from './http-timeouts';
import { answerExpectContinue } from './oversized-body';
import { EventStreamRoute } from './event-stream.route';
import { OpenApiRoute } from './openapi.route';
import { ConsoleRoute } from './console.route';
import { UPDATE_INFO_PATH, UpdateInfoRoute } from './cups/update-info.route';
import { GatewayModule, type GatewayOptions, requestBodyLimit } from './gateway.module';
import { GatewayState } from './gateway-state';
import { metricsOf } from './route-metrics';
import { RateLimits } from './rate-limits';
import { RpcRoutes } from './rpc-routes';
import { sendError } from './http-reply';
import { PlainStatus } from './gateway-errors';
import { MqttWebSocketBridge } from './mqtt-websocket/mqtt-websocket.bridge';
import { type MqttUpstream, tcpMqttUpstream } from './mqtt-websocket/mqtt-upstream';

/** The HTTP API's paths: what the abuse limits count (not the probes and the metrics scrape). */
const API_PREFIX = '/api/v3/';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const OPERATIONS_ROUTES = new Set(['/healthz', '/readyz', '/metrics']);
/** How long the gateway waits for the AS's MQTT listener (MQTT_WS_UPSTREAM) to accept a WebSocket client's connection. */
const MQTT_UPSTREAM_CONNECT_TIMEOUT_MS = 5000;

/** The client's X-Request-Id when it is a sane one, else a new ULID. */
function requestId(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : newUlid();
}

/**
 * A request Node's HTTP parser refuses before fastify sees it (headers over the size limit, a
 * malformed request line) or that took longer than HTTP_REQUEST_TIMEOUT_MS to arrive: fastify's
 * answer in the API's error shape (`{code, message}`, as grpc-gateway writes its own errors),
 * unless a response already began on the connection, then the connection is closed.
 */
function writeClientError(err: NodeJS.ErrnoException, socket: Duplex & { _httpMessage?: ServerResponse }): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  // Node's own handler checks the same (the response in progress on the connection, if any).
  if (socket._httpMessage?.headersSent) return void socket.destroy(err);
  const [status, code, message] =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, Code.DeadlineExceeded, 'client timeout']
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? [431, Code.InvalidArgument, 'request header fields too large']
        : [400, Code.InvalidArgument, 'malformed HTTP request'];
  const body = JSON.stringify({ code, message });
  if (socket.writable) {
    socket.write(rawHttpResponse(status, body));
  }
  socket.destroy(err);
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
 * The HTTP edge: `/api/v3/**` from the RPC table (event streams included), the API's OpenAPI
 * document and docs page, the web console (`/console`), MQTT over WebSocket (`MQTT_WS_PATH`),
 * `/healthz`, `/readyz`, `/metrics`; one access-log line and one metrics sample per request.
 * `mqttUpstream`: the AS's MQTT server when it runs in this process (else MQTT_WS_UPSTREAM's).
 */
export async function startGateway(
  options: GatewayOptions & { port?: number; host?: string; logger?: LoggerService | false; mqttUpstream?: MqttUpstream },
): Promise<RunningGateway> {
  const bodyLimit = requestBodyLimit(options.messaging.maxPayload);
  const tls = options.config.httpTls;
  const timeouts = httpTimeouts(options.config.http);
  const adapter = new FastifyAdapter({
    // HTTPS with HTTP_TLS_CERT_FILE and HTTP_TLS_KEY_FILE (read once at start; a new certificate needs a restart).
    ...(tls ? { https: { cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile), ...timeouts.server } } : { http: timeouts.server }),
    ...timeouts.fastify,
    bodyLimit,
    genReqId: requestId,
    requestIdHeader: false,
    logger: false,
    return503OnClosing: true,
    // A path fastify's router refuses (bad percent-encoding, a parameter over its length) is a bad argument, in the API's error shape.
    frameworkErrors: (error: FastifyError, _req: FastifyRequest, reply: FastifyReply) => sendError(reply, new PlainStatus(Code.InvalidArgument, error.message)),
    clientErrorHandler: writeClientError,
  });
  const app = await NestFactory.create<NestFastifyApplication>(GatewayModule.forRoot(options), adapter, {
    bodyParser: false,
    logger: options.logger ?? ['error', 'warn'],
    abortOnError: false,
  });
  const fastify: FastifyInstance = adapter.getInstance();
  // Straight through pino (level checked first): one line per request is on the hottest path.
  const accessLog = childLogger({ context: 'Access' });
  const gatewayLog = childLogger({ context: 'Gateway' });
  const sampler = new LogSampler();
  limitConnectionsPerAddress(fastify.server, options.config.http.maxConnectionsPerAddress, (address) => {
    httpConnectionsRefused.inc();
    const heldBack = sampler.sample('connection_refused');
    if (heldBack !== undefined) gatewayLog?.warn({ address, held_back: heldBack }, 'connection refused: too many open from its address');
  });
  answerExpectContinue(fastify.server, bodyLimit);

  fastify.decorateRequest('callerId', undefined);
  // Callback hooks, not async ones: no promise per request and hook.
  const rateLimits = new RateLimits({ perKeyPerMin: options.config.limits.apiKeyPerMin, perAddressPerMin: options.config.limits.addressPerMin });
  fastify.addHook('onRequest', (req, reply, done) => {
    reply.header('x-request-id', req.id);
    // The API and CUPS (each a key check at the IS), not the console, probes or metrics.
    if (!rateLimits.enabled || !(req.url.startsWith(API_PREFIX) || req.url.startsWith(UPDATE_INFO_PATH))) return done();
    // A refused request is answered here (429) and goes no further: `done` is not called then.
    rateLimits.admit(req, reply, (err) => sendError(reply, err)).then((admitted) => admitted && done(), done);
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
  app.get(OpenApiRoute).register(fastify);
  app.get(ConsoleRoute).register(fastify);
  app.get(UpdateInfoRoute).register(fastify, bodyLimit);
  const mqttWs = options.config.http.mqttWebSocket;
  const mqttUpstream = options.mqttUpstream ?? (mqttWs.upstream ? tcpMqttUpstream(mqttWs.upstream, MQTT_UPSTREAM_CONNECT_TIMEOUT_MS) : undefined);
  const mqttBridge = mqttWs.path ? new MqttWebSocketBridge({ path: mqttWs.path, upstream: mqttUpstream, maxPayload: options.messaging.maxPayload }) : undefined;
  mqttBridge?.register(fastify);
  // Errors Fastify raises before a route runs (body too large, bad request) reach Nest's error handler and this filter.
  app.useGlobalFilters(new ApiExceptionFilter(routes, { bodyLimit, drainBytes: options.config.http.oversizedBodyDrainBytes }));

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
      // WebSockets are no requests: the HTTP server's close would wait for them.
      mqttBridge?.close();
      await app.close();
    },
  };
}
