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

/** An MQTT-over-WebSocket upgrade that does not offer MQTT's subprotocol (MQTT 3.1.1 and 5, §6: `mqtt`; MQTT 3.1's `mqttv3.1` too). */
export const ErrMqttSubprotocol = defineError(
  'pkg/applicationserver/io/mqtt',
  'websocket_subprotocol',
  'MQTT over WebSocket needs the WebSocket subprotocol `mqtt`, offered `{offered}`',
  Code.InvalidArgument,
);

/** A plain HTTP request on the MQTT-over-WebSocket path. */
export const ErrMqttUpgradeRequired = defineError(
  'pkg/applicationserver/io/mqtt',
  'websocket_upgrade_required',
  '`{path}` serves MQTT over WebSocket only: connect with a WebSocket and the subprotocol `mqtt`',
  Code.InvalidArgument,
  { httpStatus: 426 },
);

/** The Application Server's MQTT server cannot be reached from this gateway now (or none is configured for it). */
export const ErrMqttUnavailable = defineError('pkg/applicationserver/io/mqtt', 'mqtt_unavailable', 'the MQTT server cannot be reached now', Code.Unavailable);
