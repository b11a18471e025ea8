/** The identifiers a registry keeps for a device (the seed's EndDeviceIdentifiers, canonical hex). */
export interface DeviceIds {
  device_id: string;
  application_ids: { application_id: string };
  dev_eui?: string;
  join_eui?: string;
  dev_addr?: string;
}

/**
 * A device as a JS/NS/AS registry stores it: the registry's own EndDevice fields in the
 * contract's canonical JSON form (keys possibly wrapped with a KEK), plus bookkeeping.
 */
export interface DeviceRecord {
  ids: DeviceIds;
  created_at: string;
  updated_at: string;
  /** Optimistic-concurrency counter: every replace must name the revision it read. */
  revision: number;
  /** Every other stored field, by EndDevice field name. */
  fields: Record<string, unknown>;
}

export type CreateResult = { ok: true } | { ok: false; conflict: 'id' } | { ok: false; conflict: 'euis'; holder?: DeviceIds };
export type ReplaceResult = 'ok' | 'stale' | 'euis';

/** Identifiers a lookup may give: device_id always (the route carries it), the others optionally. */
export interface DeviceLookup {
  application_id: string;
  device_id: string;
  dev_eui?: string;
  join_eui?: string;
  dev_addr?: string;
}

/**
 * Storage of one registry's devices. One TypeORM implementation (MySQL and SQLite), held to
 * `device-store.conformance.ts`.
 */
export interface DeviceStore {
  /**
   * The device, or undefined. `known`: a record of it the caller holds; while the device is still
   * at the known's revision and creation time, the answer is `known` itself and its document is
   * not read again (one statement either way).
   */
  get(applicationId: string, deviceId: string, known?: DeviceRecord): Promise<DeviceRecord | undefined>;
  /**
   * Devices of the application identified by any of the lookup's identifiers: its device_id, its
   * DevEUI (with the JoinEUI when given), its DevAddr. More than one means the lookup is ambiguous.
   */
  findCandidates(lookup: DeviceLookup): Promise<DeviceRecord[]>;
  /** All devices with this DevAddr, in any application (the data plane's lookup). */
  findByDevAddr(devAddr: string): Promise<DeviceRecord[]>;
  /**
   * The data plane's candidates for an uplink from `devAddr`: devices whose current session or
   * pending session has it (any application; DevAddrs are not unique), at most `limit`.
   * `known`: a record of one of them the caller holds; when that device is still at the known's
   * revision (and creation time: not deleted and created again), `known` itself is in the answer
   * and its document is not read again.
   */
  findBySessionDevAddr(devAddr: string, limit: number, known?: DeviceRecord): Promise<DeviceRecord[]>;
  /** All devices with this JoinEUI and DevEUI, in any application. */
  findByEuis(joinEui: string, devEui: string): Promise<DeviceRecord[]>;
  create(record: DeviceRecord): Promise<CreateResult>;
  /**
   * Replaces the device if it is still at `record.revision - 1` and was created at
   * `record.created_at` (a device deleted and created again since, by another replica, may have
   * reached the same revision: it is another device).
   */
  replace(record: DeviceRecord): Promise<ReplaceResult>;
  /** Deletes the device if it is still at `revision` (any revision when omitted). */
  delete(applicationId: string, deviceId: string, revision?: number): Promise<boolean>;
  /**
   * Writes several devices of one application in one transaction: `decide` gets the stored records
   * of `deviceIds` (absent ones left out), read under lock, and answers the records to write (each
   * created at revision 1, else replacing the stored one) and a result. When `decide` throws,
   * nothing is written and the error propagates; when a write hits a unique key, nothing is
   * written and the answer names it: `id` (a device created meanwhile), `euis` (JoinEUI + DevEUI taken).
   */
  writeAll<T>(
    applicationId: string,
    deviceIds: readonly string[],
    decide: (stored: ReadonlyMap<string, DeviceRecord>) => { result: T; records: readonly DeviceRecord[] },
  ): Promise<{ ok: true; result: T } | { ok: false; conflict: 'id' | 'euis' }>;
  /** Deletes those of `deviceIds` that exist, in one transaction; answers their records as they were. */
  deleteAll(applicationId: string, deviceIds: readonly string[]): Promise<DeviceRecord[]>;
}

export const DEVICE_STORE = Symbol('DEVICE_STORE');
