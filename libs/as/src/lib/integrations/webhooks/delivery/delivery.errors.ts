import { Code, defineError, type ErrorDetails, type StackError } from '@lorawan/errors';

/** A failed webhook request (TTS `pkg/applicationserver/io/web/sink/http.go`): non-2xx or no response. */
export const ErrWebhookRequest = defineError('pkg/applicationserver/io/web/sink', 'request', 'request', Code.Unavailable);
/** The SSRF guard refused the destination's address (loopback, private, link-local, …). */
export const ErrForbiddenDestination = defineError(
  'pkg/applicationserver/io/web/sink',
  'forbidden_destination',
  'destination address `{address}` is not allowed',
  Code.PermissionDenied,
);
/** No response within the webhook timeout. */
export const ErrRequestTimeout = defineError('pkg/applicationserver/io/web/sink', 'timeout', 'no response within {timeout_ms} ms', Code.DeadlineExceeded);
/** Connection-level failure (refused, reset, DNS): `message` is the transport's, it names no secret. */
export const ErrTransport = defineError('pkg/applicationserver/io/web/sink', 'transport', '{message}', Code.Unavailable);

/** Embedded mode: the delivery queue in the AS's database holds its maximum of jobs (the message is refused, not dropped later). */
export const ErrQueueFull = defineError(
  'pkg/applicationserver/io/web',
  'queue_full',
  'the webhook delivery queue holds {max_jobs} jobs, its maximum',
  Code.ResourceExhausted,
);

/** ErrorDetails with TTS's `details` list (here the `google.protobuf.Struct` `{"body": …}` of a response). */
export type DeliveryErrorDetails = ErrorDetails & { details?: Array<Record<string, unknown>> };

const STRUCT_TYPE = 'type.googleapis.com/google.protobuf.Struct';

/** The error's details, with the response's body (≤ 1 KiB, valid UTF-8 only, as TTS) as a Struct detail. */
export function deliveryErrorDetails(error: StackError, body?: string): DeliveryErrorDetails {
  const details: DeliveryErrorDetails = error.toDetails();
  if (body !== undefined) details.details = [{ '@type': STRUCT_TYPE, value: { body } }];
  return details;
}
