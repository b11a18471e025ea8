import { OrganizationIdentifiers } from '../messages/identifiers';
import { Organizations } from '../messages/responses';
import { CreateOrganizationRequest, Organization, GetOrganizationRequest, ListOrganizationsRequest, UpdateOrganizationRequest } from '../messages/organization';
import { entityRegistryRpcs } from './entity-registry-rpcs';

/**
 * The IS's OrganizationRegistry (TTS `organization_services.proto`, rights as
 * `organization_registry.go`). Organizations are created by and listed for users only: they do
 * not nest. The members are served by `OrganizationAccess` (with the API keys, in the table).
 */
export function organizationRpcs() {
  return entityRegistryRpcs('organization', {
    create: CreateOrganizationRequest,
    get: GetOrganizationRequest,
    list: ListOrganizationsRequest,
    update: UpdateOrganizationRequest,
    identifiers: OrganizationIdentifiers,
    entity: Organization,
    entities: Organizations,
  });
}
