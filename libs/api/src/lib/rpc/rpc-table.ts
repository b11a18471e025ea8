import type { ClassConstructor } from 'class-transformer';
import {
  BatchCreateEndDevicesRequest,
  BatchDeleteEndDevicesRequest,
  BatchGetEndDevicesRequest,
  BatchSetEndDevicesRequest,
  CreateEndDeviceRequest,
  DeleteEndDeviceRequest,
  GetEndDeviceRequest,
  ListEndDevicesRequest,
  SearchEndDevicesRequest,
  SetEndDeviceRequest,
  UpdateEndDeviceRequest,
} from '../messages/end-device-requests';
import { hasAnyField } from '../field-mask/field-mask';
import { getPath } from '../json/dotted-path';
import { QUEUE_PATHS } from '../field-mask/allowed-paths';
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
import { EndDevice, EndDevices } from '../messages/end-device';
import { APIKeys, Applications, AuthInfoResponse, Collaborators, Empty, Event, Gateways, Rights, Users } from '../messages/responses';
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
import { type EntityKind, Right } from './rights';
import { applicationAt, type ComponentName, defineRpc, type HttpBinding, type MaskRight, type RpcDefinition, rpcSubject } from './define-rpc';
import { StreamEventsRequest } from '../events/stream';
import { entityRegistryRpcs } from './entity-registry-rpcs';
import { webhookRpcs } from './webhook-rpcs';
import { appAsRpcs } from './app-as-rpcs';
import { linkRpcs } from './link-rpcs';
import { clientRpcs } from './client-rpcs';
import { organizationRpcs } from './organization-rpcs';
import { dataplaneRpcs } from './dataplane-rpcs';

const app = applicationAt;
const gtw = (path: string) => ({ kind: 'gateway' as const, path });
const org = (path: string) => ({ kind: 'organization' as const, path });
const cli = (path: string) => ({ kind: 'client' as const, path });
const usr = (path: string, optional?: boolean) => ({ kind: 'user' as const, path, ...(optional ? { optional } : {}) });

const rpc = defineRpc;

/** The NS/AS downlink queue is traffic: reading it needs `RIGHT_APPLICATION_TRAFFIC_READ` (TTS). */
const READ_QUEUES: MaskRight = { paths: QUEUE_PATHS, rights: [Right.RIGHT_APPLICATION_TRAFFIC_READ] };

/** The IS's pages of an application's devices (List and its search): who may read them, and their answer. */
const IS_DEVICE_PAGE = {
  component: 'is' as const,
  entity: app('application_ids.application_id'),
  rights: [Right.RIGHT_APPLICATION_DEVICES_READ],
  response: EndDevices,
  paginated: true,
};

