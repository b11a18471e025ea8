import { Inject, Injectable } from '@nestjs/common';
import {
  ALLOWED_PATHS,
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
  type UpdateEndDeviceRequest,
  plainJson,
} from '@lorawan/api';
import { EventPublisher, WithTotal } from '@lorawan/component';
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
import { END_DEVICE_STORE, type EndDeviceStore, type IsEndDevice } from './end-device.model';

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
    const applicationId = end_device.ids.application_ids.application_id;
    if (!(await this.directory.exists({ kind: 'application', id: applicationId }))) throw ErrApplicationNotFound.with({ application_id: applicationId });
    const now = nowTimestamp();
    const device: IsEndDevice = { ...pickIsFields(end_device), created_at: now, updated_at: now };
    const result = await this.store.create(device);
    if (!result.ok && result.conflict === 'id') throw ErrIdTaken.with({}, ErrAlreadyExists.with());
    if (!result.ok) {
      throw ErrEndDeviceEUIsTaken.with({
        join_eui: device.ids.join_eui,
        dev_eui: device.ids.dev_eui,
        device_id: result.holder?.device_id ?? '',
        application_id: result.holder?.application_ids.application_id ?? '',
      });
    }
    this.events.publish(IS_EVENTS.endDevice.create, deviceIdentifiers(device.ids), { ctx });
    return device;
  }

  async get({ end_device_ids, field_mask }: GetEndDeviceRequest): Promise<Partial<IsEndDevice>> {
    const paths = field_mask?.paths ?? [];
    checkFieldMaskPaths(paths, ALLOWED_PATHS['EndDeviceRegistry.Get']);
    const device = await this.mustGet(end_device_ids.application_ids.application_id, end_device_ids.device_id);
    return selectFields(device, [...DEFAULT_PATHS, ...paths]);
  }

  async list({ application_ids, field_mask, order, limit, page }: ListEndDevicesRequest): Promise<WithTotal<{ end_devices?: Partial<IsEndDevice>[] }>> {
    const paths = field_mask?.paths ?? [];
    checkFieldMaskPaths(paths, ALLOWED_PATHS['EndDeviceRegistry.List']);
    const field = (order?.replace(/^-/, '') || 'device_id') as EndDeviceOrderField;
    if (!hasAnyField([...DEFAULT_PATHS, ...paths], IMPLICIT_ORDER_PATHS[field])) throw ErrOrderNotInMask.with({ field });
    const pageSize = limit || DEFAULT_LIMIT;
    const { devices, total } = await this.store.list(application_ids.application_id, {
      order: field,
      descending: order?.startsWith('-') ?? false,
      limit: pageSize,
      offset: (Math.max(page ?? 0, 1) - 1) * pageSize,
    });
    const select = fieldSelector<IsEndDevice>([...DEFAULT_PATHS, ...paths]);
    const selected = devices.map(select);
    return new WithTotal(selected.length > 0 ? { end_devices: selected } : {}, total);
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

  private async mustGet(applicationId: string, deviceId: string): Promise<IsEndDevice> {
    const device = await this.store.get(applicationId, deviceId);
    if (!device) throw ErrEndDeviceNotFound.with({ application_id: applicationId, device_id: deviceId });
    return device;
  }
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
