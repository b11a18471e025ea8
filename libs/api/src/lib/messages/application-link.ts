import { Bool } from '../json/fields';
import { Message, Required } from '../json/nested';
import { FieldMask, FieldMaskField } from './field-mask';
import { MessagePayloadFormatters } from './formatters';
import { ApplicationIdentifiers } from './identifiers';

/**
 * `ttn.lorawan.v3.ApplicationLink` (TTS `applicationserver.proto`): the AS's per-application
 * settings. `default_formatters` apply to the devices that have no `formatters` of their own;
 * `skip_payload_crypto` (a BoolValue: `false` is a value, not unset) is the application's default
 * for devices without `skip_payload_crypto_override`.
 */
export class ApplicationLink {
  @Message(() => MessagePayloadFormatters) default_formatters?: MessagePayloadFormatters;
  @Bool({ wrapper: true }) skip_payload_crypto?: boolean;
}

/** `GET /as/applications/{application_ids.application_id}/link?field_mask=…`. */
export class GetApplicationLinkRequest {
  @Required() @Message(() => ApplicationIdentifiers) application_ids!: ApplicationIdentifiers;
  @FieldMaskField() field_mask?: FieldMask;
}

/** `PUT /as/applications/{application_ids.application_id}/link`: `{"link":{…},"field_mask":{"paths":[…]}}`. */
export class SetApplicationLinkRequest {
  @Required() @Message(() => ApplicationIdentifiers) application_ids!: ApplicationIdentifiers;
  @Required() @Message(() => ApplicationLink) link!: ApplicationLink;
  @FieldMaskField() field_mask?: FieldMask;
}

/** The link's fields (TTS `ApplicationLinkFieldPathsNested`). */
export const APPLICATION_LINK_PATHS = [
  'default_formatters',
  'default_formatters.down_formatter',
  'default_formatters.down_formatter_parameter',
  'default_formatters.up_formatter',
  'default_formatters.up_formatter_parameter',
  'skip_payload_crypto',
] as const;

/** The link's top-level fields: what Set answers (TTS `ApplicationLinkFieldPathsTopLevel`). */
export const APPLICATION_LINK_TOP_LEVEL_PATHS = ['default_formatters', 'skip_payload_crypto'] as const;

/**
 * Paths of removed link fields that TTS still allows in a mask (`field_mask_validation.go`
 * `asApplicationLinkFieldPaths`) and then ignores (`grpc.go` `removeDeprecatedPaths`).
 */
export const DEPRECATED_APPLICATION_LINK_PATHS = ['api_key', 'network_server_address', 'tls'] as const;
