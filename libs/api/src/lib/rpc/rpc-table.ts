import type { ClassConstructor } from 'class-transformer';
import {
  CreateEndDeviceRequest,
  DeleteEndDeviceRequest,
  GetEndDeviceRequest,
  ListEndDevicesRequest,
  UpdateEndDeviceRequest,
} from '../messages/end-device-requests';
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
  /** Rights the caller needs on the request's application (further rights may depend on the mask). */
  rights: Right[];
  request: ClassConstructor<Req>;
  /** Responses carry a total count, exposed as `X-Total-Count`. */
  paginated?: boolean;
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
} satisfies Record<string, RpcDefinition>;

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
