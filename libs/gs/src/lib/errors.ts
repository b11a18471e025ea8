import { Code, defineError } from '@lorawan/errors';

/** Gateway Server errors (TTS `pkg/gatewayserver` names, so clients match them). */
export const ErrMessageCRC = defineError('pkg/gatewayserver/io', 'message_crc', 'message CRC failed', Code.InvalidArgument);
export const ErrInvalidPayload = defineError('pkg/gatewayserver/io', 'unmarshal_payload', 'invalid LoRaWAN frame: {reason}', Code.InvalidArgument);
export const ErrConnectionExpired = defineError('pkg/gatewayserver/io/udp', 'connection_expired', 'connection expired', Code.Unavailable);
export const ErrServerStopped = defineError('pkg/gatewayserver', 'server_stopped', 'the Gateway Server stopped', Code.Unavailable);
export const ErrNoNetworkServer = defineError('pkg/gatewayserver', 'network_server_unavailable', 'no Network Server took the uplink', Code.Unavailable);
export const ErrUplinkToken = defineError('pkg/gatewayserver', 'uplink_token', 'invalid uplink token', Code.InvalidArgument);
export const ErrGatewayNotConnected = defineError('pkg/gatewayserver', 'not_connected', 'gateway `{gateway_uid}` not connected', Code.NotFound);
export const ErrNoDownlinkPath = defineError(
  'pkg/gatewayserver/io/udp',
  'no_downlink_path',
  'gateway `{gateway_uid}` has no downlink path (no recent PULL_DATA)',
  Code.FailedPrecondition,
);
export const ErrNoRxWindow = defineError('pkg/gatewayserver/io', 'no_rx_window', 'the request names no receive window', Code.InvalidArgument);
/** TTS `scheduling` too_late (attributes `delay`, `min`): the latest time the downlink could go out is too close, or past. */
export const ErrTooLate = defineError(
  'pkg/gatewayserver/io',
  'too_late',
  'too late to transmit (the latest transmission time is {delay_ms} ms away, {min_ms} ms needed)',
  Code.FailedPrecondition,
);
/** TTS `io` no_absolute_time: a class B downlink goes out in a ping slot, so its request must say when. */
export const ErrNoAbsoluteTime = defineError(
  'pkg/gatewayserver/io',
  'no_absolute_time',
  'no absolute time provided for class B downlink',
  Code.InvalidArgument,
);
/**
 * TTS `io` no_gps_sync: a transmission at an absolute (GPS) time needs a gateway whose latest
 * uplink carried its GPS time (`tmms`); without a GPS fix the forwarder cannot honour one.
 */
export const ErrNoGpsSync = defineError('pkg/gatewayserver/io', 'no_gps_sync', 'gateway time is not GPS synchronized', Code.FailedPrecondition);
export const ErrDataRate = defineError(
  'pkg/gatewayserver/io',
  'data_rate',
  'the data rate is not a downlink data rate of band `{band_id}`',
  Code.InvalidArgument,
);
export const ErrFrequencyNotAllowed = defineError(
  'pkg/gatewayserver/io',
  'frequency_not_allowed',
  'frequency `{frequency}` is outside the sub-bands of frequency plan `{frequency_plan_id}`',
  Code.FailedPrecondition,
);
export const ErrFrequencyPlan = defineError(
  'pkg/gatewayserver',
  'frequency_plan',
  'gateway `{gateway_uid}` has no known frequency plan',
  Code.FailedPrecondition,
);
export const ErrNetworkServerBusy = defineError(
  'pkg/gatewayserver',
  'network_server_busy',
  'the Network Server is shedding load: the {kind} was not forwarded',
  Code.ResourceExhausted,
);
/**
 * TTS `scheduling` conflict: the emission would overlap another of the gateway's radio, counting
 * the time the radio needs off the air after each (a concentrator transmits one frame at a time;
 * the packet forwarder's JIT queue answers `COLLISION_PACKET`).
 */
