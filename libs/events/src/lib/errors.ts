import { Code, defineError } from '@lorawan/errors';

/** Errors of the events service, with TTS's names where TTS has the case (wire contract §7.2). */
export const ErrNoIdentifiers = defineError('pkg/events/grpc', 'no_identifiers', 'no identifiers', Code.InvalidArgument);
export const ErrInvalidRegexp = defineError('pkg/events', 'invalid_regexp', 'invalid regexp', Code.InvalidArgument);
export const ErrNoMatchingEvents = defineError('pkg/events', 'no_matching_events', 'no matching events for regexp `{regexp}`', Code.InvalidArgument);
export const ErrUnknownEventName = defineError('pkg/events', 'unknown_event_name', 'unknown event `{name}`', Code.InvalidArgument);

/** A session with this ID is open already (a gateway picks a new ID per stream). */
export const ErrSessionExists = defineError('pkg/events', 'session_exists', 'stream session `{session_id}` exists already', Code.AlreadyExists);
/** A stream had more messages waiting than EVENTS_STREAM_BUFFER: it ends rather than buffer without bound. */
export const ErrBufferFull = defineError(
  'pkg/events',
  'buffer_full',
  'more than {max_messages} messages are waiting to be sent on the stream',
  Code.ResourceExhausted,
);
/** The gateway stopped pinging the session (it is gone, or cut off from this replica). */
export const ErrSessionExpired = defineError(
  'pkg/events',
  'session_expired',
  'stream session `{session_id}` was not pinged for {timeout_ms} ms',
  Code.DeadlineExceeded,
);
/** History (`tail`/`after`) could not be read (JetStream unreachable). */
export const ErrHistoryUnavailable = defineError('pkg/events', 'history_unavailable', 'event history is unavailable', Code.Unavailable);
/** The replica serving the stream stops. */
export const ErrShuttingDown = defineError('pkg/events', 'shutting_down', 'the events service is shutting down', Code.Unavailable);
