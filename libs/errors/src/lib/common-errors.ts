import { Code } from './codes';
import { defineError } from './stack-error';

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
