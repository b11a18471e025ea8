import { Inject, Injectable } from '@nestjs/common';
import {
  ALLOWED_PATHS,
  type BatchCreateEndDevicesRequest,
  type BatchDeleteEndDevicesRequest,
  type BatchGetEndDevicesRequest,
  checkFieldMaskPaths,
  type CreateEndDeviceRequest,
  type DeleteEndDeviceRequest,
  deviceIdentifiers,
  type EndDevice,
  type EndDeviceOrderField,
  type GetEndDeviceRequest,
  hasAnyField,
  IS_EVENTS,
  type ListEndDevicesRequest,
  nowTimestamp,
  selectFields,
  fieldSelector,
  applyFields,
  type RpcContext,
  type SearchEndDevicesRequest,
  type UpdateEndDeviceRequest,
  plainJson,
} from '@lorawan/api';
import { EventPublisher, WithTotal } from '@lorawan/component';
import { batchItemError, ErrValidation, type StackError } from '@lorawan/errors';
import {
  ErrAlreadyExists,
  ErrApplicationNotFound,
  ErrConcurrentUpdate,
  ErrEndDeviceEUIsTaken,
  ErrEndDeviceNotFound,
  ErrIdTaken,
  ErrOrderNotInMask,
} from '../errors';
import { IDENTITY_DIRECTORY, type IdentityDirectory } from '../identity.contracts';
import { type CreateConflict, END_DEVICE_STORE, type EndDeviceStore, type IsEndDevice, type ListOptions } from './end-device.model';

/** Always returned, whatever the mask (TTS `getPaths`). */
const DEFAULT_PATHS = ['ids', 'created_at', 'updated_at'];
const DEFAULT_LIMIT = 100;
/** Optimistic update rounds; each round at least one concurrent writer wins, the others back off and retry. */
const UPDATE_ATTEMPTS = 32;
/** Order fields satisfied by the always-returned paths. */
const IMPLICIT_ORDER_PATHS: Record<EndDeviceOrderField, string> = {
  device_id: 'ids.device_id',
  join_eui: 'ids.join_eui',
  dev_eui: 'ids.dev_eui',
  created_at: 'created_at',
  name: 'name',
  description: 'description',
};

/**
 * The Identity Server's EndDeviceRegistry: device metadata with TTS field-mask semantics. Create,
 * Update and Delete publish `end_device.create|update|delete` once they succeeded.
 */
@Injectable()
export class EndDeviceRegistryService {
  constructor(
    @Inject(END_DEVICE_STORE) private readonly store: EndDeviceStore,
    @Inject(IDENTITY_DIRECTORY) private readonly directory: IdentityDirectory,
    private readonly events: EventPublisher,
  ) {}

  /** Stores a device of an existing (not deleted) application. */
  async create({ end_device }: CreateEndDeviceRequest, ctx: RpcContext): Promise<IsEndDevice> {
    await this.mustExist(end_device.ids.application_ids.application_id);
    const device = toStored(end_device, nowTimestamp());
    const result = await this.store.create(device);
    if (!result.ok) throw conflictError(device, result);
    this.events.publish(IS_EVENTS.endDevice.create, deviceIdentifiers(device.ids), { ctx });
    return device;
  }

  /**
   * Our extension: devices of one application stored all or none, each taken as `create` takes it;
   * IDs and (JoinEUI, DevEUI) pairs must be unique within the batch as in the store. A device's
   * error names its index (`batchItemError`: 400 on `end_devices[i]` for a validation error, the
   * single Create's error with `index` for a conflict). Publishes `end_device.create` per device, in order.
   */
  async batchCreate({ application_ids, end_devices }: BatchCreateEndDevicesRequest, ctx: RpcContext): Promise<{ end_devices: IsEndDevice[] }> {
    const applicationId = application_ids.application_id;
    const atIndex = (index: number, err: StackError) => batchItemError(err, { field: 'end_devices', index, message: 'BatchCreateEndDevicesRequest' });
    end_devices.forEach((d, index) => {
      if (d.ids.application_ids.application_id !== applicationId) {
        const reason = `value must be the application of the path, \`${applicationId}\``;
        throw atIndex(index, ErrValidation.with({ field: 'ids.application_ids.application_id', name: 'EndDeviceValidationError', reason }));
      }
    });
    await this.mustExist(applicationId);
    const now = nowTimestamp();
    const devices = end_devices.map((d) => toStored(d, now));
    const duplicate = firstDuplicate(devices);
    if (duplicate) throw atIndex(duplicate.index, conflictError(devices[duplicate.index], duplicate));
    const result = await this.store.createMany(devices);
    if (!result.ok) throw atIndex(result.index, conflictError(devices[result.index], result));
    for (const device of devices) this.events.publish(IS_EVENTS.endDevice.create, deviceIdentifiers(device.ids), { ctx });
    return { end_devices: devices };
  }

