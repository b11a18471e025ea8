import type { ClassConstructor } from 'class-transformer';
import {
  Application,
  APIKey,
  Gateway,
  User,
  AuthInfoRequest,
  AuthorizeRequest,
  CreateApplicationAPIKeyRequest,
  CreateApplicationRequest,
  CreateGatewayAPIKeyRequest,
  CreateGatewayRequest,
  CreateOrganizationAPIKeyRequest,
  CreateUserAPIKeyRequest,
  CreateUserRequest,
  DeleteApplicationAPIKeyRequest,
  DeleteGatewayAPIKeyRequest,
  DeleteOrganizationAPIKeyRequest,
  DeleteUserAPIKeyRequest,
  GetApplicationAPIKeyRequest,
  GetApplicationRequest,
  GetGatewayAPIKeyRequest,
  GetGatewayIdentifiersForEUIRequest,
  GetGatewayRequest,
  GetOrganizationAPIKeyRequest,
  GetUserAPIKeyRequest,
  GetUserRequest,
  ListApplicationAPIKeysRequest,
  ListApplicationsRequest,
  ListGatewayAPIKeysRequest,
  ListGatewaysRequest,
  ListOrganizationAPIKeysRequest,
  ListUserAPIKeysRequest,
  ListUsersRequest,
  UpdateApplicationAPIKeyRequest,
  UpdateApplicationRequest,
  UpdateGatewayAPIKeyRequest,
  UpdateGatewayRequest,
  UpdateOrganizationAPIKeyRequest,
  UpdateUserAPIKeyRequest,
  UpdateUserRequest,
} from '../messages/identity';
import { ApplicationIdentifiers, GatewayIdentifiers, OrganizationIdentifiers, UserIdentifiers } from '../messages/identifiers';
import { APIKeys, Applications, AuthInfoResponse, Collaborators, Empty, Gateways, Rights, Users } from '../messages/responses';
import {
  Collaborator,
  DeleteApplicationCollaboratorRequest,
  DeleteClientCollaboratorRequest,
  DeleteGatewayCollaboratorRequest,
  DeleteOrganizationCollaboratorRequest,
  GetApplicationCollaboratorRequest,
  GetClientCollaboratorRequest,
  GetGatewayCollaboratorRequest,
  GetOrganizationCollaboratorRequest,
  ListApplicationCollaboratorsRequest,
  ListClientCollaboratorsRequest,
  ListGatewayCollaboratorsRequest,
  ListOrganizationCollaboratorsRequest,
  SetApplicationCollaboratorRequest,
  SetClientCollaboratorRequest,
  SetGatewayCollaboratorRequest,
  SetOrganizationCollaboratorRequest,
} from '../messages/collaborators';
import { CallerIdentity } from './context';
import { Right } from './rights';
import { applicationAt, defineRpc, type HttpBinding, type RpcDefinition } from './define-rpc';
import { entityRegistryRpcs } from './entity-registry-rpcs';

const gtw = (path: string) => ({ kind: 'gateway' as const, path });
const org = (path: string) => ({ kind: 'organization' as const, path });
const cli = (path: string) => ({ kind: 'client' as const, path });
const usr = (path: string, optional?: boolean) => ({ kind: 'user' as const, path, ...(optional ? { optional } : {}) });
const app = applicationAt;
const rpc = defineRpc;

