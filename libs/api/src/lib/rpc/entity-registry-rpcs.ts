import type { ClassConstructor } from 'class-transformer';
import { Empty } from '../messages/responses';
import { type EntityKind, Right } from './rights';
import { byOrganization, defineRpc, type RpcDefinition } from './define-rpc';

/** The entities with a TTS `<Entity>Registry` of the same shape. */
export type RegistryKind = Extract<EntityKind, 'application' | 'gateway' | 'client' | 'organization'>;

const SERVICES = {
  application: 'ApplicationRegistry',
  gateway: 'GatewayRegistry',
  client: 'ClientRegistry',
  organization: 'OrganizationRegistry',
} as const satisfies Record<RegistryKind, string>;

type Service<K extends RegistryKind> = (typeof SERVICES)[K];
type Method = 'Create' | 'Get' | 'List' | 'Update' | 'Delete' | 'Restore' | 'Purge';

export interface RegistryRequests {
  create: ClassConstructor<object>;
  get: ClassConstructor<object>;
  list: ClassConstructor<object>;
  update: ClassConstructor<object>;
  /** `<Entity>Identifiers`: the request of Delete, Restore and Purge. */
  identifiers: ClassConstructor<object>;
  /** The entity (the answer of Create, Get and Update) and its list (`<Entities>`, List's). */
  entity: ClassConstructor<object>;
  entities: ClassConstructor<object>;
}

/**
 * The Create/Get/List/Update/Delete/Restore/Purge RPCs of an entity registry, as TTS binds them
 * (`application_services.proto`, `gateway_services.proto`, `client_services.proto`,
 * `organization_services.proto`) with the rights its registry checks:
 *
 * - Create `POST /users/{…}/<entities>` (the user's `RIGHT_USER_<ENTITIES>_CREATE`) and, except for
 *   organizations, which do not nest, `POST /organizations/{…}/<entities>` (the organization's
 *   `RIGHT_ORGANIZATION_<ENTITIES>_CREATE`); List the same with `_LIST`, plus `GET /<entities>`
 *   (the caller's own: the handler decides);
 * - Get `RIGHT_<ENTITY>_INFO`, Update `_SETTINGS_BASIC`, Delete and Restore `_DELETE`, Purge
 *   `_DELETE` and admins only (TTS `errAdminsPurge<Entities>`).
 */
export function entityRegistryRpcs<K extends RegistryKind>(kind: K, requests: RegistryRequests): Record<`${Service<K>}.${Method}`, RpcDefinition> {
  const service = SERVICES[kind];
  const collection = `${kind}s`;
  const entities = collection.toUpperCase();
  const entityRight = (suffix: string) => Right[`RIGHT_${kind.toUpperCase()}_${suffix}` as Right];
  const userRight = (op: 'CREATE' | 'LIST') => Right[`RIGHT_USER_${entities}_${op}` as Right];
  const organizationRight = (op: 'CREATE' | 'LIST') => Right[`RIGHT_ORGANIZATION_${entities}_${op}` as Right];
  const byOrganizations = kind !== 'organization';
  const at = (path: string) => ({ kind, path });
  const user = 'collaborator.user_ids.user_id';
  const organization = 'collaborator.organization_ids.organization_id';
  const id = `${kind}_id`;
  const rpc = (method: Method, def: Omit<RpcDefinition, 'service' | 'method' | 'component' | 'name' | 'subject'>) =>
    defineRpc({ service, method, component: 'is', ...def });
  return {
    [`${service}.Create`]: rpc('Create', {
      http: [
        { verb: 'POST', path: `/users/{${user}}/${collection}`, body: '*' },
        ...(byOrganizations ? [{ verb: 'POST' as const, path: `/organizations/{${organization}}/${collection}`, body: '*' as const }] : []),
      ],
      entity: { kind: 'user', path: user },
      rights: [userRight('CREATE')],
      ...(byOrganizations ? { orEntity: byOrganization(organizationRight('CREATE')) } : {}),
      request: requests.create,
      response: requests.entity,
    }),
    [`${service}.Get`]: rpc('Get', {
      http: [{ verb: 'GET', path: `/${collection}/{${kind}_ids.${id}}` }],
      entity: at(`${kind}_ids.${id}`),
      rights: [entityRight('INFO')],
      request: requests.get,
      response: requests.entity,
    }),
    [`${service}.List`]: rpc('List', {
      http: [
        { verb: 'GET', path: `/${collection}` },
        { verb: 'GET', path: `/users/{${user}}/${collection}` },
        ...(byOrganizations ? [{ verb: 'GET' as const, path: `/organizations/{${organization}}/${collection}` }] : []),
      ],
      entity: { kind: 'user', path: user, optional: true },
      rights: [userRight('LIST')],
      ...(byOrganizations ? { orEntity: byOrganization(organizationRight('LIST')) } : {}),
      request: requests.list,
      response: requests.entities,
      paginated: true,
    }),
    [`${service}.Update`]: rpc('Update', {
      http: [{ verb: 'PUT', path: `/${collection}/{${kind}.ids.${id}}`, body: '*' }],
      entity: at(`${kind}.ids.${id}`),
      rights: [entityRight('SETTINGS_BASIC')],
      request: requests.update,
      response: requests.entity,
    }),
    [`${service}.Delete`]: rpc('Delete', {
      http: [{ verb: 'DELETE', path: `/${collection}/{${id}}` }],
      entity: at(id),
      rights: [entityRight('DELETE')],
      request: requests.identifiers,
      response: Empty,
    }),
    [`${service}.Restore`]: rpc('Restore', {
      http: [{ verb: 'POST', path: `/${collection}/{${id}}/restore`, body: '*' }],
      entity: at(id),
      rights: [entityRight('DELETE')],
      request: requests.identifiers,
      response: Empty,
    }),
    [`${service}.Purge`]: rpc('Purge', {
      http: [{ verb: 'DELETE', path: `/${collection}/{${id}}/purge` }],
      entity: at(id),
      rights: [entityRight('DELETE')],
      adminOnly: true,
      request: requests.identifiers,
      response: Empty,
    }),
  } as Record<`${Service<K>}.${Method}`, RpcDefinition>;
}
