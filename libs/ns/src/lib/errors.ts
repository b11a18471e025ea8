import { Code, defineError } from '@lorawan/errors';

/** Network Server errors (TTS `pkg/networkserver` names, so clients match them). */
export const ErrDeviceNotFound = defineError('pkg/networkserver', 'device_not_found', 'device `{device_uid}` not found', Code.NotFound);
export const ErrReadOnlyField = defineError('pkg/networkserver', 'read_only_field', 'read-only field `{field}`', Code.InvalidArgument);
export const ErrFieldValue = defineError('pkg/networkserver', 'field_value', 'invalid value of field `{field}`', Code.InvalidArgument);
export const ErrFieldIsZero = defineError('pkg/networkserver', 'field_is_zero', 'field `{name}` is zero', Code.InvalidArgument);
export const ErrFieldNotChangeable = defineError(
  'pkg/networkserver',
  'field_not_changeable',
  'field `{name}` cannot change once the device exists',
  Code.InvalidArgument,
);
export const ErrFrequencyPlanNotFound = defineError('pkg/networkserver', 'frequency_plan_not_found', 'frequency plan `{id}` not found', Code.InvalidArgument);
export const ErrDecodePayload = defineError('pkg/networkserver', 'decode_payload', 'failed to decode the uplink payload: {reason}', Code.InvalidArgument);
export const ErrUnsupportedMType = defineError(
  'pkg/networkserver',
  'unsupported_m_type',
  'MType `{m_type}` is not an uplink the Network Server handles',
  Code.InvalidArgument,
);
export const ErrJoinUnsupported = defineError('pkg/networkserver', 'abp_join_request', 'device `{device_uid}` does not join (ABP)', Code.FailedPrecondition);
export const ErrUnknownDataRate = defineError(
  'pkg/networkserver',
  'data_rate_not_found',
  'the uplink data rate is not one of band `{band_id}`',
  Code.InvalidArgument,
);
export const ErrJoinServerUnavailable = defineError('pkg/networkserver', 'join_server_unavailable', 'no Join Server answered: {reason}', Code.Unavailable);
export const ErrUnwrapKey = defineError(
  'pkg/networkserver',
  'unwrap_key',
  'cannot unwrap the `{key}` the Join Server issued (KEK `{kek_label}`)',
  Code.FailedPrecondition,
);
export const ErrNoDownlinkPath = defineError('pkg/networkserver', 'no_downlink_path', 'no gateway can send the downlink', Code.FailedPrecondition);
export const ErrDeduplication = defineError(
  'pkg/networkserver',
  'deduplication_unavailable',
  'uplink deduplication state unavailable: {reason}',
  Code.Unavailable,
);
export const ErrUplinkTooLate = defineError(
  'pkg/networkserver',
  'uplink_too_late',
  'the uplink was received {age_ms} ms ago: too late to answer',
  Code.DeadlineExceeded,
);
export const ErrFCntReplay = defineError('pkg/networkserver', 'f_cnt_replay', 'FCnt {f_cnt} was already handled (last {last_f_cnt_up})', Code.AlreadyExists);
export const ErrTransmission = defineError('pkg/networkserver', 'transmission', 'the gateway did not transmit the downlink: {result}', Code.Aborted);
export const ErrOverloaded = defineError(
  'pkg/networkserver',
  'overloaded',
  'the Network Server cannot handle the {kind} in time: refused before any work',
  Code.ResourceExhausted,
);
/**
 * A data uplink refused at the door while the Application Server refuses uplinks for load
 * (`UplinkAdmission`, reason `as_overloaded`). ResourceExhausted as `overloaded` (the GS drops the
 * frame), but a name of its own: the NS answered at once and is not itself overloaded, so the GS
 * does not narrow its calls in flight for it (`GsNs` callers read the name).
 */
export const ErrApplicationServerOverloaded = defineError(
  'pkg/networkserver',
  'application_server_overloaded',
  'the Application Server is refusing uplinks for load: {kind} refused before any work',
  Code.ResourceExhausted,
);