/** The Identity Server's entities and access: users, applications, gateways, their API keys and rights. */
export function identityRpcs() {
  const R = Right;
  return {
    'EntityAccess.Authorize': rpc({
      service: 'EntityAccess',
      method: 'Authorize',
      component: 'is',
      http: [],
      rights: [],
      unauthenticated: true,
      request: AuthorizeRequest,
      response: CallerIdentity,
    }),
    'EntityAccess.AuthInfo': rpc({
      service: 'EntityAccess',
      method: 'AuthInfo',
      component: 'is',
      http: [{ verb: 'GET', path: '/auth_info' }],
      rights: [],
      request: AuthInfoRequest,
      response: AuthInfoResponse,
    }),

    'UserRegistry.Create': rpc({
      service: 'UserRegistry',
      method: 'Create',
      component: 'is',
      http: [{ verb: 'POST', path: '/users', body: '*' }],
      rights: [],
      adminOnly: true,
      request: CreateUserRequest,
      response: User,
    }),
    'UserRegistry.Get': rpc({
      service: 'UserRegistry',
      method: 'Get',
      component: 'is',
      http: [{ verb: 'GET', path: '/users/{user_ids.user_id}' }],
      entity: usr('user_ids.user_id'),
      rights: [R.RIGHT_USER_INFO],
      request: GetUserRequest,
      response: User,
    }),
    'UserRegistry.List': rpc({
      service: 'UserRegistry',
      method: 'List',
      component: 'is',
      http: [{ verb: 'GET', path: '/users' }],
      rights: [],
      adminOnly: true,
      request: ListUsersRequest,
      response: Users,
      paginated: true,
    }),
    'UserRegistry.Update': rpc({
      service: 'UserRegistry',
      method: 'Update',
      component: 'is',
      http: [{ verb: 'PUT', path: '/users/{user.ids.user_id}', body: '*' }],
      entity: usr('user.ids.user_id'),
      rights: [R.RIGHT_USER_SETTINGS_BASIC],
      request: UpdateUserRequest,
      response: User,
    }),
    'UserRegistry.Delete': rpc({
      service: 'UserRegistry',
      method: 'Delete',
      component: 'is',
      http: [{ verb: 'DELETE', path: '/users/{user_id}' }],
      entity: usr('user_id'),
      rights: [R.RIGHT_USER_DELETE],
      request: UserIdentifiers,
      response: Empty,
    }),
    'UserAccess.ListRights': rpc({
      service: 'UserAccess',
      method: 'ListRights',
      component: 'is',
      http: [{ verb: 'GET', path: '/users/{user_id}/rights' }],
      entity: usr('user_id'),
      rights: [],
      request: UserIdentifiers,
      response: Rights,
    }),
    ...apiKeyRpcs('UserAccess', 'users', 'user_ids.user_id', usr('user_ids.user_id'), R.RIGHT_USER_SETTINGS_API_KEYS, {
      create: CreateUserAPIKeyRequest,
      list: ListUserAPIKeysRequest,
      get: GetUserAPIKeyRequest,
      update: UpdateUserAPIKeyRequest,
      delete: DeleteUserAPIKeyRequest,
    }),

    ...entityRegistryRpcs('application', {
      create: CreateApplicationRequest,
      get: GetApplicationRequest,
      list: ListApplicationsRequest,
      update: UpdateApplicationRequest,
      identifiers: ApplicationIdentifiers,
      entity: Application,
      entities: Applications,
    }),
    'ApplicationAccess.ListRights': rpc({
      service: 'ApplicationAccess',
      method: 'ListRights',
      component: 'is',
      http: [{ verb: 'GET', path: '/applications/{application_id}/rights' }],
      entity: app('application_id'),
      rights: [],
      request: ApplicationIdentifiers,
      response: Rights,
    }),
    ...apiKeyRpcs(
      'ApplicationAccess',
      'applications',
      'application_ids.application_id',
      app('application_ids.application_id'),
      R.RIGHT_APPLICATION_SETTINGS_API_KEYS,
      {
        create: CreateApplicationAPIKeyRequest,
        list: ListApplicationAPIKeysRequest,
        get: GetApplicationAPIKeyRequest,
        update: UpdateApplicationAPIKeyRequest,
        delete: DeleteApplicationAPIKeyRequest,
      },
    ),
    ...collaboratorRpcs('ApplicationAccess', 'applications', 'application_ids', app, R.RIGHT_APPLICATION_SETTINGS_COLLABORATORS, {
      list: ListApplicationCollaboratorsRequest,
      get: GetApplicationCollaboratorRequest,
      set: SetApplicationCollaboratorRequest,
      delete: DeleteApplicationCollaboratorRequest,
    }),

    ...entityRegistryRpcs('gateway', {
      create: CreateGatewayRequest,
      get: GetGatewayRequest,
      list: ListGatewaysRequest,
      update: UpdateGatewayRequest,
      identifiers: GatewayIdentifiers,
      entity: Gateway,
      entities: Gateways,
    }),
    'GatewayRegistry.GetIdentifiersForEUI': rpc({
      service: 'GatewayRegistry',
      method: 'GetIdentifiersForEUI',
      component: 'is',
      http: [],
      rights: [],
      request: GetGatewayIdentifiersForEUIRequest,
      response: GatewayIdentifiers,
    }),
    'GatewayAccess.ListRights': rpc({
      service: 'GatewayAccess',
      method: 'ListRights',
      component: 'is',
      http: [{ verb: 'GET', path: '/gateways/{gateway_id}/rights' }],
      entity: gtw('gateway_id'),
      rights: [],
      request: GatewayIdentifiers,
      response: Rights,
    }),
    ...apiKeyRpcs('GatewayAccess', 'gateways', 'gateway_ids.gateway_id', gtw('gateway_ids.gateway_id'), R.RIGHT_GATEWAY_SETTINGS_API_KEYS, {
      create: CreateGatewayAPIKeyRequest,
      list: ListGatewayAPIKeysRequest,
      get: GetGatewayAPIKeyRequest,
      update: UpdateGatewayAPIKeyRequest,
      delete: DeleteGatewayAPIKeyRequest,
    }),
    ...collaboratorRpcs('GatewayAccess', 'gateways', 'gateway_ids', gtw, R.RIGHT_GATEWAY_SETTINGS_COLLABORATORS, {
      list: ListGatewayCollaboratorsRequest,
      get: GetGatewayCollaboratorRequest,
      set: SetGatewayCollaboratorRequest,
      delete: DeleteGatewayCollaboratorRequest,
    }),
    ...collaboratorRpcs('ClientAccess', 'clients', 'client_ids', cli, R.RIGHT_CLIENT_SETTINGS_COLLABORATORS, {
      list: ListClientCollaboratorsRequest,
      get: GetClientCollaboratorRequest,
      set: SetClientCollaboratorRequest,
      delete: DeleteClientCollaboratorRequest,
    }),
    ...collaboratorRpcs('OrganizationAccess', 'organizations', 'organization_ids', org, R.RIGHT_ORGANIZATION_SETTINGS_MEMBERS, {
      list: ListOrganizationCollaboratorsRequest,
      get: GetOrganizationCollaboratorRequest,
      set: SetOrganizationCollaboratorRequest,
      delete: DeleteOrganizationCollaboratorRequest,
    }),

    'OrganizationAccess.ListRights': rpc({
      service: 'OrganizationAccess',
      method: 'ListRights',
      component: 'is',
      http: [{ verb: 'GET', path: '/organizations/{organization_id}/rights' }],
      entity: org('organization_id'),
      rights: [],
      request: OrganizationIdentifiers,
      response: Rights,
    }),
    ...apiKeyRpcs(
      'OrganizationAccess',
      'organizations',
      'organization_ids.organization_id',
      org('organization_ids.organization_id'),
      R.RIGHT_ORGANIZATION_SETTINGS_API_KEYS,
      {
        create: CreateOrganizationAPIKeyRequest,
        list: ListOrganizationAPIKeysRequest,
        get: GetOrganizationAPIKeyRequest,
        update: UpdateOrganizationAPIKeyRequest,
        delete: DeleteOrganizationAPIKeyRequest,
      },
    ),
  } satisfies Record<string, RpcDefinition>;
}

