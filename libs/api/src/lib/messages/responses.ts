import { Bool, EnumNames, Str, StringList, StringMap, Struct, Timestamp } from '../json/fields';
import { Message, Messages } from '../json/nested';
import { RightEnum } from '../rpc/rights';
import { EntityIdentifiers } from '../events/stream';
import { Application, APIKey, Gateway, User } from './identity';
import { Client } from './client';
import { Organization } from './organization';
import { Collaborator } from './collaborators';
import { ApplicationWebhook } from './webhooks';
import { ApplicationDownlink } from './traffic';

/**
 * The answers of the RPC table that are not a stored message themselves (TTS's list wrappers,
 * `Rights`, `AuthInfoResponse`, `google.protobuf.Empty`), named as TTS names them. Components build
 * their answers as plain objects; these classes describe them (the RPC table's `response`, the
 * OpenAPI document's response schemas).
 */

/** `google.protobuf.Empty`: `{}`. */
export class Empty {}

/** `ttn.lorawan.v3.Rights`. */
export class Rights {
  @EnumNames(RightEnum) rights?: string[];
}

export class Applications {
  @Messages(() => Application) applications?: Application[];
}

export class Gateways {
  @Messages(() => Gateway) gateways?: Gateway[];
}

export class Users {
  @Messages(() => User) users?: User[];
}

export class Organizations {
  @Messages(() => Organization) organizations?: Organization[];
}

export class Clients {
  @Messages(() => Client) clients?: Client[];
}

export class APIKeys {
  @Messages(() => APIKey) api_keys?: APIKey[];
}

export class Collaborators {
  @Messages(() => Collaborator) collaborators?: Collaborator[];
}

export class ApplicationWebhooks {
  @Messages(() => ApplicationWebhook) webhooks?: ApplicationWebhook[];
}

/** `ttn.lorawan.v3.ApplicationWebhookFormats`: format ID → description. */
export class ApplicationWebhookFormats {
  @StringMap() formats?: Record<string, string>;
}

/** `ttn.lorawan.v3.ApplicationDownlinks`: a device's downlink queue. */
export class ApplicationDownlinks {
  @Messages(() => ApplicationDownlink) downlinks?: ApplicationDownlink[];
}

/** `AuthInfoResponse.APIKeyAccess`: the caller's API key (never its secret) and the entity it belongs to. */
export class APIKeyAccess {
  @Message(() => APIKey) api_key?: APIKey;
  @Message(() => EntityIdentifiers) entity_ids?: EntityIdentifiers;
}

/** `ttn.lorawan.v3.AuthInfoResponse` (`GET /auth_info`). */
export class AuthInfoResponse {
  @Message(() => APIKeyAccess) api_key?: APIKeyAccess;
  @Message(() => Rights) universal_rights?: Rights;
  @Bool() is_admin?: boolean;
}

/** `ttn.lorawan.v3.Event` (wire contract §7.1): a message of `POST /events`' stream. */
export class Event {
  @Str() name?: string;
  @Timestamp() time?: string;
  @Messages(() => EntityIdentifiers) identifiers?: EntityIdentifiers[];
  /** A `google.protobuf.Any`: `@type` and the message's fields. */
  @Struct() data?: Record<string, unknown>;
  @StringList() correlation_ids?: string[];
  @Str() origin?: string;
  @Message(() => Rights) visibility?: Rights;
  @Str() unique_id?: string;
}
