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
import { QUEUE_PATHS } from '../field-mask/allowed-paths';
import { EndDevice, EndDevices } from '../messages/end-device';
import { Empty } from '../messages/responses';
import { Right } from './rights';
import { applicationAt, defineRpc, type MaskRight, type RpcDefinition } from './define-rpc';

const app = applicationAt;
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

/**
 * The Identity Server's end-device registry (TTS `end_device.proto`'s EndDeviceRegistry, its search
 * and batch services, with our batch Create): the device's metadata.
 */
export function endDeviceRpcs() {
  return {
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
  } satisfies Record<string, RpcDefinition>;
}

/**
 * The JS, NS and AS end-device registries and their batch services. Key material needs the key
 * rights in every device registry (`withDeviceKeyRights`, applied by `defineRpc`).
 */
export function componentRegistryRpcs() {
  return {
    ...registryRpcs('JsEndDeviceRegistry', 'js', []),
    ...registryRpcs('NsEndDeviceRegistry', 'ns', [READ_QUEUES]),
    ...registryRpcs('AsEndDeviceRegistry', 'as', [READ_QUEUES]),
  };
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