/**
 * `<Entity>Access` API-key RPCs: `POST|GET /<collection>/{ids}/api-keys`, `GET|PUT|DELETE …/{key}`.
 * Each needs `<KIND>_SETTINGS_API_KEYS`; create and update also need every right the key grants
 * (checked by the handler: a key can only grant rights its creator holds).
 */
function apiKeyRpcs<S extends 'ApplicationAccess' | 'GatewayAccess' | 'UserAccess' | 'OrganizationAccess'>(
  service: S,
  collection: string,
  idField: string,
  entity: NonNullable<RpcDefinition['entity']>,
  right: Right,
  requests: {
    create: ClassConstructor<object>;
    list: ClassConstructor<object>;
    get: ClassConstructor<object>;
    update: ClassConstructor<object>;
    delete: ClassConstructor<object>;
  },
) {
  const base = `/${collection}/{${idField}}/api-keys`;
  const keyRpc = (method: string, http: HttpBinding, request: ClassConstructor<object>, response: ClassConstructor<object>) =>
    rpc({ service, method, component: 'is', entity, rights: [right], http: [http], request, response });
  return {
    [`${service}.CreateAPIKey`]: keyRpc('CreateAPIKey', { verb: 'POST', path: base, body: '*' }, requests.create, APIKey),
    [`${service}.ListAPIKeys`]: { ...keyRpc('ListAPIKeys', { verb: 'GET', path: base }, requests.list, APIKeys), paginated: true },
    [`${service}.GetAPIKey`]: keyRpc('GetAPIKey', { verb: 'GET', path: `${base}/{key_id}` }, requests.get, APIKey),
    [`${service}.UpdateAPIKey`]: keyRpc('UpdateAPIKey', { verb: 'PUT', path: `${base}/{api_key.id}`, body: '*' }, requests.update, APIKey),
    [`${service}.DeleteAPIKey`]: keyRpc('DeleteAPIKey', { verb: 'DELETE', path: `${base}/{key_id}` }, requests.delete, Empty),
  } as Record<`${S}.${'CreateAPIKey' | 'ListAPIKeys' | 'GetAPIKey' | 'UpdateAPIKey' | 'DeleteAPIKey'}`, RpcDefinition>;
}

