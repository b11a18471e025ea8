import { Code, defineError, type ErrorDetails, StackError } from '@lorawan/errors';

/** Application Server errors (TTS `pkg/applicationserver` names, so clients match them). */
export const ErrDeviceNotFound = defineError('pkg/applicationserver', 'device_not_found', 'device `{device_uid}` not found', Code.NotFound);
export const ErrReadOnlyField = defineError('pkg/applicationserver', 'read_only_field', 'read-only field `{field}`', Code.InvalidArgument);
export const ErrFieldValue = defineError('pkg/applicationserver', 'field_value', 'invalid value of field `{field}`', Code.InvalidArgument);
export const ErrFieldIsZero = defineError('pkg/applicationserver', 'field_is_zero', 'field `{name}` is zero', Code.InvalidArgument);
export const ErrNoDeviceSession = defineError(
  'pkg/applicationserver',
  'no_device_session',
  'no device session; check device activation',
  Code.FailedPrecondition,
);
export const ErrNoFPort = defineError('pkg/applicationserver', 'no_f_port', 'no FPort specified', Code.InvalidArgument);
export const ErrFPortRange = defineError('pkg/applicationserver', 'f_port_range', 'FPort `{f_port}` is not an application port (1..223)', Code.InvalidArgument);
export const ErrPayloadTooLarge = defineError(
  'pkg/applicationserver',
  'payload_too_large',
  'payload of {size} bytes is larger than the maximum of {max} bytes',
  Code.InvalidArgument,
);
export const ErrEncodePayload = defineError('pkg/applicationserver', 'encode_payload', 'encode payload', Code.InvalidArgument);
/** SimulateUplink whose payload formatter ran into a limit of the AS (the cause: `script_timeout`, `script_memory`, …). */
export const ErrDecodePayload = defineError('pkg/applicationserver', 'decode_payload', 'decode payload', Code.InvalidArgument);
export const ErrNoAppSKey = defineError('pkg/applicationserver', 'no_app_s_key', 'no AppSKey in the device session', Code.FailedPrecondition);
/** A stored entity (webhook, link, package association) that is not there: TTS's Redis registries answer their store's not-found error. */
export const ErrEntityNotFound = defineError('pkg/redis', 'not_found', 'entity not found', Code.NotFound);
export const ErrWebhookNotFound = ErrEntityNotFound;
export const ErrWebhookFormatNotFound = defineError('pkg/applicationserver/io/web', 'format_not_found', 'format `{format}` not found', Code.InvalidArgument);
/** Webhook-scoped downlink push/replace (wire contract §8.3) of a webhook that does not exist. */
export const ErrWebhookNotFoundForDownlink = defineError('pkg/applicationserver/io/web', 'webhook_not_found', 'webhook not found', Code.NotFound);
/** Webhook-scoped downlink push/replace of a paused webhook (the gateway answers 406 with an empty body; `WEBHOOK_PAUSED`). */
export const ErrWebhookPaused = defineError('pkg/applicationserver/io/web', 'webhook_paused', 'webhook paused', Code.FailedPrecondition);
/** Get of a link that was never Set (or was deleted): TTS answers its Redis registry's not-found error. */
export const ErrLinkNotFound = ErrEntityNotFound;
/** SimulateUplink of a message already marked `simulated` (TTS `pkg/applicationserver/io/grpc`). */
export const ErrSimulated = defineError('pkg/applicationserver/io/grpc', 'simulated', 'simulated traffic cannot be simulated again', Code.InvalidArgument);
/** SimulateUplink for a device (or application) whose payload crypto is skipped. */
export const ErrPayloadCryptoSkipped = defineError(
  'pkg/applicationserver/io/grpc',
  'payload_crypto_skipped',
  'payload crypto skipped',
  Code.FailedPrecondition,
);
/** An application message could not be handed to the integrations (their delivery jobs could not be queued). */
export const ErrPublishUp = defineError('pkg/applicationserver', 'publish_up', 'could not queue the message for the integrations: {reason}', Code.Unavailable);
/** NsAs.HandleUplink of an application message kind the AS does not take from the NS (it takes join-accepts, data uplinks and downlink reports). */
export const ErrUpNotSupported = defineError(
  'pkg/applicationserver',
  'up_not_supported',
  'application message `{kind}` from the Network Server is not supported',
  Code.Unimplemented,
);
/** Fetching an AppSKey from the Join Server without the device's EUIs (TTS names). */
export const ErrNoDevEUI = defineError('pkg/applicationserver', 'no_dev_eui', 'no device EUI provided', Code.InvalidArgument);
export const ErrNoJoinEUI = defineError('pkg/applicationserver', 'no_join_eui', 'no join EUI provided', Code.InvalidArgument);
/** No Join Server answered for the keys (none reachable, or it does not know them; TTS: the cluster JS, then interop). */
export const ErrJoinServerUnavailable = defineError(
  'pkg/applicationserver',
  'join_server_unavailable',
  'Join Server unavailable for JoinEUI `{join_eui}`',
  Code.Unavailable,
);
/**
 * The AppSKey of a session could not be had from the Join Server (TTS `app_s_key`, defined without
 * a code: it takes its cause's). Raise it with `fetchAppSKeyError(cause)`.
 */
