import type { ClassConstructor } from 'class-transformer';
import {
  CreateEndDeviceRequest,
  DeleteEndDeviceRequest,
  GetEndDeviceRequest,
  ListEndDevicesRequest,
  SetEndDeviceRequest,
  UpdateEndDeviceRequest,
} from '../messages/end-device-requests';
import { hasAnyField } from '../field-mask/field-mask';
import { KEY_PATHS, QUEUE_PATHS } from '../field-mask/allowed-paths';
import { Right } from './rights';

export type ComponentName = 'is' | 'js' | 'ns' | 'as' | 'events';
export const COMPONENTS: readonly ComponentName[] = ['is', 'js', 'ns', 'as', 'events'];

export type HttpVerb = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

/** One HTTP binding of an RPC, with grpc-gateway semantics: `{a.b}` path variables, `body: '*'` = whole request. */
export interface HttpBinding {
  verb: HttpVerb;
  /** Path below `/api/v3`, with `{field.path}` variables named by the request message field path. */
  path: string;
  body?: '*';
}

export interface RpcDefinition<Req extends object = object> {
  service: string;
  method: string;
  component: ComponentName;
  /** `rpc.<component>.<Service>.<Method>`: the transport subject (queue group = component). */
  subject: string;
  http: HttpBinding[];
  /** Rights the caller needs on the request's application. */
  rights: Right[];
  /** Further rights needed when the request's field mask covers one of `paths` (key material, queues). */
  maskRights?: MaskRight[];
  request: ClassConstructor<Req>;
  /** Responses carry a total count, exposed as `X-Total-Count`. */
  paginated?: boolean;
}

export interface MaskRight {
  paths: readonly string[];
  rights: Right[];
}

function rpc<Req extends object>(def: Omit<RpcDefinition<Req>, 'subject'>): RpcDefinition<Req> {
  return { ...def, subject: `rpc.${def.component}.${def.service}.${def.method}` };
}

/** The one RPC table: the gateway builds its routes from it, components register handlers by it. */
export const RPCS = {
  'EndDeviceRegistry.Create': rpc({
    service: 'EndDeviceRegistry',
    method: 'Create',
    component: 'is',
    http: [{ verb: 'POST', path: '/applications/{end_device.ids.application_ids.application_id}/devices', body: '*' }],
    rights: [Right.RIGHT_APPLICATION_DEVICES_WRITE],
    request: CreateEndDeviceRequest,
  }),
  'EndDeviceRegistry.Get': rpc({
    service: 'EndDeviceRegistry',
    method: 'Get',
    component: 'is',
    http: [{ verb: 'GET', path: '/applications/{end_device_ids.application_ids.application_id}/devices/{end_device_ids.device_id}' }],
    rights: [Right.RIGHT_APPLICATION_DEVICES_READ],
    request: GetEndDeviceRequest,
  }),
  'EndDeviceRegistry.List': rpc({
    service: 'EndDeviceRegistry',
    method: 'List',
    component: 'is',
    http: [{ verb: 'GET', path: '/applications/{application_ids.application_id}/devices' }],
    rights: [Right.RIGHT_APPLICATION_DEVICES_READ],
    request: ListEndDevicesRequest,
    paginated: true,
  }),
  'EndDeviceRegistry.Update': rpc({
    service: 'EndDeviceRegistry',
    method: 'Update',
    component: 'is',
    http: [{ verb: 'PUT', path: '/applications/{end_device.ids.application_ids.application_id}/devices/{end_device.ids.device_id}', body: '*' }],
    rights: [Right.RIGHT_APPLICATION_DEVICES_WRITE],
    request: UpdateEndDeviceRequest,
  }),
  'EndDeviceRegistry.Delete': rpc({
    service: 'EndDeviceRegistry',
    method: 'Delete',
    component: 'is',
    http: [{ verb: 'DELETE', path: '/applications/{application_ids.application_id}/devices/{device_id}' }],
    rights: [Right.RIGHT_APPLICATION_DEVICES_WRITE],
    request: DeleteEndDeviceRequest,
  }),
  ...registryRpcs('JsEndDeviceRegistry', 'js', [{ paths: KEY_PATHS.js.read, rights: [Right.RIGHT_APPLICATION_DEVICES_READ_KEYS] }], [
    { paths: KEY_PATHS.js.write, rights: [Right.RIGHT_APPLICATION_DEVICES_WRITE_KEYS] },
  ]),
  ...registryRpcs(
    'NsEndDeviceRegistry',
    'ns',
    [
      { paths: KEY_PATHS.ns.read, rights: [Right.RIGHT_APPLICATION_DEVICES_READ_KEYS] },
      { paths: QUEUE_PATHS, rights: [Right.RIGHT_APPLICATION_TRAFFIC_READ] },
    ],
    [{ paths: KEY_PATHS.ns.write, rights: [Right.RIGHT_APPLICATION_DEVICES_WRITE_KEYS] }],
  ),
  ...registryRpcs(
    'AsEndDeviceRegistry',
    'as',
    [
      { paths: KEY_PATHS.as.read, rights: [Right.RIGHT_APPLICATION_DEVICES_READ_KEYS] },
      { paths: QUEUE_PATHS, rights: [Right.RIGHT_APPLICATION_TRAFFIC_READ] },
    ],
    [{ paths: KEY_PATHS.as.write, rights: [Right.RIGHT_APPLICATION_DEVICES_WRITE_KEYS] }],
  ),
} satisfies Record<string, RpcDefinition>;