/**
 * `<Entity>Access` collaborator RPCs (TTS `application_services.proto`, `gateway_services.proto`,
 * `client_services.proto`, `organization_services.proto`): `GET|PUT /<collection>/{ids}/collaborators`,
 * `GET …/collaborator/user/{…}` and `…/organization/{…}` (an organization's members: users only),
 * `DELETE` the same under `collaborator/` (applications) or `collaborators/` (the others, as TTS).
 * Get, Set and Delete need `<KIND>_SETTINGS_COLLABORATORS` (an organization's `SETTINGS_MEMBERS`);
 * List only a caller (TTS: without that right it shows the collaborators' identifiers only). Set
 * also needs every right it adds or removes, and `ORGANIZATION_ADD_AS_COLLABORATOR` on an
 * organization it adds (the handler's checks); Delete of an organization is also open to who holds
 * that right on it (`orEntityByHandler`).
 */
function collaboratorRpcs<S extends 'ApplicationAccess' | 'GatewayAccess' | 'ClientAccess' | 'OrganizationAccess'>(
  service: S,
  collection: string,
  idsField: string,
  at: (path: string) => NonNullable<RpcDefinition['entity']>,
  right: Right,
  requests: { list: ClassConstructor<object>; get: ClassConstructor<object>; set: ClassConstructor<object>; delete: ClassConstructor<object> },
) {
  const idField = `${idsField}.${idsField.replace(/_ids$/, '_id')}`;
  const base = `/${collection}/{${idField}}`;
  const common = { service, component: 'is' as const, entity: at(idField) };
  const byMember = (field: string, segment = 'collaborator') => [
    `${base}/${segment}/user/{${field}.user_ids.user_id}`,
    ...(service === 'OrganizationAccess' ? [] : [`${base}/${segment}/organization/{${field}.organization_ids.organization_id}`]),
  ];
  return {
    [`${service}.ListCollaborators`]: rpc({
      ...common,
      method: 'ListCollaborators',
      http: [{ verb: 'GET', path: `${base}/collaborators` }],
      rights: [],
      request: requests.list,
      response: Collaborators,
      paginated: true,
    }),
    [`${service}.GetCollaborator`]: rpc({
      ...common,
      method: 'GetCollaborator',
      http: byMember('collaborator').map((path) => ({ verb: 'GET' as const, path })),
      rights: [right],
      request: requests.get,
      response: Collaborator,
    }),
    [`${service}.SetCollaborator`]: rpc({
      ...common,
      method: 'SetCollaborator',
      http: [{ verb: 'PUT', path: `${base}/collaborators`, body: '*' }],
      rights: [right],
      request: requests.set,
      response: Empty,
    }),
    [`${service}.DeleteCollaborator`]: rpc({
      ...common,
      method: 'DeleteCollaborator',
      http: byMember('collaborator_ids', service === 'ApplicationAccess' ? 'collaborator' : 'collaborators').map((path) => ({ verb: 'DELETE' as const, path })),
      rights: [right],
      // An organization's members who may add it as a collaborator may also take it off (the IS checks).
      ...(service === 'OrganizationAccess'
        ? {}
        : {
            orEntityByHandler: {
              kind: 'organization' as const,
              path: 'collaborator_ids.organization_ids.organization_id',
              rights: [Right.RIGHT_ORGANIZATION_ADD_AS_COLLABORATOR],
            },
          }),
      request: requests.delete,
      response: Empty,
    }),
  } as Record<`${S}.${'ListCollaborators' | 'GetCollaborator' | 'SetCollaborator' | 'DeleteCollaborator'}`, RpcDefinition>;
}
