import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger, NotFoundException } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Code } from '@lorawan/errors';
import { PlainStatus } from './gateway-errors';
import { sendError } from './http-reply';
import type { RpcRoutes } from './rpc-routes';

/** Whatever escapes a route (including Nest's own "no route" error) leaves in the TTS error shape. */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Gateway');

  constructor(private readonly routes: RpcRoutes) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const reply = http.getResponse<FastifyReply>();
    const request = http.getRequest<FastifyRequest>();
    if (exception instanceof NotFoundException) return sendError(reply, this.routes.unknownRoute(request.url));
    if (exception instanceof HttpException && exception.getStatus() < 500) {
      return sendError(reply, new PlainStatus(Code.InvalidArgument, exception.message));
    }
    sendError(reply, exception, (m) => this.logger.error(m));
  }
}
