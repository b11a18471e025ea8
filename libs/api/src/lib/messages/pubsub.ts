import { Base64Bytes, Bool, EnumName, Str, StringMap, Struct, Timestamp } from '../json/fields';
import { Message, Messages, Required } from '../json/nested';
import { defineEnum } from '../enums/enum';
import { FieldMask, FieldMaskField } from './field-mask';
import { ApplicationIdentifiers } from './identifiers';
import { APPLICATION_UP_KINDS } from './application-up';

/** `ttn.lorawan.v3.ApplicationPubSubIdentifiers`. */
export class ApplicationPubSubIdentifiers {
  @Required() @Message(() => ApplicationIdentifiers) application_ids!: ApplicationIdentifiers;
  @Required() @Str({ maxLength: 36, pattern: /^[a-z0-9](?:[-]?[a-z0-9]){2,}$/ }) pub_sub_id!: string;
}

/** `ApplicationPubSub.MQTTProvider.QoS` (marshalled as its name). */
export const PubSubQoS = defineEnum('ApplicationPubSub.MQTTProvider.QoS', { AT_MOST_ONCE: 0, AT_LEAST_ONCE: 1, EXACTLY_ONCE: 2 });
export type PubSubQoSName = (typeof PubSubQoS.names)[number];

/** `ApplicationPubSub.NATSProvider`: `server_url` is `nats://[user:password@]host:port` (the password is a secret). */
export class ApplicationPubSubNatsProvider {
  @Str({ maxLength: 2048 }) server_url?: string;
}

/** `ApplicationPubSub.MQTTProvider`. `password` and `tls_client_key` are secrets. */
export class ApplicationPubSubMqttProvider {
  @Str({ maxLength: 2048 }) server_url?: string;
  @Str({ maxLength: 23 }) client_id?: string;
  @Str({ maxLength: 100 }) username?: string;
  @Str({ maxLength: 100 }) password?: string;
  @EnumName(PubSubQoS) subscribe_qos?: PubSubQoSName;
  @EnumName(PubSubQoS) publish_qos?: PubSubQoSName;
  @Bool() use_tls?: boolean;
  @Base64Bytes(8192) tls_ca?: string;
  @Base64Bytes(8192) tls_client_cert?: string;
  @Base64Bytes(8192) tls_client_key?: string;
  @StringMap({ maxEntries: 50, maxKeyLength: 64, maxValueLength: 4096 }) headers?: Record<string, string>;
}

/** `ApplicationPubSub.Message`: the topic of one message kind, below `base_topic`. Present (even `{}`) = enabled. */
export class ApplicationPubSubMessage {
  @Str({ maxLength: 100 }) topic?: string;
}

/** The providers of the `provider` oneof this stack runs (TTS's `aws_iot` is refused). */
export const PUBSUB_PROVIDERS = ['nats', 'mqtt'] as const;
export type PubSubProvider = (typeof PUBSUB_PROVIDERS)[number];

/** The subscriptions (downlink queue operations) of a Pub/Sub, in proto order. */
export const PUBSUB_DOWNLINK_FIELDS = ['downlink_push', 'downlink_replace'] as const;
/** The published message kinds of a Pub/Sub: the ApplicationUp kinds, in proto order. */
export const PUBSUB_UP_FIELDS = APPLICATION_UP_KINDS;

/** Message formats of Pub/Subs: JSON only, as webhooks. */
export const PUBSUB_FORMATS: Readonly<Record<string, string>> = { json: 'JSON' };

/**
 * `ttn.lorawan.v3.ApplicationPubSub` (TTS `applicationserver_pubsub.proto`). The `provider`
 * oneof is one of `nats` / `mqtt` at the top level of the JSON, as TTS marshals it; field masks
 * name them `provider.nats…` / `provider.mqtt…` (see `pubsubJsonPath`). `aws_iot` is declared only
 * so that the AS can refuse it with its own error.
 */
