import { Bool, EnumName, EnumNames, Str, StringList, StringMap, Timestamp, Uint32 } from '../json/fields';
import { Message, Required } from '../json/nested';
import { defineEnum } from '../enums/enum';
import { RightEnum } from '../rpc/rights';
import { FieldMask, FieldMaskField } from './field-mask';
import { ClientIdentifiers, OrganizationOrUserIdentifiers } from './identifiers';
import { State } from './identity';

/**
 * OAuth clients (TTS `client.proto`): registrations of applications that may ask users for access
 * through OAuth. The deprecated `contact_info` is not part of this contract.
 */

/** `ttn.lorawan.v3.GrantType`: the OAuth flows a client may use. */
export const GrantType = defineEnum('GrantType', { GRANT_AUTHORIZATION_CODE: 0, GRANT_PASSWORD: 1, GRANT_REFRESH_TOKEN: 2 }, 'GRANT_');

const URIS = { maxItems: 10, maxLength: 128 };

export class Client {
  @Required() @Message(() => ClientIdentifiers) ids!: ClientIdentifiers;
  @Timestamp() created_at?: string;
  @Timestamp() updated_at?: string;
  @Timestamp() deleted_at?: string;
  @Str({ maxLength: 50 }) name?: string;
  @Str({ maxLength: 2000 }) description?: string;
  @StringMap({ maxEntries: 10, keyPattern: /^[a-z0-9](?:[-]?[a-z0-9]){2,}$/, maxKeyLength: 36, maxValueLength: 200 }) attributes?: Record<string, string>;
  @Message(() => OrganizationOrUserIdentifiers) administrative_contact?: OrganizationOrUserIdentifiers;
  @Message(() => OrganizationOrUserIdentifiers) technical_contact?: OrganizationOrUserIdentifiers;
  /** Write-only: stored as a salted hash; returned once, in the answer to Create. */
  @Str({ maxLength: 128 }) secret?: string;
  @StringList(URIS) redirect_uris?: string[];
  @StringList(URIS) logout_redirect_uris?: string[];
  /** Set by admins; a client a non-admin registers starts as STATE_REQUESTED. */
  @EnumName(State) state?: string;
  @Str({ maxLength: 128 }) state_description?: string;
  @Bool() skip_authorization?: boolean;
  @Bool() endorsed?: boolean;
  @EnumNames(GrantType) grants?: string[];
  /** The rights the client may ask a user for. */
  @EnumNames(RightEnum) rights?: string[];
}

export const CLIENT_ORDERS = ['client_id', 'name', 'created_at'] as const;

export class CreateClientRequest {
  @Required() @Message(() => Client) client!: Client;
  @Required() @Message(() => OrganizationOrUserIdentifiers) collaborator!: OrganizationOrUserIdentifiers;
}

export class GetClientRequest {
  @Required() @Message(() => ClientIdentifiers) client_ids!: ClientIdentifiers;
  @FieldMaskField() field_mask?: FieldMask;
}

export class ListClientsRequest {
  /** Clients of this user; absent: those of the caller (all of them for an admin). */
  @Message(() => OrganizationOrUserIdentifiers) collaborator?: OrganizationOrUserIdentifiers;
  @FieldMaskField() field_mask?: FieldMask;
  @Str({ pattern: new RegExp(`^(?:-?(?:${CLIENT_ORDERS.join('|')}))?$`) }) order?: string;
  @Uint32({ max: 1000 }) limit?: number;
  @Uint32() page?: number;
  /** Only soft-deleted clients. */
  @Bool() deleted?: boolean;
}

export class UpdateClientRequest {
  @Required() @Message(() => Client) client!: Client;
  @FieldMaskField() field_mask?: FieldMask;
}
