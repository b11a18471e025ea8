import type { FastifyReply } from 'fastify';
import { Code, ErrInternal, httpStatusFromCode, StackError } from '@lorawan/errors';
import { PlainStatus } from './gateway-errors';

/** Errors become HTTP exactly here, through the one code → status table. */
export function sendError(reply: FastifyReply, err: unknown, log?: (message: string) => void): void {
  let code: Code;
  let body: unknown;
  if (err instanceof StackError || err instanceof PlainStatus) {
    code = err.code;
    body = err.toStatus();
    if (err instanceof StackError && code === Code.Unauthenticated) reply.header('www-authenticate', err.fullMessage);
  } else {
    const internal = ErrInternal.with();
    log?.(`unhandled error (correlation ${internal.correlationId}): ${(err as Error)?.stack ?? String(err)}`);
    code = internal.code;
    body = internal.toStatus();
  }
  void reply.code(httpStatusFromCode(code)).header('content-type', 'application/json').send(JSON.stringify(body));
}

export function sendJson(reply: FastifyReply, body: unknown): void {
  void reply.code(200).header('content-type', 'application/json').send(JSON.stringify(body ?? {}));
}
