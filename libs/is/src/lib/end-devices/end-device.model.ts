import type { EndDeviceOrderField } from '@lorawan/api';

/** The Identity Server's view of an end device: the seed's IS fields, canonical JSON values. */
export interface IsEndDevice {
  ids: {
    device_id: string;
    application_ids: { application_id: string };
    dev_eui?: string;
    join_eui?: string;
  };
  created_at: string;
  updated_at: string;
  name?: string;
  description?: string;
  attributes?: Record<string, string>;
  version_ids?: { brand_id?: string; model_id?: string; hardware_version?: string; firmware_version?: string };
  service_profile_id?: string;
  network_server_address?: string;
  application_server_address?: string;
  join_server_address?: string;
  locations?: Record<string, object>;
  picture?: object;
}

export interface ListOptions {
  order: EndDeviceOrderField;
  descending: boolean;
  limit: number;
  offset: number;
}

/**
 * Substring filters of a search (TTS `SearchEndDevicesRequest`), each case-insensitive; every one
 * given must hold. `query` holds when the ID, name, description, DevEUI or JoinEUI contains it; the
 * EUI filters match the upper-case hexadecimal form; `attributes_contain` needs each key's value to
 * contain the given substring.
 */
export interface SearchFilter {
  query?: string;
  id_contains?: string;
  name_contains?: string;
  description_contains?: string;
  attributes_contain?: Record<string, string>;
  dev_eui_contains?: string;
  join_eui_contains?: string;
}

/** A search counts its matches up to this many; `total` is then this bound (and pages past it are empty). */
export const SEARCH_COUNT_MAX = 10_000;

/** Why a device cannot be stored: its ID is taken in its application, or its (JoinEUI, DevEUI) pair by `holder`. */
export type CreateConflict = { conflict: 'id' } | { conflict: 'euis'; holder?: IsEndDevice['ids'] };

export type CreateResult = { ok: true } | ({ ok: false } & CreateConflict);

/** A batch is stored whole or not at all; a conflict names the first device (by its index in the batch) that has one. */
export type CreateManyResult = { ok: true } | ({ ok: false; index: number } & CreateConflict);

/**
 * Storage of IS end devices. `list` answers the application's device count kept beside the devices
 * (updated in the transaction of every insert and delete), never by counting the rows.
 * Implementations: TypeORM on MySQL and on SQLite (one class, two drivers), both held to
 * `end-device.store.conformance.ts`.
 */
export interface EndDeviceStore {
  create(device: IsEndDevice): Promise<CreateResult>;
  /** Stores devices of one application in one transaction (all or none). */
  createMany(devices: IsEndDevice[]): Promise<CreateManyResult>;
  get(applicationId: string, deviceId: string): Promise<IsEndDevice | undefined>;
  /** The devices of the application among `deviceIds` (those not found left out), ordered by device ID. */
  getMany(applicationId: string, deviceIds: string[]): Promise<IsEndDevice[]>;
  findByEuis(joinEui: string, devEui: string): Promise<IsEndDevice | undefined>;
  list(applicationId: string, options: ListOptions): Promise<{ devices: IsEndDevice[]; total: number }>;
  /**
   * List's page of the devices that match `filter`; `total` counts the matches, at most
   * SEARCH_COUNT_MAX (a bounded query: the application's kept count does not apply).
   */
  search(applicationId: string, filter: SearchFilter, options: ListOptions): Promise<{ devices: IsEndDevice[]; total: number }>;
  /** Replaces the device if it still has `expectedUpdatedAt`; false when it changed meanwhile or is gone. */
  replace(device: IsEndDevice, expectedUpdatedAt: string): Promise<boolean>;
  delete(applicationId: string, deviceId: string): Promise<boolean>;
  /** Deletes the devices of the application among `deviceIds` in one transaction; answers the identifiers of those it deleted, by device ID. */
  deleteMany(applicationId: string, deviceIds: string[]): Promise<Array<IsEndDevice['ids']>>;
}

export const END_DEVICE_STORE = Symbol('END_DEVICE_STORE');
