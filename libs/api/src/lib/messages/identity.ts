import { Bool, Duration, EnumName, EnumNames, Float, List, Str, StringList, StringMap, Timestamp, Uint32 } from '../json/fields';
import { Message, Messages, Required } from '../json/nested';
import { defineEnum } from '../enums/enum';
import { RightEnum } from '../rpc/rights';
import { Address } from './end-device';
import { FieldMask, FieldMaskField } from './field-mask';
import { Location } from './location';
import { Secret } from './secret';
import {
  ApplicationIdentifiers,
  GatewayIdentifiers,
  ID_MAX_LENGTH,
  ID_PATTERN,
  OrganizationIdentifiers,
  OrganizationOrUserIdentifiers,
  UserIdentifiers,
} from './identifiers';

/**
 * The Identity Server's own entities (TTS `application.proto`, `gateway.proto`, `user.proto`,
 * `rights.proto`), with the subset of fields this stack stores; requests as TTS names them.
 */

const ATTRIBUTES = { maxEntries: 10, keyPattern: /^[a-z0-9](?:[-]?[a-z0-9]){2,}$/, maxKeyLength: 36, maxValueLength: 200 };

/** `order` of the IS list RPCs: a field, `-` for descending (TTS validates the names per RPC). */
function orderPattern(fields: readonly string[]): RegExp {
  return new RegExp(`^(?:-?(?:${fields.join('|')}))?$`);
}

class Pagination {
  @Uint32({ max: 1000 }) limit?: number;
  @Uint32() page?: number;
}

// Applications.

export class Application {
  @Required() @Message(() => ApplicationIdentifiers) ids!: ApplicationIdentifiers;
  @Timestamp() created_at?: string;
  @Timestamp() updated_at?: string;
  @Timestamp() deleted_at?: string;
  @Str({ maxLength: 50 }) name?: string;
  @Str({ maxLength: 2000 }) description?: string;
  @StringMap(ATTRIBUTES) attributes?: Record<string, string>;
  @Message(() => OrganizationOrUserIdentifiers) administrative_contact?: OrganizationOrUserIdentifiers;
  @Message(() => OrganizationOrUserIdentifiers) technical_contact?: OrganizationOrUserIdentifiers;
  @Address() network_server_address?: string;
  @Address() application_server_address?: string;
  @Address() join_server_address?: string;
  /** Read-only: DevEUIs issued from the application's block (not issued by this stack: always 0). */
  @Uint32() dev_eui_counter?: number;
}

export const APPLICATION_ORDERS = ['application_id', 'name', 'created_at'] as const;

export class CreateApplicationRequest {
  @Required() @Message(() => Application) application!: Application;
  @Required() @Message(() => OrganizationOrUserIdentifiers) collaborator!: OrganizationOrUserIdentifiers;
}

export class GetApplicationRequest {
  @Required() @Message(() => ApplicationIdentifiers) application_ids!: ApplicationIdentifiers;
  @FieldMaskField() field_mask?: FieldMask;
}

export class ListApplicationsRequest extends Pagination {
  /** Applications of this user; absent: those of the caller (all of them for an admin). */
  @Message(() => OrganizationOrUserIdentifiers) collaborator?: OrganizationOrUserIdentifiers;
  @FieldMaskField() field_mask?: FieldMask;
  @Str({ pattern: orderPattern(APPLICATION_ORDERS) }) order?: string;
  /** Only soft-deleted applications (admins). */
  @Bool() deleted?: boolean;
}

export class UpdateApplicationRequest {
  @Required() @Message(() => Application) application!: Application;
  @FieldMaskField() field_mask?: FieldMask;
}

// Gateways.

export class GatewayVersionIdentifiers {
  @Str({ maxLength: ID_MAX_LENGTH, pattern: /^[a-z0-9](?:[-]?[a-z0-9]){2,}$|^$/ }) brand_id?: string;
  @Str({ maxLength: ID_MAX_LENGTH, pattern: /^[a-z0-9](?:[-]?[a-z0-9]){2,}$|^$/ }) model_id?: string;
  @Str({ maxLength: 32 }) hardware_version?: string;
  @Str({ maxLength: 32 }) firmware_version?: string;
  @Str({ maxLength: 32 }) runtime_version?: string;
}

