import { CreateClientRequest, GetClientRequest, ListClientsRequest, UpdateClientRequest } from '../messages/client';
import { ClientIdentifiers } from '../messages/identifiers';
import { Right } from './rights';
import { byOrganization, defineRpc, type RpcSpec } from './define-rpc';

const SERVICE = 'ClientRegistry';

const clientRpc = <Req extends object>(def: Omit<RpcSpec<Req>, 'component' | 'service'>) => defineRpc({ ...def, service: SERVICE, component: 'is' });

const cli = (path: string) => ({ kind: 'client' as const, path });
const usr = (path: string, optional?: boolean) => ({ kind: 'user' as const, path, ...(optional ? { optional } : {}) });

/**
 * The IS's ClientRegistry of OAuth clients (TTS `client_services.proto`, rights as
 * `client_registry.go`); a client's collaborator is a user or an organization.
 */
export function clientRpcs() {
  return {
    'ClientRegistry.Create': clientRpc({
      method: 'Create',
      http: [
        { verb: 'POST', path: '/users/{collaborator.user_ids.user_id}/clients', body: '*' },
        { verb: 'POST', path: '/organizations/{collaborator.organization_ids.organization_id}/clients', body: '*' },
      ],
      entity: usr('collaborator.user_ids.user_id'),
      rights: [Right.RIGHT_USER_CLIENTS_CREATE],
      orEntity: byOrganization(Right.RIGHT_ORGANIZATION_CLIENTS_CREATE),
      request: CreateClientRequest,
    }),
    'ClientRegistry.Get': clientRpc({
      method: 'Get',
      http: [{ verb: 'GET', path: '/clients/{client_ids.client_id}' }],
      entity: cli('client_ids.client_id'),
      rights: [Right.RIGHT_CLIENT_INFO],
      request: GetClientRequest,
    }),
    'ClientRegistry.List': clientRpc({
      method: 'List',
      http: [
        { verb: 'GET', path: '/clients' },
        { verb: 'GET', path: '/users/{collaborator.user_ids.user_id}/clients' },
        { verb: 'GET', path: '/organizations/{collaborator.organization_ids.organization_id}/clients' },
      ],
      entity: usr('collaborator.user_ids.user_id', true),
      rights: [Right.RIGHT_USER_CLIENTS_LIST],
      orEntity: byOrganization(Right.RIGHT_ORGANIZATION_CLIENTS_LIST),
      request: ListClientsRequest,
      paginated: true,
    }),
    'ClientRegistry.Update': clientRpc({
      method: 'Update',
      http: [{ verb: 'PUT', path: '/clients/{client.ids.client_id}', body: '*' }],
      entity: cli('client.ids.client_id'),
      rights: [Right.RIGHT_CLIENT_SETTINGS_BASIC],
      request: UpdateClientRequest,
    }),
    'ClientRegistry.Delete': clientRpc({
      method: 'Delete',
      http: [{ verb: 'DELETE', path: '/clients/{client_id}' }],
      entity: cli('client_id'),
      rights: [Right.RIGHT_CLIENT_DELETE],
      request: ClientIdentifiers,
    }),
    'ClientRegistry.Restore': clientRpc({
      method: 'Restore',
      http: [{ verb: 'POST', path: '/clients/{client_id}/restore', body: '*' }],
      entity: cli('client_id'),
      rights: [Right.RIGHT_CLIENT_DELETE],
      request: ClientIdentifiers,
    }),
    /** TTS `errAdminsPurgeClients`: only admins purge. */
    'ClientRegistry.Purge': clientRpc({
      method: 'Purge',
      http: [{ verb: 'DELETE', path: '/clients/{client_id}/purge' }],
      entity: cli('client_id'),
      rights: [Right.RIGHT_CLIENT_DELETE],
      adminOnly: true,
      request: ClientIdentifiers,
    }),
  };
}
