import { Code, defineError } from '@lorawan/errors';

/** Pub/Sub errors, by TTS's names (`pkg/applicationserver/io/pubsub` and its providers). */
export const ErrPubSubFormatNotFound = defineError('pkg/applicationserver/io/pubsub', 'format_not_found', 'format `{format}` not found', Code.InvalidArgument);
/** `aws_iot`, which this stack does not run (TTS answers the same for a provider its operator disabled). */
export const ErrProviderDisabled = defineError(
  'pkg/applicationserver/io/pubsub',
  'provider_disabled',
  'provider `{provider}` is disabled',
  Code.FailedPrecondition,
);
/** A Pub/Sub with no provider, or with two. */
export const ErrNoProvider = defineError(
  'pkg/applicationserver/io/pubsub',
  'no_provider',
  'exactly one provider (`nats` or `mqtt`) must be set',
  Code.InvalidArgument,
);
/** The `as.pubsub.fail` event's error: the provider's failure is its cause. */
export const ErrIntegrationFailed = defineError('pkg/applicationserver/io/pubsub', 'integration_failed', 'integration `{pub_sub_id}` failed', Code.Aborted);
/** The broker refused or could not be reached (`message`: the client's, stripped of credentials). */
export const ErrConnectFailed = defineError(
  'pkg/applicationserver/io/pubsub/provider',
  'connect_failed',
  'connection to {provider} server failed: {message}',
  Code.Unavailable,
);
/** An established connection was lost. */
export const ErrConnectionLost = defineError(
  'pkg/applicationserver/io/pubsub/provider',
  'connection_lost',
  'connection to {provider} server lost: {message}',
  Code.Unavailable,
);
/** A publish the client refused or the broker failed. */
export const ErrPublishFailed = defineError(
  'pkg/applicationserver/io/pubsub/provider',
  'publish_failed',
  'publish to {provider} topic `{topic}` failed: {message}',
  Code.Unavailable,
);
/** A message on a downlink topic that is not a DownlinkQueueRequest of the Pub/Sub's application, or that the queue refused (the queue's error is the cause). */
export const ErrDownlinkOperation = defineError(
  'pkg/applicationserver/io/pubsub',
  'downlink_operation',
  'downlink {operation} on topic `{topic}` refused: {message}',
  Code.InvalidArgument,
);