/** `ttn.lorawan.v3.GatewayAntenna`: an antenna's gain (dBi), location and placement. */
export class GatewayAntenna {
  @Float() gain?: number;
  @Message(() => Location) location?: Location;
  @StringMap(ATTRIBUTES) attributes?: Record<string, string>;
  @Str({ pattern: /^(PLACEMENT_UNKNOWN|INDOOR|OUTDOOR)$/ }) placement?: string;
}

export class Gateway {
  @Required() @Message(() => GatewayIdentifiers) ids!: GatewayIdentifiers;
  @Timestamp() created_at?: string;
  @Timestamp() updated_at?: string;
  @Timestamp() deleted_at?: string;
  @Str({ maxLength: 50 }) name?: string;
  @Str({ maxLength: 2000 }) description?: string;
  @StringMap(ATTRIBUTES) attributes?: Record<string, string>;
  @Message(() => OrganizationOrUserIdentifiers) administrative_contact?: OrganizationOrUserIdentifiers;
  @Message(() => OrganizationOrUserIdentifiers) technical_contact?: OrganizationOrUserIdentifiers;
  @Message(() => GatewayVersionIdentifiers) version_ids?: GatewayVersionIdentifiers;
  @Address() gateway_server_address?: string;
  @Bool() auto_update?: boolean;
  @Str({ maxLength: 128 }) update_channel?: string;
  /** Deprecated in favour of `frequency_plan_ids`; on write it becomes `frequency_plan_ids[0]` (TTS). */
  @Str({ maxLength: 64 }) frequency_plan_id?: string;
  @StringList({ maxItems: 8, maxLength: 64 }) frequency_plan_ids?: string[];
  @Bool() status_public?: boolean;
  @Bool() location_public?: boolean;
  @Bool() schedule_downlink_late?: boolean;
  @Bool() enforce_duty_cycle?: boolean;
  @Duration() schedule_anytime_delay?: string;
  @Bool() update_location_from_status?: boolean;
  @Bool() require_authenticated_connection?: boolean;
  @Bool() disable_packet_broker_forwarding?: boolean;
  /** TTS allows 8 antennas; the Gateway Server sets the first one's location from the gateway's status when `update_location_from_status`. */
  @Messages(() => GatewayAntenna, { maxItems: 8 }) antennas?: GatewayAntenna[];
  /** The LoRa Basics Station LNS credential CUPS hands the gateway (its `tc.key` token: an API key of the gateway with RIGHT_GATEWAY_LINK). */
  @Message(() => Secret) lbs_lns_secret?: Secret;
  /** The CUPS server the gateway is moved to at its next `update-info`; empty: it stays where it is. */
  @Str({ maxLength: 256, pattern: /^(https?:\/\/\S+)?$/ }) target_cups_uri?: string;
  /** The CUPS credential (its `cups.key` token) the gateway is given for `target_cups_uri`, or for this CUPS when that is empty. */
  @Message(() => Secret) target_cups_key?: Secret;
}

export const GATEWAY_ORDERS = ['gateway_id', 'gateway_eui', 'name', 'created_at'] as const;

export class CreateGatewayRequest {
  @Required() @Message(() => Gateway) gateway!: Gateway;
  @Required() @Message(() => OrganizationOrUserIdentifiers) collaborator!: OrganizationOrUserIdentifiers;
}

export class GetGatewayRequest {
  @Required() @Message(() => GatewayIdentifiers) gateway_ids!: GatewayIdentifiers;
  @FieldMaskField() field_mask?: FieldMask;
}

export class ListGatewaysRequest extends Pagination {
  @Message(() => OrganizationOrUserIdentifiers) collaborator?: OrganizationOrUserIdentifiers;
  @FieldMaskField() field_mask?: FieldMask;
  @Str({ pattern: orderPattern(GATEWAY_ORDERS) }) order?: string;
  @Bool() deleted?: boolean;
}

export class UpdateGatewayRequest {
  @Required() @Message(() => Gateway) gateway!: Gateway;
  @FieldMaskField() field_mask?: FieldMask;
}

/** Internal (data plane): the gateway registered with an EUI. */
export class GetGatewayIdentifiersForEUIRequest {
  @Required() @Str({ pattern: /^[0-9A-Fa-f]{16}$/ }) eui!: string;
}

// Users.