/** The one RPC table: the gateway builds its routes from it, components register handlers by it. */
export const RPCS = {
  'EndDeviceRegistry.Create': rpc({
    service: 'EndDeviceRegistry',
    method: 'Create',
    component: 'is',
    http: [{ verb: 'POST', path: '/applications/{end_device.ids.application_ids.application_id}/devices', body: '*' }],
    entity: app('end_device.ids.application_ids.application_id'),
    rights: [Right.RIGHT_APPLICATION_DEVICES_WRITE],
    request: CreateEndDeviceRequest,
    response: EndDevice,
  }),
  'EndDeviceRegistry.Get': rpc({
    service: 'EndDeviceRegistry',
    method: 'Get',
    component: 'is',
    http: [{ verb: 'GET', path: '/applications/{end_device_ids.application_ids.application_id}/devices/{end_device_ids.device_id}' }],
    entity: app('end_device_ids.application_ids.application_id'),
    rights: [Right.RIGHT_APPLICATION_DEVICES_READ],
    request: GetEndDeviceRequest,
    response: EndDevice,
  }),
  'EndDeviceRegistry.List': rpc({
    service: 'EndDeviceRegistry',
    method: 'List',
    http: [{ verb: 'GET', path: '/applications/{application_ids.application_id}/devices' }],
    request: ListEndDevicesRequest,
    ...IS_DEVICE_PAGE,
  }),
  // TTS's EndDeviceRegistrySearch: List with substring filters.
  'EndDeviceRegistrySearch.SearchEndDevices': rpc({
    service: 'EndDeviceRegistrySearch',
    method: 'SearchEndDevices',
    http: [{ verb: 'GET', path: '/search/applications/{application_ids.application_id}/devices' }],
    request: SearchEndDevicesRequest,
    ...IS_DEVICE_PAGE,
  }),
  'EndDeviceRegistry.Update': rpc({
    service: 'EndDeviceRegistry',
    method: 'Update',
    component: 'is',
    http: [{ verb: 'PUT', path: '/applications/{end_device.ids.application_ids.application_id}/devices/{end_device.ids.device_id}', body: '*' }],
    entity: app('end_device.ids.application_ids.application_id'),
    rights: [Right.RIGHT_APPLICATION_DEVICES_WRITE],
    request: UpdateEndDeviceRequest,
    response: EndDevice,
  }),
  'EndDeviceRegistry.Delete': rpc({
    service: 'EndDeviceRegistry',
    method: 'Delete',
    component: 'is',
    http: [{ verb: 'DELETE', path: '/applications/{application_ids.application_id}/devices/{device_id}' }],
    entity: app('application_ids.application_id'),
    rights: [Right.RIGHT_APPLICATION_DEVICES_WRITE],
    request: DeleteEndDeviceRequest,
    response: Empty,
  }),
  // TTS's EndDeviceBatchRegistry (Get, Delete), and our extension Create.
  'EndDeviceBatchRegistry.Get': rpc({
    service: 'EndDeviceBatchRegistry',
    method: 'Get',
    component: 'is',
    http: [{ verb: 'GET', path: '/applications/{application_ids.application_id}/devices/batch' }],
    entity: app('application_ids.application_id'),
    rights: [Right.RIGHT_APPLICATION_DEVICES_READ],
    request: BatchGetEndDevicesRequest,
    response: EndDevices,
  }),
  'EndDeviceBatchRegistry.Delete': rpc({
    service: 'EndDeviceBatchRegistry',
    method: 'Delete',
    component: 'is',
    http: [{ verb: 'DELETE', path: '/applications/{application_ids.application_id}/devices/batch' }],
    entity: app('application_ids.application_id'),
    rights: [Right.RIGHT_APPLICATION_DEVICES_WRITE],
    request: BatchDeleteEndDevicesRequest,
    response: Empty,
  }),
  'EndDeviceBatchRegistry.Create': rpc({
    service: 'EndDeviceBatchRegistry',
    method: 'Create',
    component: 'is',
    http: [{ verb: 'POST', path: '/applications/{application_ids.application_id}/devices/batch', body: '*' }],
    entity: app('application_ids.application_id'),
    rights: [Right.RIGHT_APPLICATION_DEVICES_WRITE],
    request: BatchCreateEndDevicesRequest,
    response: EndDevices,
  }),
  ...identityRpcs(),
  ...clientRpcs(),
  ...organizationRpcs(),
  ...webhookRpcs(),
  ...appAsRpcs(),
  ...linkRpcs(),
  ...dataplaneRpcs(),
  'Events.Stream': rpc({
    service: 'Events',
    method: 'Stream',
    component: 'events',
    http: [{ verb: 'POST', path: '/events', body: '*' }],
    // Rights on each requested entity: resolved by the gateway into `entity_rights`, checked by the events service.
    rights: [],
    request: StreamEventsRequest,
    response: Event,
    stream: true,
  }),
  // Key material needs the key rights in every device registry (`withDeviceKeyRights`, applied by `defineRpc`).
  ...registryRpcs('JsEndDeviceRegistry', 'js', []),
  ...registryRpcs('NsEndDeviceRegistry', 'ns', [READ_QUEUES]),
  ...registryRpcs('AsEndDeviceRegistry', 'as', [READ_QUEUES]),
} satisfies Record<string, RpcDefinition>;

