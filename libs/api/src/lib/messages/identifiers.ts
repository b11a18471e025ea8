import { Eui64, DevAddr, Str } from '../json/fields';
import { Message, Required } from '../json/nested';

/** `^[a-z0-9](?:[-]?[a-z0-9]){2,}$`, max 36: the ID rule for applications, devices, gateways, users, webhooks. */
export const ID_PATTERN = /^[a-z0-9](?:[-]?[a-z0-9]){2,}$/;
export const ID_MAX_LENGTH = 36;

export const Id = () => Str({ maxLength: ID_MAX_LENGTH, pattern: ID_PATTERN });

export class ApplicationIdentifiers {
  @Required() @Id() application_id!: string;
}

export class EndDeviceIdentifiers {
  @Required() @Id() device_id!: string;
  @Required() @Message(() => ApplicationIdentifiers) application_ids!: ApplicationIdentifiers;
  @Eui64() dev_eui?: string;
  @Eui64() join_eui?: string;
  @DevAddr() dev_addr?: string;
}

export class EndDeviceVersionIdentifiers {
  @Str({ maxLength: ID_MAX_LENGTH, pattern: /^[a-z0-9](?:[-]?[a-z0-9]){2,}$|^$/ }) brand_id?: string;
  @Str({ maxLength: ID_MAX_LENGTH, pattern: /^[a-z0-9](?:[-]?[a-z0-9]){2,}$|^$/ }) model_id?: string;
  @Str({ maxLength: 32 }) hardware_version?: string;
  @Str({ maxLength: 32 }) firmware_version?: string;
  @Str({ maxLength: 32 }) band_id?: string;
}

export class GatewayIdentifiers {
  @Required() @Id() gateway_id!: string;
  @Eui64() eui?: string;
}

export class UserIdentifiers {
  @Required() @Id() user_id!: string;
  @Str({ maxLength: 320 }) email?: string;
}

/** An OAuth client (TTS `ClientIdentifiers`). */
export class ClientIdentifiers {
  @Required() @Id() client_id!: string;
}

export class OrganizationIdentifiers {
  @Required() @Id() organization_id!: string;
}

/** A collaborator or contact: a user or an organization (a oneof in TTS; exactly one is set). */
export class OrganizationOrUserIdentifiers {
  @Message(() => OrganizationIdentifiers) organization_ids?: OrganizationIdentifiers;
  @Message(() => UserIdentifiers) user_ids?: UserIdentifiers;
}