export const State = defineEnum('State', { STATE_REQUESTED: 0, STATE_APPROVED: 1, STATE_REJECTED: 2, STATE_FLAGGED: 3, STATE_SUSPENDED: 4 }, 'STATE_');

export class User {
  @Required() @Message(() => UserIdentifiers) ids!: UserIdentifiers;
  @Timestamp() created_at?: string;
  @Timestamp() updated_at?: string;
  @Timestamp() deleted_at?: string;
  @Str({ maxLength: 50 }) name?: string;
  @Str({ maxLength: 2000 }) description?: string;
  @StringMap(ATTRIBUTES) attributes?: Record<string, string>;
  @Str({ maxLength: 320, pattern: /^[^@\s]+@[^@\s]+$|^$/ }) primary_email_address?: string;
  @Timestamp() primary_email_address_validated_at?: string;
  /** Write-only: stored as a salted hash, never returned. */
  @Str({ maxLength: 1000 }) password?: string;
  @Timestamp() password_updated_at?: string;
  @Bool() require_password_update?: boolean;
  @EnumName(State) state?: string;
  @Str({ maxLength: 128 }) state_description?: string;
  @Bool() admin?: boolean;
}

export const USER_ORDERS = ['user_id', 'name', 'primary_email_address', 'state', 'admin', 'created_at'] as const;

export class CreateUserRequest {
  @Required() @Message(() => User) user!: User;
  @Str({ maxLength: 64 }) invitation_token?: string;
}

export class GetUserRequest {
  @Required() @Message(() => UserIdentifiers) user_ids!: UserIdentifiers;
  @FieldMaskField() field_mask?: FieldMask;
}

export class ListUsersRequest extends Pagination {
  @FieldMaskField() field_mask?: FieldMask;
  @Str({ pattern: orderPattern(USER_ORDERS) }) order?: string;
  @Bool() deleted?: boolean;
}

export class UpdateUserRequest {
  @Required() @Message(() => User) user!: User;
  @FieldMaskField() field_mask?: FieldMask;
}

// API keys.

/** `NNSXS.<ID>.<SECRET>`: the ID is 39 upper-case base32 characters (24 bytes, no padding). */
export const API_KEY_ID_PATTERN = /^[A-Z2-7]{39}$/;

export class APIKey {
  @Str({ maxLength: 39 }) id?: string;
  /** Only in the answer to a create: the whole token. */
  @Str({ maxLength: 200 }) key?: string;
  @Str({ maxLength: 50 }) name?: string;
  @EnumNames(RightEnum) rights?: string[];
  @Timestamp() created_at?: string;
  @Timestamp() updated_at?: string;
  @Timestamp() expires_at?: string;
}

export const API_KEY_ORDERS = ['api_key_id', 'name', 'created_at', 'expires_at'] as const;
const RIGHTS_LIST = { minItems: 1, maxItems: 100 };

/**
 * The requests of `<Entity>Access` for API keys: one shape per entity, differing only in the
 * identifiers' field. The shared fields live in these bases; each request class (its name is the
 * `…ValidationError` prefix of its errors) adds its entity's identifiers.
 */
abstract class CreateAPIKeyFields {
  @Str({ maxLength: 50 }) name?: string;
  @Required() @EnumNames(RightEnum) @List(RIGHTS_LIST) rights!: string[];
  @Timestamp() expires_at?: string;
}
abstract class ListAPIKeysFields extends Pagination {
  @Str({ pattern: orderPattern(API_KEY_ORDERS) }) order?: string;
}
abstract class APIKeyIdField {
  @Required() @Str({ pattern: API_KEY_ID_PATTERN }) key_id!: string;
}
abstract class UpdateAPIKeyFields {
  @Required() @Message(() => APIKey) api_key!: APIKey;
  @FieldMaskField() field_mask?: FieldMask;
}

export class CreateApplicationAPIKeyRequest extends CreateAPIKeyFields {
  @Required() @Message(() => ApplicationIdentifiers) application_ids!: ApplicationIdentifiers;
}
export class ListApplicationAPIKeysRequest extends ListAPIKeysFields {
  @Required() @Message(() => ApplicationIdentifiers) application_ids!: ApplicationIdentifiers;
}
export class GetApplicationAPIKeyRequest extends APIKeyIdField {
  @Required() @Message(() => ApplicationIdentifiers) application_ids!: ApplicationIdentifiers;
}
export class UpdateApplicationAPIKeyRequest extends UpdateAPIKeyFields {
  @Required() @Message(() => ApplicationIdentifiers) application_ids!: ApplicationIdentifiers;
}
export class DeleteApplicationAPIKeyRequest extends APIKeyIdField {
  @Required() @Message(() => ApplicationIdentifiers) application_ids!: ApplicationIdentifiers;
}

