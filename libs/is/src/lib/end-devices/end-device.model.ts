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

export type CreateResult = { ok: true } | { ok: false; conflict: 'id' } | { ok: false; conflict: 'euis'; holder?: IsEndDevice['ids'] };

/**
 * Storage of IS end devices. Implementations: TypeORM on MySQL and on SQLite (one class, two
 * drivers), both held to `end-device.store.conformance.ts`.
 */
export interface EndDeviceStore {
  create(device: IsEndDevice): Promise<CreateResult>;
  get(applicationId: string, deviceId: string): Promise<IsEndDevice | undefined>;
  findByEuis(joinEui: string, devEui: string): Promise<IsEndDevice | undefined>;
  list(applicationId: string, options: ListOptions): Promise<{ devices: IsEndDevice[]; total: number }>;
  /** Replaces the device if it still has `expectedUpdatedAt`; false when it changed meanwhile or is gone. */
  replace(device: IsEndDevice, expectedUpdatedAt: string): Promise<boolean>;
  delete(applicationId: string, deviceId: string): Promise<boolean>;
}

export const END_DEVICE_STORE = Symbol('END_DEVICE_STORE');
