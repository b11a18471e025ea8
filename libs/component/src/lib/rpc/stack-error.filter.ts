import { type ArgumentsHost, Catch, Logger, type RpcExceptionFilter } from '@nestjs/common';
import { type Observable, throwError } from 'rxjs';
import { ErrInternal, type ErrorDetails, StackError } from '@lorawan/errors';

/**
 * Every failure of an RPC becomes an error reply (`ErrorDetails`, the TTS error as data), which the
 * gateway turns into HTTP exactly once. A StackError crosses as it is; an unreachable dependency
 * is `Unavailable` (503, clients retry); anything else is a bug: logged with its stack (and the
 * request's fields) and answered as `pkg/errors:internal` with a correlation ID, never its text.
 */
@Catch()
export class StackErrorFilter implements RpcExceptionFilter<unknown> {
  private readonly logger = new Logger('RpcServer');

  catch(exception: unknown, _host: ArgumentsHost): Observable<never> {
    return throwError(() => this.details(exception));
  }

  private details(exception: unknown): ErrorDetails {
    if (exception instanceof StackError) return exception.toDetails();
    const internal = ErrInternal.with();
    this.logger.error({ err: exception, correlation_id: internal.correlationId }, 'request failed unexpectedly');
    return internal.toDetails();
  }
}