export const ErrConflict = defineError(
  'pkg/gatewayserver/scheduling',
  'conflict',
  'scheduling conflict with the emission from {conflict_starts_us} to {conflict_ends_us} µs',
  Code.AlreadyExists,
);
/**
 * TTS `scheduling` duty_cycle (attributes `used`, `usable`, `priority`, in percent of the window):
 * some window of the sub-band would hold more airtime than the priority may use of its duty cycle.
 */
export const ErrDutyCycle = defineError(
  'pkg/gatewayserver/scheduling',
  'duty_cycle',
  'utilization `{used}%` would be higher than the available `{usable}%` for priority `{priority}`',
  Code.ResourceExhausted,
);
/** TTS `scheduling` sub_band_not_found: the frequency is in none of the sub-bands of the gateway's frequency plans. */
export const ErrSubBandNotFound = defineError(
  'pkg/gatewayserver/scheduling',
  'sub_band_not_found',
  'sub-band not found for frequency `{frequency}` Hz',
  Code.FailedPrecondition,
);
/** TTS `scheduling` dwell_time: on a plan with a downlink dwell time, no frame may stay on the air longer than it (400 ms). */
export const ErrDwellTime = defineError(
  'pkg/gatewayserver/scheduling',
  'dwell_time',
  'packet exceeds dwell time restriction ({time_on_air_ms} ms on the air, {max_ms} ms allowed)',
  Code.FailedPrecondition,
);
/**
 * TTS `io` tx_schedule: no receive window of a class A downlink could be scheduled; each window's
 * reason by name (`conflict`, `duty_cycle`, `too_late`, …), the last window's error as the cause.
 */
export const ErrTxSchedule = defineError('pkg/gatewayserver/io', 'tx_schedule', 'failed to schedule the downlink: RX1 `{rx1}`, RX2 `{rx2}`', Code.Aborted);

// LoRa Basics Station (TTS `pkg/gatewayserver/io/semtechws`): refusals of a data connection (its HTTP answer) and why one ended.
export const ErrNoAuthProvided = defineError('pkg/gatewayserver/io/semtechws', 'no_auth_provided', 'no auth provided `{uid}`', Code.Unauthenticated);
export const ErrGatewayKeyRefused = defineError(
  'pkg/gatewayserver/io/semtechws',
  'unauthenticated',
  'the credentials of gateway `{uid}` were refused',
  Code.Unauthenticated,
);
export const ErrGatewayLinkRights = defineError(
  'pkg/gatewayserver/io/semtechws',
  'insufficient_rights',
  'the credentials have no RIGHT_GATEWAY_LINK on gateway `{uid}`',
  Code.PermissionDenied,
);
export const ErrGatewayEuiNotFound = defineError('pkg/gatewayserver/io/semtechws', 'gateway_not_found', 'no gateway with EUI `{eui}`', Code.NotFound);
export const ErrGatewayPath = defineError('pkg/gatewayserver/io/semtechws', 'invalid_path', 'not a Basics Station endpoint: `{path}`', Code.NotFound);
export const ErrIdentityServerUnavailable = defineError(
  'pkg/gatewayserver/io/semtechws',
  'identity_server_unavailable',
  'the gateway could not be looked up now',
  Code.Unavailable,
);
export const ErrTooManyPendingAuthorizations = defineError(
  'pkg/gatewayserver/io/semtechws',
  'too_many_pending_authorizations',
  'too many gateway authentications in progress (at most {max})',
  Code.ResourceExhausted,
);
export const ErrMissedTooManyPongs = defineError('pkg/gatewayserver/io/semtechws', 'missed_too_many_pongs', 'gateway missed too many pongs', Code.Unavailable);
export const ErrConnectionClosed = defineError('pkg/gatewayserver/io/semtechws', 'connection_closed', 'the gateway closed the connection', Code.Unavailable);
export const ErrNewConnection = defineError('pkg/gatewayserver', 'new_connection', 'new connection from same gateway', Code.Aborted);