  /** TTS `EndDeviceBatchRegistry.Get`: the devices found (by device ID), with the fields of the mask; the others are left out. */
  async batchGet({ application_ids, device_ids, field_mask }: BatchGetEndDevicesRequest): Promise<{ end_devices?: Partial<IsEndDevice>[] }> {
    const paths = field_mask?.paths ?? [];
    // TTS validates the mask of a batch Get as the single Get's.
    checkFieldMaskPaths(paths, ALLOWED_PATHS['EndDeviceRegistry.Get']);
    const devices = await this.store.getMany(application_ids.application_id, [...new Set(device_ids)]);
    const select = fieldSelector<IsEndDevice>([...DEFAULT_PATHS, ...paths]);
    return devices.length > 0 ? { end_devices: devices.map(select) } : {};
  }

  /**
   * TTS `EndDeviceBatchRegistry.Delete`: the devices found are deleted at once, the others skipped;
   * one `end_device.batch.delete` about the application names those deleted (none: no event).
   */
  async batchDelete({ application_ids, device_ids }: BatchDeleteEndDevicesRequest, ctx: RpcContext): Promise<Record<string, never>> {
    const deleted = await this.store.deleteMany(application_ids.application_id, [...new Set(device_ids)]);
    if (deleted.length > 0) {
      const application = { application_ids: { application_id: application_ids.application_id } };
      this.events.publish(IS_EVENTS.endDevice.batchDelete, application, { ctx, data: { end_device_ids: deleted } });
    }
    return {};
  }

  async get({ end_device_ids, field_mask }: GetEndDeviceRequest): Promise<Partial<IsEndDevice>> {
    const paths = field_mask?.paths ?? [];
    checkFieldMaskPaths(paths, ALLOWED_PATHS['EndDeviceRegistry.Get']);
    const device = await this.mustGet(end_device_ids.application_ids.application_id, end_device_ids.device_id);
    return selectFields(device, [...DEFAULT_PATHS, ...paths]);
  }

  async list(request: ListEndDevicesRequest): Promise<WithTotal<{ end_devices?: Partial<IsEndDevice>[] }>> {
    const paths = request.field_mask?.paths ?? [];
    checkFieldMaskPaths(paths, ALLOWED_PATHS['EndDeviceRegistry.List']);
    return listPage(request, [...DEFAULT_PATHS, ...paths], (options) => this.store.list(request.application_ids.application_id, options));
  }

  /**
   * TTS `EndDeviceRegistrySearch.SearchEndDevices`: List of the devices matching every filter given.
   * As TTS, the fields searched on (`name`, `description`, `attributes`) are returned whatever the mask.
   */
  async search(request: SearchEndDevicesRequest): Promise<WithTotal<{ end_devices?: Partial<IsEndDevice>[] }>> {
    const { query, id_contains, name_contains, description_contains, attributes_contain, dev_eui_contains, join_eui_contains } = request;
    const paths = request.field_mask?.paths ?? [];
    checkFieldMaskPaths(paths, ALLOWED_PATHS['EndDeviceRegistrySearch.SearchEndDevices']);
    const searched = [name_contains && 'name', description_contains && 'description', Object.keys(attributes_contain ?? {}).length > 0 && 'attributes'];
    const filter = { query, id_contains, name_contains, description_contains, attributes_contain, dev_eui_contains, join_eui_contains };
    return listPage(request, [...DEFAULT_PATHS, ...paths, ...searched.filter((p): p is string => !!p)], (options) =>
      this.store.search(request.application_ids.application_id, filter, options),
    );
  }

  /** Publishes `end_device.update` with the request's field-mask paths as data. */
  async update({ end_device, field_mask }: UpdateEndDeviceRequest, ctx: RpcContext): Promise<Partial<IsEndDevice>> {
    const paths = field_mask?.paths ?? [];
    checkFieldMaskPaths(paths, ALLOWED_PATHS['EndDeviceRegistry.Update']);
    const { application_ids, device_id } = end_device.ids;
    for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
      const existing = await this.mustGet(application_ids.application_id, device_id);
      const updated: IsEndDevice = { ...applyFields(existing, pickIsFields(end_device), paths), updated_at: nowTimestamp() };
      if (await this.store.replace(updated, existing.updated_at)) {
        this.events.publish(IS_EVENTS.endDevice.update, deviceIdentifiers(updated.ids), { ctx, data: [...paths] });
        return selectFields(updated, [...DEFAULT_PATHS, ...paths]);
      }
      await new Promise((r) => setTimeout(r, Math.random() * Math.min(2 + attempt * 2, 20)));
    }
    throw ErrConcurrentUpdate.with({ device_id });
  }

  /** The event names the device by its stored identifiers (with its EUIs), read before it goes. */
  async delete({ application_ids, device_id }: DeleteEndDeviceRequest, ctx: RpcContext): Promise<Record<string, never>> {
    const device = await this.store.get(application_ids.application_id, device_id);
    if (!device || !(await this.store.delete(application_ids.application_id, device_id))) {
      throw ErrEndDeviceNotFound.with({ application_id: application_ids.application_id, device_id });
    }
    this.events.publish(IS_EVENTS.endDevice.delete, deviceIdentifiers(device.ids), { ctx });
    return {};
  }

  private async mustExist(applicationId: string): Promise<void> {
    if (!(await this.directory.exists({ kind: 'application', id: applicationId }))) throw ErrApplicationNotFound.with({ application_id: applicationId });
  }

  private async mustGet(applicationId: string, deviceId: string): Promise<IsEndDevice> {
    const device = await this.store.get(applicationId, deviceId);
    if (!device) throw ErrEndDeviceNotFound.with({ application_id: applicationId, device_id: deviceId });
    return device;
  }
}

