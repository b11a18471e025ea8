import { OrganizationIdentifiers } from '../messages/identifiers';
import { CreateOrganizationRequest, GetOrganizationRequest, ListOrganizationsRequest, UpdateOrganizationRequest } from '../messages/organization';
import { Right } from './rights';
import { defineRpc, type RpcSpec } from './define-rpc';

const SERVICE = 'OrganizationRegistry';

const organizationRpc = <Req extends object>(def: Omit<RpcSpec<Req>, 'component' | 'service'>) => defineRpc({ ...def, service: SERVICE, component: 'is' });

const org = (path: string) => ({ kind: 'organization' as const, path });
const usr = (path: string, optional?: boolean) => ({ kind: 'user' as const, path, ...(optional ? { optional } : {}) });

/**
 * The IS's OrganizationRegistry (TTS `organization_services.proto`, rights as
 * `organization_registry.go`). Organizations are created by and listed for users only: they do
 * not nest. The members are served by `OrganizationAccess` (with the API keys, in the table).
 */
export function organizationRpcs() {
  return {
    'OrganizationRegistry.Create': organizationRpc({
      method: 'Create',
      http: [{ verb: 'POST', path: '/users/{collaborator.user_ids.user_id}/organizations', body: '*' }],
      entity: usr('collaborator.user_ids.user_id'),
      rights: [Right.RIGHT_USER_ORGANIZATIONS_CREATE],
      request: CreateOrganizationRequest,
    }),
    'OrganizationRegistry.Get': organizationRpc({
      method: 'Get',
      http: [{ verb: 'GET', path: '/organizations/{organization_ids.organization_id}' }],
      entity: org('organization_ids.organization_id'),
      rights: [Right.RIGHT_ORGANIZATION_INFO],
      request: GetOrganizationRequest,
    }),
    'OrganizationRegistry.List': organizationRpc({
      method: 'List',
      http: [
        { verb: 'GET', path: '/organizations' },
        { verb: 'GET', path: '/users/{collaborator.user_ids.user_id}/organizations' },
      ],
      entity: usr('collaborator.user_ids.user_id', true),
      rights: [Right.RIGHT_USER_ORGANIZATIONS_LIST],
      request: ListOrganizationsRequest,
      paginated: true,
    }),
    'OrganizationRegistry.Update': organizationRpc({
      method: 'Update',
      http: [{ verb: 'PUT', path: '/organizations/{organization.ids.organization_id}', body: '*' }],
      entity: org('organization.ids.organization_id'),
      rights: [Right.RIGHT_ORGANIZATION_SETTINGS_BASIC],
      request: UpdateOrganizationRequest,
    }),
    'OrganizationRegistry.Delete': organizationRpc({
      method: 'Delete',
      http: [{ verb: 'DELETE', path: '/organizations/{organization_id}' }],
      entity: org('organization_id'),
      rights: [Right.RIGHT_ORGANIZATION_DELETE],
      request: OrganizationIdentifiers,
    }),
    'OrganizationRegistry.Restore': organizationRpc({
      method: 'Restore',
      http: [{ verb: 'POST', path: '/organizations/{organization_id}/restore', body: '*' }],
      entity: org('organization_id'),
      rights: [Right.RIGHT_ORGANIZATION_DELETE],
      request: OrganizationIdentifiers,
    }),
    /** TTS `errAdminsPurgeOrganizations`: only admins purge. */
    'OrganizationRegistry.Purge': organizationRpc({
      method: 'Purge',
      http: [{ verb: 'DELETE', path: '/organizations/{organization_id}/purge' }],
      entity: org('organization_id'),
      rights: [Right.RIGHT_ORGANIZATION_DELETE],
      adminOnly: true,
      request: OrganizationIdentifiers,
    }),
  };
}