/** The Identity Server's entities and access: users, applications, gateways, their API keys and rights. */
function identityRpcs() {
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

/**
 * Set (PUT with the id in the path, or POST with the id in the body), Get and Delete of one of the
 * JS/NS/AS end-device registries: identical shapes under `/<component>/…` (seed, "Endpoints"); and
 * their `<C>EndDeviceBatchRegistry`: TTS's Delete (`DELETE …/devices/batch?device_ids=…`) and our
 * extension Set (`PUT …/devices/batch`, the rights of every request's field mask).
 */
function registryRpcs<S extends 'JsEndDeviceRegistry' | 'NsEndDeviceRegistry' | 'AsEndDeviceRegistry'>(
  service: S,
  component: 'js' | 'ns' | 'as',
  readMaskRights: MaskRight[],
) {
  const prefix = `/${component}/applications`;
  const batch = service.replace('EndDeviceRegistry', 'EndDeviceBatchRegistry') as BatchService<S>;
  return {
    [`${service}.Set`]: rpc({
      service,
      method: 'Set',
      component,
      http: [
        { verb: 'PUT', path: `${prefix}/{end_device.ids.application_ids.application_id}/devices/{end_device.ids.device_id}`, body: '*' },
        { verb: 'POST', path: `${prefix}/{end_device.ids.application_ids.application_id}/devices`, body: '*' },
      ],
      entity: app('end_device.ids.application_ids.application_id'),
      rights: [Right.RIGHT_APPLICATION_DEVICES_WRITE],
      request: SetEndDeviceRequest,
      response: EndDevice,
    }),
    [`${service}.Get`]: rpc({
      service,
      method: 'Get',
      component,
      http: [{ verb: 'GET', path: `${prefix}/{end_device_ids.application_ids.application_id}/devices/{end_device_ids.device_id}` }],
      entity: app('end_device_ids.application_ids.application_id'),
      rights: [Right.RIGHT_APPLICATION_DEVICES_READ],
      maskRights: readMaskRights,
      request: GetEndDeviceRequest,
      response: EndDevice,
    }),
    [`${service}.Delete`]: rpc({
      service,
      method: 'Delete',
      component,
      http: [{ verb: 'DELETE', path: `${prefix}/{application_ids.application_id}/devices/{device_id}` }],
      entity: app('application_ids.application_id'),
      rights: [Right.RIGHT_APPLICATION_DEVICES_WRITE],
      request: DeleteEndDeviceRequest,
      response: Empty,
    }),
    [`${batch}.Set`]: rpc({
      service: batch,
      method: 'Set',
      component,
      http: [{ verb: 'PUT', path: `${prefix}/{application_ids.application_id}/devices/batch`, body: '*' }],
      entity: app('application_ids.application_id'),
      rights: [Right.RIGHT_APPLICATION_DEVICES_WRITE],
      fieldMasksAt: 'requests',
      request: BatchSetEndDevicesRequest,
      response: EndDevices,
    }),
    [`${batch}.Delete`]: rpc({
      service: batch,
      method: 'Delete',
      component,
      http: [{ verb: 'DELETE', path: `${prefix}/{application_ids.application_id}/devices/batch` }],
      entity: app('application_ids.application_id'),
      rights: [Right.RIGHT_APPLICATION_DEVICES_WRITE],
      request: BatchDeleteEndDevicesRequest,
      response: Empty,
    }),
  } as Record<
    `${S}.${'Set' | 'Get' | 'Delete'}`,
    RpcDefinition<SetEndDeviceRequest> | RpcDefinition<GetEndDeviceRequest> | RpcDefinition<DeleteEndDeviceRequest>
  > &
    Record<`${BatchService<S>}.${'Set' | 'Delete'}`, RpcDefinition<BatchSetEndDevicesRequest> | RpcDefinition<BatchDeleteEndDevicesRequest>>;
}

/** `JsEndDeviceRegistry` → `JsEndDeviceBatchRegistry` (TTS's service of the batch operations). */
type BatchService<S extends string> = S extends `${infer C}EndDeviceRegistry` ? `${C}EndDeviceBatchRegistry` : never;

type Masked = { field_mask?: { paths?: string[] } };

/** The field-mask paths of a request: its own mask's, or the union of its items' (`fieldMasksAt`). */
function maskPathsOf(rpc: RpcDefinition, request: object): readonly string[] {
  if (!rpc.fieldMasksAt) return (request as Masked).field_mask?.paths ?? [];
  const items = (request as Record<string, unknown>)[rpc.fieldMasksAt];
  return Array.isArray(items) ? [...new Set(items.flatMap((item: Masked | null) => item?.field_mask?.paths ?? []))] : [];
}

/** The rights a request needs: the RPC's base rights plus those its field mask(s) call for. */
export function requiredRights(rpc: RpcDefinition, request: object): Right[] {
  const paths = maskPathsOf(rpc, request);
  const rights = new Set(rightsTarget(rpc, request)?.rights ?? rpc.rights);
  for (const rule of rpc.maskRights ?? []) {
    if (rule.paths.some((p) => hasAnyField(paths, p))) rule.rights.forEach((r) => rights.add(r));
  }
  return [...rights];
}

export type RpcName = keyof typeof RPCS;
export type RequestOf<N extends RpcName> = InstanceType<(typeof RPCS)[N]['request']>;
/** The answer of an RPC of the table, as its response class declares it (every RPC names one). */
export type ResponseOf<N extends RpcName> = InstanceType<NonNullable<(typeof RPCS)[N]['response']>>;

/** Health of a component (answered by every component; used by readiness probes). */
export function healthSubject(component: ComponentName): string {
  return rpcSubject(component, 'Health', 'Check');
}

const ENTITY_PATH_PARTS = new WeakMap<object, readonly string[]>();

/** The ID at an entity's path in a request, if the request holds one. */
function idAt(entity: { path: string }, request: object): string | undefined {
  let parts = ENTITY_PATH_PARTS.get(entity);
  if (!parts) ENTITY_PATH_PARTS.set(entity, (parts = entity.path.split('.')));
  const id = getPath(request, parts);
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/** What a request's rights are checked on: the entity's kind, its ID (if the request holds one), and the RPC's base rights there. */
export interface RightsTarget {
  kind: EntityKind;
  id: string | undefined;
  optional: boolean;
  rights: Right[];
}

/**
 * The rights entity of a request (see `RpcDefinition.entity`): `orEntity` when the request names
 * one (an organization instead of a user), else `entity`; undefined when the RPC has neither, or
 * when the request names its `orEntityByHandler` (the handler checks the rights then).
 */
export function rightsTarget(rpc: RpcDefinition, request: object): RightsTarget | undefined {
  if (rpc.orEntityByHandler && idAt(rpc.orEntityByHandler, request) !== undefined) return undefined;
  const alternative = rpc.orEntity && idAt(rpc.orEntity, request);
  if (rpc.orEntity && alternative !== undefined) return { kind: rpc.orEntity.kind, id: alternative, optional: false, rights: rpc.orEntity.rights };
  if (!rpc.entity) return undefined;
  return { kind: rpc.entity.kind, id: idAt(rpc.entity, request), optional: rpc.entity.optional ?? false, rights: rpc.rights };
}

/** The ID of the RPC's rights entity in a request (see `rightsTarget`), if the request holds one. */
export function entityIdOf(rpc: RpcDefinition, request: object): string | undefined {
  return rightsTarget(rpc, request)?.id;
}

/** The `@MessagePattern` of an RPC of the table: its transport subject. */
export function rpcPattern(name: RpcName): string {
  return RPCS[name].subject;
}

let bySubject: Map<string, RpcDefinition> | undefined;

/** The RPC served on a subject (a `@MessagePattern`), if it is one of the table. */
export function rpcBySubject(subject: string): RpcDefinition | undefined {
  bySubject ??= new Map((Object.values(RPCS) as RpcDefinition[]).map((rpc) => [rpc.subject, rpc]));
  return bySubject.get(subject);
}

/** The correlation ID tying an API call to everything it caused: `rpc:/ttn.lorawan.v3.<Service>/<Method>:<request id>` (TTS). */
export function rpcCorrelationId(rpc: Pick<RpcDefinition, 'service' | 'method'>, requestId: string): string {
  return `rpc:/ttn.lorawan.v3.${rpc.service}/${rpc.method}:${requestId}`;
}
