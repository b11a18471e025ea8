import { type ArgumentsHost, Catch, Inject, Logger, type RpcExceptionFilter } from '@nestjs/common';
import { type Observable, throwError } from 'rxjs';
import { Code, defineError, ErrInternal, type ErrorDetails, StackError } from '@lorawan/errors';
import { isDatabaseUnavailable } from '@lorawan/persistence';
import { COMPONENT_NAME } from '../tokens';

/** The component's database cannot be reached, is going away or too busy now: clients retry (503). */
export const ErrDatabaseUnavailable = defineError('pkg/util/store', 'database_unavailable', 'the database of `{component}` is unavailable', Code.Unavailable);

/**
 * Every failure of an RPC becomes an error reply (`ErrorDetails`, the TTS error as data), which the
 * gateway turns into HTTP exactly once. A StackError crosses as it is; an unreachable database is
 * `Unavailable` (503, clients retry); anything else is a bug: logged with its stack (and the
 * request's fields) and answered as `pkg/errors:internal` with a correlation ID, never its text.
 */
@Catch()
export class StackErrorFilter implements RpcExceptionFilter<unknown> {
  private readonly logger = new Logger('RpcServer');

  constructor(@Inject(COMPONENT_NAME) private readonly component: string) {}

  catch(exception: unknown, _host: ArgumentsHost): Observable<never> {
    return throwError(() => this.details(exception));
  }

  private details(exception: unknown): ErrorDetails {
    if (exception instanceof StackError) return exception.toDetails();
    if (isDatabaseUnavailable(exception)) {
      const error = ErrDatabaseUnavailable.with({ component: this.component });
      this.logger.warn({ err: exception, correlation_id: error.correlationId }, 'database unavailable');
      return error.toDetails();
    }
    const internal = ErrInternal.with();
    this.logger.error({ err: exception, correlation_id: internal.correlationId }, 'request failed unexpectedly');
    return internal.toDetails();
  }
}
