import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { Code, ErrInternal, httpStatusOf, StackError } from '@lorawan/errors';
import { PlainStatus } from './gateway-errors';

export type ErrorLog = (fields: Record<string, unknown>, message: string) => void;

/** Errors become HTTP exactly here, through the one code → status table. */
export function sendError(reply: FastifyReply, err: unknown, log?: ErrorLog): void {
  let code: Code;
  let status: number;
  let body: unknown;
  if (err instanceof StackError || err instanceof PlainStatus) {
    code = err.code;
    status = err instanceof StackError ? httpStatusOf(err) : httpStatusOf({ code });
    body = err.toStatus();
    if (err instanceof StackError && code === Code.Unauthenticated) reply.header('www-authenticate', err.fullMessage);
  } else {
    const internal = ErrInternal.with();
    log?.({ err, correlation_id: internal.correlationId }, 'unhandled error');
    code = internal.code;
    status = httpStatusOf(internal);
    body = internal.toStatus();
  }
  void reply.code(status).header('content-type', 'application/json').send(JSON.stringify(body));
}

export function sendJson(reply: FastifyReply, body: unknown): void {
  void reply
    .code(200)
    .header('content-type', 'application/json')
    .send(JSON.stringify(body ?? {}));
}

/** A stream of framed messages (a server stream answered in pages, `RpcDefinition.streamOf`): sent as they come, with backpressure. */
export function sendStream(reply: FastifyReply, contentType: string, frames: AsyncIterable<string>): void {
  void reply.code(200).header('content-type', contentType).header('cache-control', 'no-cache').send(Readable.from(frames));
}
