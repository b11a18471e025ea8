import { EnumNames, Str, Uint32 } from '../json/fields';
import { Message, Required } from '../json/nested';
import { RightEnum } from '../rpc/rights';
import { ApplicationIdentifiers, ClientIdentifiers, GatewayIdentifiers, OrganizationIdentifiers, OrganizationOrUserIdentifiers } from './identifiers';

/**
 * Collaborators of applications, gateways, clients and organizations (TTS `rights.proto`
 * `Collaborator`, and the `<Entity>Access` collaborator requests of `application.proto`,
 * `gateway.proto`, `client.proto`, `organization.proto`): a user or an organization with the
 * rights it holds on the entity (an organization's collaborators are its members, users only).
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

export class ListClientCollaboratorsRequest extends ListCollaboratorsFields {
  @Required() @Message(() => ClientIdentifiers) client_ids!: ClientIdentifiers;
}
export class GetClientCollaboratorRequest extends GetCollaboratorFields {
  @Required() @Message(() => ClientIdentifiers) client_ids!: ClientIdentifiers;
}
export class SetClientCollaboratorRequest extends SetCollaboratorFields {
  @Required() @Message(() => ClientIdentifiers) client_ids!: ClientIdentifiers;
}
export class DeleteClientCollaboratorRequest extends DeleteCollaboratorFields {
  @Required() @Message(() => ClientIdentifiers) client_ids!: ClientIdentifiers;
}

export class ListOrganizationCollaboratorsRequest extends ListCollaboratorsFields {
  @Required() @Message(() => OrganizationIdentifiers) organization_ids!: OrganizationIdentifiers;
}
export class GetOrganizationCollaboratorRequest extends GetCollaboratorFields {
  @Required() @Message(() => OrganizationIdentifiers) organization_ids!: OrganizationIdentifiers;
}
export class SetOrganizationCollaboratorRequest extends SetCollaboratorFields {
  @Required() @Message(() => OrganizationIdentifiers) organization_ids!: OrganizationIdentifiers;
}
export class DeleteOrganizationCollaboratorRequest extends DeleteCollaboratorFields {
  @Required() @Message(() => OrganizationIdentifiers) organization_ids!: OrganizationIdentifiers;
}