export class CreateGatewayAPIKeyRequest extends CreateAPIKeyFields {
  @Required() @Message(() => GatewayIdentifiers) gateway_ids!: GatewayIdentifiers;
}
export class ListGatewayAPIKeysRequest extends ListAPIKeysFields {
  @Required() @Message(() => GatewayIdentifiers) gateway_ids!: GatewayIdentifiers;
}
export class GetGatewayAPIKeyRequest extends APIKeyIdField {
  @Required() @Message(() => GatewayIdentifiers) gateway_ids!: GatewayIdentifiers;
}
export class UpdateGatewayAPIKeyRequest extends UpdateAPIKeyFields {
  @Required() @Message(() => GatewayIdentifiers) gateway_ids!: GatewayIdentifiers;
}
export class DeleteGatewayAPIKeyRequest extends APIKeyIdField {
  @Required() @Message(() => GatewayIdentifiers) gateway_ids!: GatewayIdentifiers;
}

export class CreateUserAPIKeyRequest extends CreateAPIKeyFields {
  @Required() @Message(() => UserIdentifiers) user_ids!: UserIdentifiers;
}
export class ListUserAPIKeysRequest extends ListAPIKeysFields {
  @Required() @Message(() => UserIdentifiers) user_ids!: UserIdentifiers;
}
export class GetUserAPIKeyRequest extends APIKeyIdField {
  @Required() @Message(() => UserIdentifiers) user_ids!: UserIdentifiers;
}
export class UpdateUserAPIKeyRequest extends UpdateAPIKeyFields {
  @Required() @Message(() => UserIdentifiers) user_ids!: UserIdentifiers;
}
export class DeleteUserAPIKeyRequest extends APIKeyIdField {
  @Required() @Message(() => UserIdentifiers) user_ids!: UserIdentifiers;
}

export class CreateOrganizationAPIKeyRequest extends CreateAPIKeyFields {
  @Required() @Message(() => OrganizationIdentifiers) organization_ids!: OrganizationIdentifiers;
}
export class ListOrganizationAPIKeysRequest extends ListAPIKeysFields {
  @Required() @Message(() => OrganizationIdentifiers) organization_ids!: OrganizationIdentifiers;
}
export class GetOrganizationAPIKeyRequest extends APIKeyIdField {
  @Required() @Message(() => OrganizationIdentifiers) organization_ids!: OrganizationIdentifiers;
}
export class UpdateOrganizationAPIKeyRequest extends UpdateAPIKeyFields {
  @Required() @Message(() => OrganizationIdentifiers) organization_ids!: OrganizationIdentifiers;
}
export class DeleteOrganizationAPIKeyRequest extends APIKeyIdField {
  @Required() @Message(() => OrganizationIdentifiers) organization_ids!: OrganizationIdentifiers;
}

/** `<Entity>Access.ListRights`: the caller's rights on the entity. */
export {
  ApplicationIdentifiers as ListApplicationRightsRequest,
  GatewayIdentifiers as ListGatewayRightsRequest,
  OrganizationIdentifiers as ListOrganizationRightsRequest,
  UserIdentifiers as ListUserRightsRequest,
};

// Access (internal and `GET /auth_info`).

export class EntityRefMessage {
  @Required() @Str({ pattern: /^(application|gateway|user|organization|client)$/ }) kind!: string;
  @Required() @Str({ maxLength: ID_MAX_LENGTH, pattern: ID_PATTERN }) id!: string;
}

/**
 * Internal (gateway → IS, no HTTP binding): resolve the request's Authorization header to a
 * caller identity and its rights on `entity`. The token crosses the transport only here.
 */
export class AuthorizeRequest {
  @Required() @Str({ maxLength: 4096 }) authorization!: string;
  @Message(() => EntityRefMessage) entity?: EntityRefMessage;
}

/** `GET /auth_info`: no fields. */
export class AuthInfoRequest {}
