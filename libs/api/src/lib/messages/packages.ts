import { Duration, Str, Struct, Timestamp, Uint32 } from '../json/fields';
import { Message, Messages, Required } from '../json/nested';
import { FieldMask, FieldMaskField } from './field-mask';
import { APPLICATION_UP_KINDS } from './application-up';
import { ApplicationIdentifiers, EndDeviceIdentifiers, ID_MAX_LENGTH, ID_PATTERN } from './identifiers';

/**
 * The AS's application packages (TTS `applicationserver_packages.proto`): associations link a
 * device's FPort, default associations an application's FPort, to a package by name; and the
 * Storage Integration's queries (TTS `applicationserver_integrations_storage.proto`).
 */

/** FPorts of associations: 1..255 (TTS's rule). */
const AssociationFPort = () => Uint32({ min: 1, max: 255 });
const PackageName = () => Str({ maxLength: ID_MAX_LENGTH, pattern: ID_PATTERN });

/** `ttn.lorawan.v3.ApplicationPackage`. */
export class ApplicationPackage {
  @PackageName() name?: string;
  @Uint32({ min: 1, max: 255 }) default_f_port?: number;
}

/** `ttn.lorawan.v3.ApplicationPackages`: the packages the AS offers. */
export class ApplicationPackages {
  @Messages(() => ApplicationPackage) packages?: ApplicationPackage[];
}

/** `ttn.lorawan.v3.ApplicationPackageAssociationIdentifiers`. */
export class ApplicationPackageAssociationIdentifiers {
  @Required() @Message(() => EndDeviceIdentifiers) end_device_ids!: EndDeviceIdentifiers;
  @Required() @AssociationFPort() f_port!: number;
}

/** `ttn.lorawan.v3.ApplicationPackageAssociation`. */
export class ApplicationPackageAssociation {
  @Required() @Message(() => ApplicationPackageAssociationIdentifiers) ids!: ApplicationPackageAssociationIdentifiers;
  @Timestamp() created_at?: string;
  @Timestamp() updated_at?: string;
  @PackageName() package_name?: string;
  @Struct({ maxBytes: 16384 }) data?: Record<string, unknown>;
}

export class ApplicationPackageAssociations {
  @Messages(() => ApplicationPackageAssociation) associations?: ApplicationPackageAssociation[];
}

export class GetApplicationPackageAssociationRequest {
  @Required() @Message(() => ApplicationPackageAssociationIdentifiers) ids!: ApplicationPackageAssociationIdentifiers;
  @FieldMaskField() field_mask?: FieldMask;
}

export class ListApplicationPackageAssociationRequest {
  @Required() @Message(() => EndDeviceIdentifiers) ids!: EndDeviceIdentifiers;
  @Uint32({ max: 1000 }) limit?: number;
  @Uint32() page?: number;
  @FieldMaskField() field_mask?: FieldMask;
}

export class SetApplicationPackageAssociationRequest {
  @Required() @Message(() => ApplicationPackageAssociation) association!: ApplicationPackageAssociation;
  @FieldMaskField() field_mask?: FieldMask;
}

/** `ttn.lorawan.v3.ApplicationPackageDefaultAssociationIdentifiers`. */
export class ApplicationPackageDefaultAssociationIdentifiers {
  @Required() @Message(() => ApplicationIdentifiers) application_ids!: ApplicationIdentifiers;
  @Required() @AssociationFPort() f_port!: number;
}

/** `ttn.lorawan.v3.ApplicationPackageDefaultAssociation`. */
export class ApplicationPackageDefaultAssociation {
  @Required() @Message(() => ApplicationPackageDefaultAssociationIdentifiers) ids!: ApplicationPackageDefaultAssociationIdentifiers;
  @Timestamp() created_at?: string;
  @Timestamp() updated_at?: string;
  @PackageName() package_name?: string;
  @Struct({ maxBytes: 16384 }) data?: Record<string, unknown>;
}

export class ApplicationPackageDefaultAssociations {
  @Messages(() => ApplicationPackageDefaultAssociation) defaults?: ApplicationPackageDefaultAssociation[];
}

export class GetApplicationPackageDefaultAssociationRequest {
  @Required() @Message(() => ApplicationPackageDefaultAssociationIdentifiers) ids!: ApplicationPackageDefaultAssociationIdentifiers;
  @FieldMaskField() field_mask?: FieldMask;
}

export class ListApplicationPackageDefaultAssociationRequest {
  @Required() @Message(() => ApplicationIdentifiers) ids!: ApplicationIdentifiers;
  @Uint32({ max: 1000 }) limit?: number;
  @Uint32() page?: number;
  @FieldMaskField() field_mask?: FieldMask;
}

export class SetApplicationPackageDefaultAssociationRequest {
  @Required() @Message(() => ApplicationPackageDefaultAssociation) default!: ApplicationPackageDefaultAssociation;
  @FieldMaskField() field_mask?: FieldMask;
}

/** The message types the Storage Integration is queried by (TTS's `type` rule; `""`: all): the kinds of ApplicationUp. */
export const STORED_UP_TYPES = APPLICATION_UP_KINDS;
/** Count's `type` rule leaves out `uplink_normalized` (TTS). */
export const STORED_UP_COUNT_TYPES = STORED_UP_TYPES.filter((t) => t !== 'uplink_normalized');
const typePattern = (types: readonly string[]) => new RegExp(`^(?:${types.join('|')})?$`);

/** `ttn.lorawan.v3.GetStoredApplicationUpRequest`: application_ids or end_device_ids (not both). */
export class GetStoredApplicationUpRequest {
  @Message(() => ApplicationIdentifiers) application_ids?: ApplicationIdentifiers;
  @Message(() => EndDeviceIdentifiers) end_device_ids?: EndDeviceIdentifiers;
  @Str({ pattern: typePattern(STORED_UP_TYPES) }) type?: string;
  @Uint32({ wrapper: true }) limit?: number;
  @Timestamp() after?: string;
  @Timestamp() before?: string;
  @Uint32({ max: 255, wrapper: true }) f_port?: number;
  @Str({ pattern: /^(?:|received_at|-received_at)$/ }) order?: string;
  /** ApplicationUp paths of the results (checked by the AS: the ApplicationUp paths). */
  @FieldMaskField() field_mask?: FieldMask;
  @Duration() last?: string;
  @Str({ maxLength: 16000 }) continuation_token?: string;
}

/** `ttn.lorawan.v3.GetStoredApplicationUpCountRequest`. */
export class GetStoredApplicationUpCountRequest {
  @Message(() => ApplicationIdentifiers) application_ids?: ApplicationIdentifiers;
  @Message(() => EndDeviceIdentifiers) end_device_ids?: EndDeviceIdentifiers;
  @Str({ pattern: typePattern(STORED_UP_COUNT_TYPES) }) type?: string;
  @Timestamp() after?: string;
  @Timestamp() before?: string;
  @Uint32({ max: 255, wrapper: true }) f_port?: number;
  @Duration() last?: string;
}

/** `ttn.lorawan.v3.GetStoredApplicationUpCountResponse`: stored messages by device ID. */
export class GetStoredApplicationUpCountResponse {
  @Struct() count?: Record<string, number>;
}
