import { IS_EVENTS } from '../events/component-events';
import { ALLOWED_PATHS } from '../field-mask/allowed-paths';
import { CreateOrganizationAPIKeyRequest } from '../messages/identity';
import { CreateOrganizationRequest, ListOrganizationsRequest, Organization } from '../messages/organization';
import { decodeMessage } from '../validation/decode';
import { entityIdOf, RPCS } from './rpc-table';

const summary = (name: keyof typeof RPCS) => {
  const rpc = RPCS[name];
  return { component: rpc.component, http: rpc.http, entity: rpc.entity, rights: rpc.rights, adminOnly: rpc.adminOnly ?? false };
};

describe('OrganizationRegistry and OrganizationAccess in the RPC table (TTS organization_services.proto, organization_registry.go)', () => {
  it('binds the registry routes of TTS with the rights TTS checks (users only as collaborators: organizations do not nest)', () => {
    const table = Object.fromEntries(
      (['Create', 'Get', 'List', 'Update', 'Delete', 'Restore', 'Purge'] as const).map((m) => [m, summary(`OrganizationRegistry.${m}`)]),
    );
    const org = (path: string) => ({ kind: 'organization', path });
    expect(table).toEqual({
      Create: {
        component: 'is',
        http: [{ verb: 'POST', path: '/users/{collaborator.user_ids.user_id}/organizations', body: '*' }],
        entity: { kind: 'user', path: 'collaborator.user_ids.user_id' },
        rights: ['RIGHT_USER_ORGANIZATIONS_CREATE'],
        adminOnly: false,
      },
      Get: {
        component: 'is',
        http: [{ verb: 'GET', path: '/organizations/{organization_ids.organization_id}' }],
        entity: org('organization_ids.organization_id'),
        rights: ['RIGHT_ORGANIZATION_INFO'],
        adminOnly: false,
      },
      List: {
        component: 'is',
        http: [
          { verb: 'GET', path: '/organizations' },
          { verb: 'GET', path: '/users/{collaborator.user_ids.user_id}/organizations' },
        ],
        entity: { kind: 'user', path: 'collaborator.user_ids.user_id', optional: true },
        rights: ['RIGHT_USER_ORGANIZATIONS_LIST'],
        adminOnly: false,
      },
      Update: {
        component: 'is',
        http: [{ verb: 'PUT', path: '/organizations/{organization.ids.organization_id}', body: '*' }],
        entity: org('organization.ids.organization_id'),
        rights: ['RIGHT_ORGANIZATION_SETTINGS_BASIC'],
        adminOnly: false,
      },
      Delete: {
        component: 'is',
        http: [{ verb: 'DELETE', path: '/organizations/{organization_id}' }],
        entity: org('organization_id'),
        rights: ['RIGHT_ORGANIZATION_DELETE'],
        adminOnly: false,
      },
      Restore: {
        component: 'is',
        http: [{ verb: 'POST', path: '/organizations/{organization_id}/restore', body: '*' }],
        entity: org('organization_id'),
        rights: ['RIGHT_ORGANIZATION_DELETE'],
        adminOnly: false,
      },
      Purge: {
        component: 'is',
        http: [{ verb: 'DELETE', path: '/organizations/{organization_id}/purge' }],
        entity: org('organization_id'),
        rights: ['RIGHT_ORGANIZATION_DELETE'],
        adminOnly: true,
      },
    });
    expect(entityIdOf(RPCS['OrganizationRegistry.Update'], { organization: { ids: { organization_id: 'org-1' } } })).toBe('org-1');
    expect(RPCS['OrganizationRegistry.List'].paginated).toBe(true);
  });

  it('binds ListRights and the API-key routes of OrganizationAccess, each needing RIGHT_ORGANIZATION_SETTINGS_API_KEYS', () => {
    expect(summary('OrganizationAccess.ListRights')).toEqual({
      component: 'is',
      http: [{ verb: 'GET', path: '/organizations/{organization_id}/rights' }],
      entity: { kind: 'organization', path: 'organization_id' },
      rights: [],
      adminOnly: false,
    });
    const base = '/organizations/{organization_ids.organization_id}/api-keys';
    const keys = Object.fromEntries(
      (['CreateAPIKey', 'ListAPIKeys', 'GetAPIKey', 'UpdateAPIKey', 'DeleteAPIKey'] as const).map((m) => {
        const rpc = RPCS[`OrganizationAccess.${m}`];
        expect(rpc.entity).toEqual({ kind: 'organization', path: 'organization_ids.organization_id' });
        expect(rpc.rights).toEqual(['RIGHT_ORGANIZATION_SETTINGS_API_KEYS']);
        return [m, rpc.http];
      }),
    );
    expect(keys).toEqual({
      CreateAPIKey: [{ verb: 'POST', path: base, body: '*' }],
      ListAPIKeys: [{ verb: 'GET', path: base }],
      GetAPIKey: [{ verb: 'GET', path: `${base}/{key_id}` }],
      UpdateAPIKey: [{ verb: 'PUT', path: `${base}/{api_key.id}`, body: '*' }],
      DeleteAPIKey: [{ verb: 'DELETE', path: `${base}/{key_id}` }],
    });
  });

  it('allows the organization fields of TTS in masks, contacts whole, without the deprecated contact_info', () => {
    for (const rpc of ['OrganizationRegistry.Get', 'OrganizationRegistry.List', 'OrganizationRegistry.Update'] as const) {
      expect([...ALLOWED_PATHS[rpc]].sort()).toEqual([
        'administrative_contact',
        'attributes',
        'created_at',
        'deleted_at',
        'description',
        'fanout_notifications',
        'ids',
        'ids.organization_id',
        'name',
        'technical_contact',
        'updated_at',
      ]);
    }
  });

  it('validates an organization as TTS: ID pattern, lengths, order names, rights by name', () => {
    expect(decodeMessage(Organization, { ids: { organization_id: 'org-1' }, name: 'n'.repeat(50), fanout_notifications: true })).toMatchObject({
      fanout_notifications: true,
    });
    expect(() => decodeMessage(Organization, { ids: { organization_id: 'Org_1' } })).toThrow();
    expect(() => decodeMessage(Organization, { ids: { organization_id: 'org-1' }, name: 'n'.repeat(51) })).toThrow();
    expect(() => decodeMessage(Organization, { ids: { organization_id: 'org-1' }, description: 'd'.repeat(2001) })).toThrow();
    expect(() => decodeMessage(CreateOrganizationRequest, { organization: { ids: { organization_id: 'org-1' } } })).toThrow();
    expect(decodeMessage(ListOrganizationsRequest, { order: '-created_at' }).order).toBe('-created_at');
    expect(() => decodeMessage(ListOrganizationsRequest, { order: 'application_id' })).toThrow();
    expect(() => decodeMessage(ListOrganizationsRequest, { limit: 1001 })).toThrow();
    expect(
      decodeMessage(CreateOrganizationAPIKeyRequest, {
        organization_ids: { organization_id: 'org-1' },
        rights: ['RIGHT_ORGANIZATION_INFO', 'APPLICATION_INFO'],
      }).rights,
    ).toEqual(['RIGHT_ORGANIZATION_INFO', 'RIGHT_APPLICATION_INFO']);
    expect(() => decodeMessage(CreateOrganizationAPIKeyRequest, { organization_ids: { organization_id: 'org-1' }, rights: [] })).toThrow();
  });

  it('defines the organization events of TTS', () => {
    const names = (events: Record<string, { name: string }>) => Object.values(events).map((e) => e.name);
    expect(names(IS_EVENTS.organization)).toEqual(
      expect.arrayContaining(['organization.create', 'organization.update', 'organization.delete', 'organization.restore', 'organization.purge']),
    );
    expect(names(IS_EVENTS.organizationApiKey)).toEqual(
      expect.arrayContaining(['organization.api-key.create', 'organization.api-key.update', 'organization.api-key.delete']),
    );
  });
});