/**
 * Set (PUT with the id in the path, or POST with the id in the body), Get and Delete of one of the
 * JS/NS/AS end-device registries: identical shapes under `/<component>/…` (seed, "Endpoints").
 */
function registryRpcs<S extends 'JsEndDeviceRegistry' | 'NsEndDeviceRegistry' | 'AsEndDeviceRegistry'>(
  service: S,
  component: 'js' | 'ns' | 'as',
  readMaskRights: MaskRight[],
  writeMaskRights: MaskRight[],
) {
  const prefix = `/${component}/applications`;
  return {
    [`${service}.Set`]: rpc({
      service,
      method: 'Set',
      component,
      http: [
        { verb: 'PUT', path: `${prefix}/{end_device.ids.application_ids.application_id}/devices/{end_device.ids.device_id}`, body: '*' },
        { verb: 'POST', path: `${prefix}/{end_device.ids.application_ids.application_id}/devices`, body: '*' },
      ],
      rights: [Right.RIGHT_APPLICATION_DEVICES_WRITE],
      maskRights: writeMaskRights,
      request: SetEndDeviceRequest,
    }),
    [`${service}.Get`]: rpc({
      service,
      method: 'Get',
      component,
      http: [{ verb: 'GET', path: `${prefix}/{end_device_ids.application_ids.application_id}/devices/{end_device_ids.device_id}` }],
      rights: [Right.RIGHT_APPLICATION_DEVICES_READ],
      maskRights: readMaskRights,
      request: GetEndDeviceRequest,
    }),
    [`${service}.Delete`]: rpc({
      service,
      method: 'Delete',
      component,
      http: [{ verb: 'DELETE', path: `${prefix}/{application_ids.application_id}/devices/{device_id}` }],
      rights: [Right.RIGHT_APPLICATION_DEVICES_WRITE],
      request: DeleteEndDeviceRequest,
    }),
  } as Record<`${S}.${'Set' | 'Get' | 'Delete'}`, RpcDefinition<SetEndDeviceRequest> | RpcDefinition<GetEndDeviceRequest> | RpcDefinition<DeleteEndDeviceRequest>>;
}

/** The rights a request needs: the RPC's base rights plus those its field mask calls for. */
export function requiredRights(rpc: RpcDefinition, request: object): Right[] {
  const paths = (request as { field_mask?: { paths?: string[] } }).field_mask?.paths ?? [];
  const rights = new Set(rpc.rights);
  for (const rule of rpc.maskRights ?? []) {
    if (rule.paths.some((p) => hasAnyField(paths, p))) rule.rights.forEach((r) => rights.add(r));
  }
  return [...rights];
}

export type RpcName = keyof typeof RPCS;
export type RequestOf<N extends RpcName> = InstanceType<(typeof RPCS)[N]['request']>;

/** Health of a component (answered by every component; used by readiness probes). */
export function healthSubject(component: ComponentName): string {
  return `rpc.${component}.Health.Check`;
}

/** The application a request is about (for rights), read from the request by its known field names. */
export function applicationIdOf(request: object): string | undefined {
  const r = request as {
    end_device?: { ids?: { application_ids?: { application_id?: string } } };
    end_device_ids?: { application_ids?: { application_id?: string } };
    application_ids?: { application_id?: string };
  };
  return r.end_device?.ids?.application_ids?.application_id ?? r.end_device_ids?.application_ids?.application_id ?? r.application_ids?.application_id;
}