export const ErrFetchAppSKey = defineError('pkg/applicationserver', 'app_s_key', 'get AppSKey', Code.Unknown);

/** ErrFetchAppSKey with its cause, and the cause's code (as TTS gives an error of unknown code). */
export function fetchAppSKeyError(cause: StackError | ErrorDetails): StackError {
  const { namespace, name, messageFormat } = ErrFetchAppSKey;
  return new StackError({ namespace, name, messageFormat, code: cause.code }, {}, cause);
}
/** No Network Server answered a downlink queue operation (TTS: the cluster's NS peer, `pkg/cluster:peer_unavailable`). */
export const ErrPeerUnavailable = defineError('pkg/cluster', 'peer_unavailable', '{cluster_role} cluster peer unavailable', Code.Unavailable);
/** A downlink of a session the device has neither as current nor as pending (TTS `applicationserver.go`). */
export const ErrUnknownSession = defineError('pkg/applicationserver', 'unknown_session', 'unknown session', Code.NotFound);
/** The NS named a session without its session key ID: the AS cannot rebuild it (TTS buildSessionsFromError). */
export const ErrRebuild = defineError('pkg/applicationserver', 'rebuild', 'rebuild device session; check device address', Code.Aborted);
/** A confirmed downlink not acknowledged after its last attempt (TTS handleDownlinkNack). */
export const ErrMaxRetriesReached = defineError(
  'pkg/applicationserver',
  'max_retries_reached',
  'maximum number of retries ({max_retries}) reached',
  Code.Aborted,
);
/** A confirmed downlink asking for more attempts than the AS allows (TTS initAndValidateConfirmationRetriesConfig). */
export const ErrDownlinkMaxRetriesInvalid = defineError(
  'pkg/applicationserver',
  'downlink_max_retries_invalid',
  'downlink maximum retries exceed configured maximum of {max}',
  Code.InvalidArgument,
);
export const ErrOverloaded = defineError(
  'pkg/applicationserver',
  'overloaded',
  'the Application Server cannot handle the {kind} in time: refused before any work',
  Code.ResourceExhausted,
);
/** An association naming a package this AS does not have (TTS stores any name and ignores it; this stack refuses it at once). */
export const ErrPackageNotFound = defineError('pkg/applicationserver/io/packages', 'package_not_found', 'package `{name}` not found', Code.InvalidArgument);
/** Get of an association that was never Set (or was deleted): TTS answers its Redis registry's not-found error. */
export const ErrAssociationNotFound = ErrEntityNotFound;