export class ApplicationPubSub {
  @Required() @Message(() => ApplicationPubSubIdentifiers) ids!: ApplicationPubSubIdentifiers;
  @Timestamp() created_at?: string;
  @Timestamp() updated_at?: string;
  @Str({ maxLength: 20, pattern: /^[a-z0-9](?:[-]?[a-z0-9]){2,}$/ }) format?: string;
  @Message(() => ApplicationPubSubNatsProvider) nats?: ApplicationPubSubNatsProvider;
  @Message(() => ApplicationPubSubMqttProvider) mqtt?: ApplicationPubSubMqttProvider;
  /** TTS's AWS IoT provider: accepted by the contract, refused by the AS (`provider_disabled`). */
  @Struct() aws_iot?: Record<string, unknown>;
  @Str({ maxLength: 100 }) base_topic?: string;
  @Message(() => ApplicationPubSubMessage) downlink_push?: ApplicationPubSubMessage;
  @Message(() => ApplicationPubSubMessage) downlink_replace?: ApplicationPubSubMessage;
  @Message(() => ApplicationPubSubMessage) uplink_message?: ApplicationPubSubMessage;
  @Message(() => ApplicationPubSubMessage) uplink_normalized?: ApplicationPubSubMessage;
  @Message(() => ApplicationPubSubMessage) join_accept?: ApplicationPubSubMessage;
  @Message(() => ApplicationPubSubMessage) downlink_ack?: ApplicationPubSubMessage;
  @Message(() => ApplicationPubSubMessage) downlink_nack?: ApplicationPubSubMessage;
  @Message(() => ApplicationPubSubMessage) downlink_sent?: ApplicationPubSubMessage;
  @Message(() => ApplicationPubSubMessage) downlink_failed?: ApplicationPubSubMessage;
  @Message(() => ApplicationPubSubMessage) downlink_queued?: ApplicationPubSubMessage;
  @Message(() => ApplicationPubSubMessage) downlink_queue_invalidated?: ApplicationPubSubMessage;
  @Message(() => ApplicationPubSubMessage) location_solved?: ApplicationPubSubMessage;
  @Message(() => ApplicationPubSubMessage) service_data?: ApplicationPubSubMessage;
}

/** The JSON keys of the `provider` oneof TTS knows, ours and the refused `aws_iot`. */
export const PUBSUB_PROVIDER_KEYS = ['nats', 'mqtt', 'aws_iot'] as const;

/**
 * A field-mask path of the wire (`provider.mqtt.password`) as the path of the JSON message
 * (`mqtt.password`); `provider` itself names every provider key.
 */
export function pubsubJsonPaths(path: string): string[] {
  if (path === 'provider') return [...PUBSUB_PROVIDER_KEYS];
  return [path.startsWith('provider.') ? path.slice('provider.'.length) : path];
}

export class GetApplicationPubSubRequest {
  @Required() @Message(() => ApplicationPubSubIdentifiers) ids!: ApplicationPubSubIdentifiers;
  @FieldMaskField() field_mask?: FieldMask;
}

export class ListApplicationPubSubsRequest {
  @Required() @Message(() => ApplicationIdentifiers) application_ids!: ApplicationIdentifiers;
  @FieldMaskField() field_mask?: FieldMask;
}

export class SetApplicationPubSubRequest {
  @Required() @Message(() => ApplicationPubSub) pubsub!: ApplicationPubSub;
  @FieldMaskField() field_mask?: FieldMask;
}

/** Delete takes the identifiers themselves (`DELETE /as/pubsub/{application_ids.application_id}/{pub_sub_id}`). */
export { ApplicationPubSubIdentifiers as DeleteApplicationPubSubRequest };

/** GetFormats takes no fields. */
export class GetApplicationPubSubFormatsRequest {}

/** `ttn.lorawan.v3.ApplicationPubSubFormats`: format ID → description. */
export class ApplicationPubSubFormats {
  @StringMap() formats?: Record<string, string>;
}

/** `ttn.lorawan.v3.ApplicationPubSubs`. */
export class ApplicationPubSubs {
  @Messages(() => ApplicationPubSub) pubsubs?: ApplicationPubSub[];
}
