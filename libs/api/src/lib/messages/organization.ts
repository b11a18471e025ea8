import { Bool, Str, StringMap, Timestamp, Uint32 } from '../json/fields';
import { Message, Required } from '../json/nested';
import { FieldMask, FieldMaskField } from './field-mask';
import { OrganizationIdentifiers, OrganizationOrUserIdentifiers } from './identifiers';

/**
 * Organizations (TTS `organization.proto`): accounts that users are members of, collaborating on
 * applications, gateways and clients in their members' name. The deprecated `contact_info` is not
 * part of this contract.
 */

export class Organization {
  @Required() @Message(() => OrganizationIdentifiers) ids!: OrganizationIdentifiers;
  @Timestamp() created_at?: string;
  @Timestamp() updated_at?: string;
  @Timestamp() deleted_at?: string;
  @Str({ maxLength: 50 }) name?: string;
  @Str({ maxLength: 2000 }) description?: string;
  @StringMap({ maxEntries: 10, keyPattern: /^[a-z0-9](?:[-]?[a-z0-9]){2,}$/, maxKeyLength: 36, maxValueLength: 200 }) attributes?: Record<string, string>;
  @Message(() => OrganizationOrUserIdentifiers) administrative_contact?: OrganizationOrUserIdentifiers;
  @Message(() => OrganizationOrUserIdentifiers) technical_contact?: OrganizationOrUserIdentifiers;
  /** Notifications to the organization go to every member with the right to receive them, not only its contacts. */
  @Bool() fanout_notifications?: boolean;
}

export const ORGANIZATION_ORDERS = ['organization_id', 'name', 'created_at'] as const;

export class CreateOrganizationRequest {
  @Required() @Message(() => Organization) organization!: Organization;
  /** The first member (a user: organizations are not nested). */
  @Required() @Message(() => OrganizationOrUserIdentifiers) collaborator!: OrganizationOrUserIdentifiers;
}

export class GetOrganizationRequest {
  @Required() @Message(() => OrganizationIdentifiers) organization_ids!: OrganizationIdentifiers;
  @FieldMaskField() field_mask?: FieldMask;
}

export class ListOrganizationsRequest {
  /** Organizations this user is a member of; absent: those of the caller (all of them for an admin). */
  @Message(() => OrganizationOrUserIdentifiers) collaborator?: OrganizationOrUserIdentifiers;
  @FieldMaskField() field_mask?: FieldMask;
  @Str({ pattern: new RegExp(`^(?:-?(?:${ORGANIZATION_ORDERS.join('|')}))?$`) }) order?: string;
  @Uint32({ max: 1000 }) limit?: number;
  @Uint32() page?: number;
  /** Only soft-deleted organizations. */
  @Bool() deleted?: boolean;
}

export class UpdateOrganizationRequest {
  @Required() @Message(() => Organization) organization!: Organization;
  @FieldMaskField() field_mask?: FieldMask;
}
