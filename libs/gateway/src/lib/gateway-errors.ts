import { Code, defineError, type StatusBody } from '@lorawan/errors';

/** The credential errors are shared with the Identity Server: defined once in @lorawan/errors. */
export { ErrApiKeyNotFound, ErrInvalidToken, ErrUnauthenticated, ErrUnsupportedAuthorization } from '@lorawan/errors';

/**
 * Errors the HTTP layer itself produces (bad JSON, bad query parameter, unknown route) are plain
 * statuses without details, as grpc-gateway writes them.
 */
export class PlainStatus extends Error {
  constructor(
    readonly code: Code,
    message: string,
  ) {
    super(message);
  }

  toStatus(): StatusBody {
    return { code: this.code, message: this.message };
  }
}

/** A stream's subscriber reads slower than its events arrive: the gateway ends the stream rather than buffer without bound. */
export const ErrStreamBufferFull = defineError(
  'pkg/events',
  'slow_subscriber',
  'the subscriber reads too slowly: {buffered_bytes} bytes are waiting to be sent (at most {max_bytes})',
  Code.ResourceExhausted,
);

/** A credential with as many event streams open on this gateway as it may have (`EVENTS_MAX_STREAMS_PER_KEY`). */
export const ErrTooManyStreams = defineError(
  'pkg/events',
  'too_many_streams',
  '{open} event streams are open with this credential, at most {max} may be',
  Code.ResourceExhausted,
);

/**
 * The rights a stream was opened with changed (a collaborator, membership or key update): the stream
 * ends rather than go on with rights the credential no longer has; the client reconnects and gets
 * the current ones.
 */
export const ErrStreamRightsChanged = defineError(
  'pkg/events',
  'rights_changed',
  'the rights of the credential changed since the stream opened: reconnect',
  Code.Aborted,
);
