import { ALLOWED_PATHS } from '../field-mask/allowed-paths';
import { Client, CreateClientRequest, ListClientsRequest } from '../messages/client';
import { decodeMessage } from '../validation/decode';
import { entityIdOf, RPCS } from './rpc-table';

describe('ClientRegistry in the RPC table (TTS client_services.proto, client_registry.go)', () => {
  it('binds the routes of TTS with the rights TTS checks (a user or an organization as collaborator)', () => {
    const table = Object.fromEntries(
      (['Create', 'Get', 'List', 'Update', 'Delete', 'Restore', 'Purge'] as const).map((m) => {
        const rpc = RPCS[`ClientRegistry.${m}`];
        return [
          m,
          { component: rpc.component, http: rpc.http, entity: rpc.entity, orEntity: rpc.orEntity, rights: rpc.rights, adminOnly: rpc.adminOnly ?? false },
        ];
      }),
    );
    expect(table).toEqual({
      Create: {
        component: 'is',
        http: [
          { verb: 'POST', path: '/users/{collaborator.user_ids.user_id}/clients', body: '*' },
          { verb: 'POST', path: '/organizations/{collaborator.organization_ids.organization_id}/clients', body: '*' },
        ],
        entity: { kind: 'user', path: 'collaborator.user_ids.user_id' },
        orEntity: { kind: 'organization', path: 'collaborator.organization_ids.organization_id', rights: ['RIGHT_ORGANIZATION_CLIENTS_CREATE'] },
        rights: ['RIGHT_USER_CLIENTS_CREATE'],
        adminOnly: false,
      },
      Get: {
        component: 'is',
        http: [{ verb: 'GET', path: '/clients/{client_ids.client_id}' }],
        entity: { kind: 'client', path: 'client_ids.client_id' },
        rights: ['RIGHT_CLIENT_INFO'],
        adminOnly: false,
      },
      List: {
        component: 'is',
        http: [
          { verb: 'GET', path: '/clients' },
          { verb: 'GET', path: '/users/{collaborator.user_ids.user_id}/clients' },
          { verb: 'GET', path: '/organizations/{collaborator.organization_ids.organization_id}/clients' },
        ],
        entity: { kind: 'user', path: 'collaborator.user_ids.user_id', optional: true },
        orEntity: { kind: 'organization', path: 'collaborator.organization_ids.organization_id', rights: ['RIGHT_ORGANIZATION_CLIENTS_LIST'] },
        rights: ['RIGHT_USER_CLIENTS_LIST'],
        adminOnly: false,
      },
      Update: {
        component: 'is',
        http: [{ verb: 'PUT', path: '/clients/{client.ids.client_id}', body: '*' }],
        entity: { kind: 'client', path: 'client.ids.client_id' },
        rights: ['RIGHT_CLIENT_SETTINGS_BASIC'],
        adminOnly: false,
      },
      Delete: {
        component: 'is',
        http: [{ verb: 'DELETE', path: '/clients/{client_id}' }],
        entity: { kind: 'client', path: 'client_id' },
        rights: ['RIGHT_CLIENT_DELETE'],
        adminOnly: false,
      },
      Restore: {
        component: 'is',
        http: [{ verb: 'POST', path: '/clients/{client_id}/restore', body: '*' }],
        entity: { kind: 'client', path: 'client_id' },
        rights: ['RIGHT_CLIENT_DELETE'],
        adminOnly: false,
      },
      Purge: {
        component: 'is',
        http: [{ verb: 'DELETE', path: '/clients/{client_id}/purge' }],
        entity: { kind: 'client', path: 'client_id' },
        rights: ['RIGHT_CLIENT_DELETE'],
        adminOnly: true,
      },
    });
    expect(entityIdOf(RPCS['ClientRegistry.Update'], { client: { ids: { client_id: 'cli-1' } } })).toBe('cli-1');
  });

  it('lets Update set the secret, but Get and List never select it', () => {
    expect(ALLOWED_PATHS['ClientRegistry.Update'].has('secret')).toBe(true);
    expect(ALLOWED_PATHS['ClientRegistry.Get'].has('secret')).toBe(false);
    expect(ALLOWED_PATHS['ClientRegistry.List'].has('secret')).toBe(false);
    for (const p of ['name', 'redirect_uris', 'state', 'grants', 'rights', 'administrative_contact', 'deleted_at'])
      expect(ALLOWED_PATHS['ClientRegistry.Get'].has(p)).toBe(true);
  });

  it('validates a client as TTS: ID pattern, lengths, enums by name or number', () => {
    const client = decodeMessage(Client, { ids: { client_id: 'cli-1' }, grants: [0, 'REFRESH_TOKEN'], rights: ['RIGHT_USER_INFO'], state: 1 });
    expect(client).toMatchObject({ grants: ['GRANT_AUTHORIZATION_CODE', 'GRANT_REFRESH_TOKEN'], rights: ['RIGHT_USER_INFO'], state: 'STATE_APPROVED' });
    const bad = (value: object) => () => decodeMessage(Client, { ids: { client_id: 'cli-1' }, ...value });
    for (const value of [
      { ids: { client_id: 'Cli_1' } },
      { secret: 'x'.repeat(129) },
      { redirect_uris: Array.from({ length: 11 }, (_, i) => `https://a.example/${i}`) },
      { redirect_uris: [`https://a.example/${'x'.repeat(120)}`] },
      { grants: ['GRANT_IMPLICIT'] },
      { state_description: 'x'.repeat(129) },
    ])
      expect(bad(value)).toThrow(expect.objectContaining({ errorName: 'validation' }));
    expect(() => decodeMessage(CreateClientRequest, { client: { ids: { client_id: 'cli-1' } } })).toThrow(expect.objectContaining({ errorName: 'validation' }));
    expect(() => decodeMessage(ListClientsRequest, { order: 'secret' })).toThrow(expect.objectContaining({ errorName: 'validation' }));
    expect(decodeMessage(ListClientsRequest, { order: '-created_at', limit: 10 })).toMatchObject({ order: '-created_at', limit: 10 });
  });
});
