import { Code, defineError } from '@lorawan/errors';

/**
 * Errors of the NS's application downlink queue (TTS `pkg/networkserver/errors.go` and
 * `grpc_asns.go`, same names and codes). `f_cnt_too_low` and `unknown_session` carry
 * DownlinkQueueOperationErrorDetails, from which the AS rebuilds its sessions.
 */
export const ErrFCntTooLow = defineError('pkg/networkserver', 'f_cnt_too_low', 'FCnt `{f_cnt}` is lower than minimum of `{min_f_cnt}`', Code.InvalidArgument);
export const ErrUnknownSession = defineError('pkg/networkserver', 'unknown_session', 'unknown session', Code.NotFound);
export const ErrUnknownMACState = defineError('pkg/networkserver', 'unknown_mac_state', 'MAC state is unknown', Code.FailedPrecondition);
export const ErrApplicationDownlinkTooLong = defineError(
  'pkg/networkserver',
  'application_downlink_too_long',
  "application downlink payload length `{length}` exceeds maximum '{max}'",
  Code.InvalidArgument,
);
export const ErrConfirmedMulticastDownlink = defineError(
  'pkg/networkserver',
  'confirmed_multicast_downlink',
  'confirmed downlink queued for multicast device',
  Code.InvalidArgument,
);
export const ErrDownlinkQueueCapacity = defineError('pkg/networkserver', 'downlink_queue_capacity', 'downlink queue capacity exceeded', Code.ResourceExhausted);
