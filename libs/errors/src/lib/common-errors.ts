import { Code } from './codes';
import { defineError, StackError } from './stack-error';

/** Errors shared by every component (TTS namespaces, so clients match them by name). */
export const ErrValidation = defineError('pkg/errors', 'validation', 'invalid `{field}`: {reason}', Code.InvalidArgument);
export const ErrInternal = defineError('pkg/errors', 'internal', 'internal error', Code.Internal);
export const ErrUnavailable = defineError('pkg/rpc', 'unavailable', 'component `{component}` is unavailable', Code.Unavailable);
export const ErrDeadlineExceeded = defineError(
  'pkg/rpc',
  'deadline_exceeded',
  'request to `{component}` timed out after {timeout_ms} ms',
  Code.DeadlineExceeded,
);
export const ErrFieldMaskPaths = defineError('pkg/rpcmiddleware/validator', 'field_mask_paths', 'forbidden path(s) in field mask', Code.InvalidArgument);
/** A request larger than the transport carries between components: refused at the edge with 413. */
export const ErrRequestTooLarge = defineError('pkg/web', 'request_too_large', 'request body is larger than {limit} bytes', Code.InvalidArgument, {
  httpStatus: 413,
});

/**
 * TTS's error of a refused access (`pkg/ratelimit:rate_limit_exceeded`, ResourceExhausted: HTTP
 * 429), its message and attributes (`key`, `rate`): the HTTP API's limits (gateway) and the
 * Basics Station LNS's failed authentications (GS).
 */
export const ErrRateLimitExceeded = defineError(
  'pkg/ratelimit',
  'rate_limit_exceeded',
  'rate limit of `{rate}` accesses per minute exceeded for resource `{key}`',
  Code.ResourceExhausted,
);

/**
 * The error of item `index` of one of our batch calls (`field` the repeated field of the items, e.g.
 * `end_devices`): a validation or policy error (InvalidArgument) becomes the cause of a validation
 * error of `<field>[<index>]`, as `decodeMessage` names a repeated message's item; any other error
 * (a taken ID: 409) keeps its name and code, gains the attribute `index`, and is its own cause.
 */
export function batchItemError(err: StackError, item: { field: string; index: number; message: string }): StackError {
  if (err.code === Code.InvalidArgument) {
    return ErrValidation.with(
      { field: `${item.field}[${item.index}]`, name: `${item.message}ValidationError`, reason: 'embedded message failed validation' },
      err,
    );
  }
  const definition = { namespace: err.namespace, name: err.errorName, messageFormat: err.messageFormat, code: err.code, httpStatus: err.httpStatus };
  return new StackError(definition, { ...err.attributes, index: item.index }, err);
}