/** A page of List or search: `order` (which the selected `paths` must cover), `limit` (default 100) and `page` (0 = 1) read through `read`. */
async function listPage(
  { order, limit, page }: Pick<ListEndDevicesRequest, 'order' | 'limit' | 'page'>,
  paths: string[],
  read: (options: ListOptions) => Promise<{ devices: IsEndDevice[]; total: number }>,
): Promise<WithTotal<{ end_devices?: Partial<IsEndDevice>[] }>> {
  const field = (order?.replace(/^-/, '') || 'device_id') as EndDeviceOrderField;
  if (!hasAnyField(paths, IMPLICIT_ORDER_PATHS[field])) throw ErrOrderNotInMask.with({ field });
  const pageSize = limit || DEFAULT_LIMIT;
  const { devices, total } = await read({
    order: field,
    descending: order?.startsWith('-') ?? false,
    limit: pageSize,
    offset: (Math.max(page ?? 0, 1) - 1) * pageSize,
  });
  const selected = devices.map(fieldSelector<IsEndDevice>(paths));
  return new WithTotal(selected.length > 0 ? { end_devices: selected } : {}, total);
}

/** A created device as stored: its IS fields and server times. */
function toStored(end_device: EndDevice, now: string): IsEndDevice {
  return { ...pickIsFields(end_device), created_at: now, updated_at: now };
}

/** The error of a device that cannot be stored: its ID taken (`id_taken`), or its EUIs (`end_device_euis_taken`, naming the holder). */
function conflictError(device: IsEndDevice, conflict: CreateConflict): StackError {
  if (conflict.conflict === 'id') return ErrIdTaken.with({}, ErrAlreadyExists.with());
  return ErrEndDeviceEUIsTaken.with({
    join_eui: device.ids.join_eui,
    dev_eui: device.ids.dev_eui,
    device_id: conflict.holder?.device_id ?? '',
    application_id: conflict.holder?.application_ids.application_id ?? '',
  });
}

/** The first device of a batch whose ID, or (JoinEUI, DevEUI) pair, an earlier device of the batch has. */
function firstDuplicate(devices: IsEndDevice[]): ({ index: number } & CreateConflict) | undefined {
  const ids = new Set<string>();
  const euis = new Map<string, IsEndDevice['ids']>();
  for (const [index, { ids: deviceIds }] of devices.entries()) {
    if (ids.has(deviceIds.device_id)) return { index, conflict: 'id' };
    ids.add(deviceIds.device_id);
    if (!deviceIds.join_eui || !deviceIds.dev_eui) continue;
    const pair = `${deviceIds.join_eui}:${deviceIds.dev_eui}`;
    const holder = euis.get(pair);
    if (holder) return { index, conflict: 'euis', holder };
    euis.set(pair, deviceIds);
  }
  return undefined;
}

/** The fields of a request's EndDevice that the IS stores (the seed's "Registries" table). */
export function pickIsFields(d: EndDevice): Omit<IsEndDevice, 'created_at' | 'updated_at'> {
  const ids: IsEndDevice['ids'] = { device_id: d.ids.device_id, application_ids: { application_id: d.ids.application_ids.application_id } };
  if (d.ids.dev_eui) ids.dev_eui = d.ids.dev_eui;
  if (d.ids.join_eui) ids.join_eui = d.ids.join_eui;
  return stripUndefined({
    ids,
    name: d.name || undefined,
    description: d.description || undefined,
    attributes: d.attributes,
    version_ids: d.version_ids ? stripUndefined({ ...d.version_ids }) : undefined,
    service_profile_id: d.service_profile_id || undefined,
    network_server_address: d.network_server_address || undefined,
    application_server_address: d.application_server_address || undefined,
    join_server_address: d.join_server_address || undefined,
    locations: d.locations ? plainJson(d.locations) : undefined,
    picture: d.picture ? plainJson(d.picture) : undefined,
  });
}

function stripUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
