import { EnumNames, Str, Uint32 } from '../json/fields';
import { Message, Required } from '../json/nested';
import { RightEnum } from '../rpc/rights';
import { ApplicationIdentifiers, GatewayIdentifiers, OrganizationOrUserIdentifiers } from './identifiers';

/**
 * Collaborators of applications and gateways (TTS `rights.proto` `Collaborator`, and the
 * `<Entity>Access` collaborator requests of `application.proto`, `gateway.proto`): a user (or, in
 * TTS, an organization) with the rights it holds on the entity.
 */
export class Collaborator {
  @Required() @Message(() => OrganizationOrUserIdentifiers) ids!: OrganizationOrUserIdentifiers;
  /** As granted (not implied); none removes the collaborator (SetCollaborator). */
  @EnumNames(RightEnum) rights?: string[];
}

/** `GetCollaborator`'s answer (TTS keeps it field-compatible with Collaborator). */
export type GetCollaboratorResponse = Collaborator;

/** `order` of ListCollaborators (TTS): by the collaborator's ID or its rights, `-` for descending. */
export const COLLABORATOR_ORDERS = ['id', 'rights'] as const;

/** The shared fields of the requests; each request class adds its entity's identifiers (its name prefixes its validation errors). */
abstract class ListCollaboratorsFields {
  @Uint32({ max: 1000 }) limit?: number;
  @Uint32() page?: number;
  @Str({ pattern: /^(?:-?(?:id|rights))?$/ }) order?: string;
}
abstract class GetCollaboratorFields {
  @Required() @Message(() => OrganizationOrUserIdentifiers) collaborator!: OrganizationOrUserIdentifiers;
}
abstract class SetCollaboratorFields {
  @Required() @Message(() => Collaborator) collaborator!: Collaborator;
}
abstract class DeleteCollaboratorFields {
  @Required() @Message(() => OrganizationOrUserIdentifiers) collaborator_ids!: OrganizationOrUserIdentifiers;
}

export class ListApplicationCollaboratorsRequest extends ListCollaboratorsFields {
  @Required() @Message(() => ApplicationIdentifiers) application_ids!: ApplicationIdentifiers;
}
export class GetApplicationCollaboratorRequest extends GetCollaboratorFields {
  @Required() @Message(() => ApplicationIdentifiers) application_ids!: ApplicationIdentifiers;
}
export class SetApplicationCollaboratorRequest extends SetCollaboratorFields {
  @Required() @Message(() => ApplicationIdentifiers) application_ids!: ApplicationIdentifiers;
}
export class DeleteApplicationCollaboratorRequest extends DeleteCollaboratorFields {
  @Required() @Message(() => ApplicationIdentifiers) application_ids!: ApplicationIdentifiers;
}

export class ListGatewayCollaboratorsRequest extends ListCollaboratorsFields {
  @Required() @Message(() => GatewayIdentifiers) gateway_ids!: GatewayIdentifiers;
}
export class GetGatewayCollaboratorRequest extends GetCollaboratorFields {
  @Required() @Message(() => GatewayIdentifiers) gateway_ids!: GatewayIdentifiers;
}
export class SetGatewayCollaboratorRequest extends SetCollaboratorFields {
  @Required() @Message(() => GatewayIdentifiers) gateway_ids!: GatewayIdentifiers;
}
export class DeleteGatewayCollaboratorRequest extends DeleteCollaboratorFields {
  @Required() @Message(() => GatewayIdentifiers) gateway_ids!: GatewayIdentifiers;
}
