import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger, NotFoundException } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Code, ErrRequestTooLarge } from '@lorawan/errors';
import { PlainStatus } from './gateway-errors';
import { sendError } from './http-reply';
import { afterBody } from './oversized-body';
import type { RpcRoutes } from './rpc-routes';

/**
 * Whatever escapes a route leaves in the TTS error shape: Nest's "no route" (404, or 501 when the
 * path exists with another verb), and the errors Fastify raises before a route runs, which reach
 * Nest's error handler (a body over the limit → 413, once the client can read it: `afterBody`; a
 * malformed request → 400).
 */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Gateway');

  constructor(
    private readonly routes: RpcRoutes,
    private readonly bodies: { bodyLimit: number; drainBytes: number },
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const reply = http.getResponse<FastifyReply>();
    const request = http.getRequest<FastifyRequest>();
    if (exception instanceof NotFoundException) return sendError(reply, this.routes.unknownRoute(request.url));
    const fastifyError = exception as { code?: string; statusCode?: number; message?: string };
    if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || (exception instanceof HttpException && exception.getStatus() === 413)) {
      return afterBody(request.raw, this.bodies.drainBytes, () => {
        void reply.header('connection', 'close');
        sendError(reply, ErrRequestTooLarge.with({ limit: this.bodies.bodyLimit }));
      });
    }
    if (exception instanceof HttpException && exception.getStatus() < 500) return sendError(reply, new PlainStatus(Code.InvalidArgument, exception.message));
    if (exception instanceof PlainStatus) return sendError(reply, exception);
    if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode < 500)
      return sendError(reply, new PlainStatus(Code.InvalidArgument, fastifyError.message ?? 'bad request'));
    sendError(reply, exception, (fields, message) => this.logger.error(fields, message));
  }
}
