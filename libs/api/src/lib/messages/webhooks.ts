import { Bool, Str, StringMap, Struct, Timestamp } from '../json/fields';
import { Message, Required } from '../json/nested';
import { FieldMask, FieldMaskField } from './field-mask';
import { ApplicationIdentifiers, Id } from './identifiers';
import { APPLICATION_UP_KINDS, type ApplicationUpKind } from './application-up';
import { MAX_WEBHOOK_FIELD_MASK_PATHS, WEBHOOK_FIELD_MASK_PATHS } from '../field-mask/application-up-paths';

/** `ttn.lorawan.v3.ApplicationWebhookIdentifiers`. */
export class ApplicationWebhookIdentifiers {
  @Required() @Message(() => ApplicationIdentifiers) application_ids!: ApplicationIdentifiers;
  @Required() @Id() webhook_id!: string;
}

/** A message kind's settings: present (even `{}`) = enabled; `path` is appended to `base_url`. */
export class ApplicationWebhookMessage {
  @Str({ maxLength: 64 }) path?: string;
}

export class ApplicationWebhookTemplateIdentifiers {
  @Required() @Id() template_id!: string;
}

/** Message formats of webhooks (TTS `pkg/applicationserver/io/formatters`): this stack delivers JSON only. */
export const WEBHOOK_FORMATS: Readonly<Record<string, string>> = { json: 'JSON' };

/** The message kinds of a webhook, in proto field order. */
export const WEBHOOK_MESSAGE_FIELDS = APPLICATION_UP_KINDS;
export type WebhookMessageField = ApplicationUpKind;

/**
 * `ttn.lorawan.v3.ApplicationWebhook` (wire contract §8.1). The rules of the proto are checked
 * here; the AS adds those of its own (absolute http(s) `base_url`, known `format`, header names).
 * `health_status` is kept as the JSON object TTS sends (`{"healthy":{}}` or `{"unhealthy":{…}}`).
 */
export class ApplicationWebhook {
  @Required() @Message(() => ApplicationWebhookIdentifiers) ids!: ApplicationWebhookIdentifiers;
  @Timestamp() created_at?: string;
  @Timestamp() updated_at?: string;
  @Str({ maxLength: 2048 }) base_url?: string;
  @StringMap({ maxEntries: 50, maxKeyLength: 64, maxValueLength: 4096 }) headers?: Record<string, string>;
  @Str({ maxLength: 20, pattern: /^[a-z0-9](?:[-]?[a-z0-9]){2,}$/ }) format?: string;
  @Message(() => ApplicationWebhookTemplateIdentifiers) template_ids?: ApplicationWebhookTemplateIdentifiers;
  @StringMap() template_fields?: Record<string, string>;
  @Str({ maxLength: 128 }) downlink_api_key?: string;
  @Message(() => ApplicationWebhookMessage) uplink_message?: ApplicationWebhookMessage;
  @Message(() => ApplicationWebhookMessage) uplink_normalized?: ApplicationWebhookMessage;
  @Message(() => ApplicationWebhookMessage) join_accept?: ApplicationWebhookMessage;
  @Message(() => ApplicationWebhookMessage) downlink_ack?: ApplicationWebhookMessage;
  @Message(() => ApplicationWebhookMessage) downlink_nack?: ApplicationWebhookMessage;
  @Message(() => ApplicationWebhookMessage) downlink_sent?: ApplicationWebhookMessage;
  @Message(() => ApplicationWebhookMessage) downlink_failed?: ApplicationWebhookMessage;
  @Message(() => ApplicationWebhookMessage) downlink_queued?: ApplicationWebhookMessage;
  @Message(() => ApplicationWebhookMessage) downlink_queue_invalidated?: ApplicationWebhookMessage;
  @Message(() => ApplicationWebhookMessage) location_solved?: ApplicationWebhookMessage;
  @Message(() => ApplicationWebhookMessage) service_data?: ApplicationWebhookMessage;
  @Struct() health_status?: Record<string, unknown>;
  /** The ApplicationUp paths each delivery keeps (all when empty). */
  @FieldMaskField({ allowed: WEBHOOK_FIELD_MASK_PATHS, of: 'ApplicationUp', maxPaths: MAX_WEBHOOK_FIELD_MASK_PATHS }) field_mask?: FieldMask;
  @Bool() paused?: boolean;
}

export class GetApplicationWebhookRequest {
  @Required() @Message(() => ApplicationWebhookIdentifiers) ids!: ApplicationWebhookIdentifiers;
  @FieldMaskField() field_mask?: FieldMask;
}

export class ListApplicationWebhooksRequest {
  @Required() @Message(() => ApplicationIdentifiers) application_ids!: ApplicationIdentifiers;
  @FieldMaskField() field_mask?: FieldMask;
}

export class SetApplicationWebhookRequest {
  @Required() @Message(() => ApplicationWebhook) webhook!: ApplicationWebhook;
  @FieldMaskField() field_mask?: FieldMask;
}

/** Delete takes the identifiers themselves (`DELETE /as/webhooks/{application_ids.application_id}/{webhook_id}`). */
export { ApplicationWebhookIdentifiers as DeleteApplicationWebhookRequest };

/** GetFormats takes no fields. */
export class GetApplicationWebhookFormatsRequest {}
