import {
  type BatchDeleteEndDevicesRequest,
  type BatchSetEndDevicesRequest,
  deletePath,
  getPath,
  setPath,
  applyFields,
  canonicalEndDevicePaths,
  checkFieldMaskPaths,
  type DeleteEndDeviceRequest,
  deviceIdentifiers,
  type EventDefinition,
  fieldSelector,
  type GetEndDeviceRequest,
  hasAnyField,
  nowTimestamp,
  type RpcContext,
  selectFields,
  type SetEndDeviceRequest,
  plainJson,
  cloneJson,
  END_DEVICE_KEY_PATHS,
  envelopesUnder,
  type JsonObject,
} from '@lorawan/api';
import type { EventPublisher } from '@lorawan/component';
import { batchItemError, type ErrorDefinition, ErrValidation, StackError } from '@lorawan/errors';
import { copyOnCreate } from '@lorawan/lorawan';
import type { DeviceIds, DeviceLookup, DeviceRecord, DeviceStore, ReplaceResult } from './device-record';
import type { KeyEnvelopeJson, KeySealer } from './key-sealer';
import { ErrConcurrentUpdate, ErrEndDeviceEUIsTaken, ErrMultipleEndDevices } from './registry.errors';

/** What every stored device carries, whatever its registry: its identifiers and server times. */
export interface StoredDevice {
  ids: DeviceIds;
  created_at?: string;
  updated_at?: string;
}

/**
 * A device of no particular registry: ids, timestamps and any stored field as plain JSON. A
 * component names its own device type instead (`DeviceRegistry<T>`, `RegistryPolicy<T>`), derived
 * from the contract's EndDevice.
 */
export type Device = JsonObject & StoredDevice;

/** The component-specific errors (TTS names them per server). */
export interface RegistryErrors {
  /** 404 for Get/Delete of an unknown device; attributes: device_uid (`app.dev`). */
  notFound: ErrorDefinition;
  /** 400 when an update tries to change an identifier; attribute: field. */
  readOnlyField: ErrorDefinition;
}

export interface CompleteContext<T extends StoredDevice = Device> {
  /** True when the Set creates the device. */
  created: boolean;
  /** The effective paths of the Set (canonical, including Copy fields filled on creation). */
  paths: readonly string[];
  /** The request's EndDevice as plain JSON (all of it, masked or not). */
  request: JsonObject;
  /** The stored device an update starts from. */
  previous?: T;
}

/** The events a registry publishes (`<js|ns|as>.end_device.create|update|delete`, `@lorawan/api` `*_EVENTS.endDevice`). */
export interface RegistryEvents {
  create: EventDefinition;
  /** Data: the request's field-mask paths. */
  update: EventDefinition;
  delete: EventDefinition;
  /** One per batch Delete that deleted any device: about the application, data the deleted devices' identifiers. */
  batchDelete: EventDefinition;
}

/** What differs between the JS, NS and AS registries; `T` is the registry's device type. */
export interface RegistryPolicy<T extends StoredDevice = Device> {
  allowedGetPaths: ReadonlySet<string>;
  allowedSetPaths: ReadonlySet<string>;
  /** Paths the registry stores (`formatters`, `session.keys.app_s_key`, …); anything else is dropped. */
  storedPaths: readonly string[];
  /** The seed's Copy fields this registry stores, filled on creation when absent. */
  copyFields: readonly string[];
  errors: RegistryErrors;
  /** Published after a successful Set (create or update) and Delete. */
  events: RegistryEvents;
  /**
   * Semantic validation and completion of a device about to be stored (the seed's and TTS's
   * rules for this registry). Throws TTS-shaped errors; returns the device to store.
   */
  complete(device: T, context: CompleteContext<T>): T;
  /** Fields derived at read time (e.g. the deprecated mirror of the AS downlink queue). */
  present?(device: T): T;
}

/** Fills the seed's Copy fields on creation: from the template of `version_ids`, else from the home NS profile. */
export interface CopySource {
  template(versionIds: unknown): JsonObject | undefined;
  profile(): JsonObject | undefined;
}

export const NO_COPY_SOURCE: CopySource = { template: () => undefined, profile: () => undefined };

const ID_PATHS = new Set(['ids', 'ids.application_ids', 'ids.application_ids.application_id', 'ids.device_id', 'ids.dev_eui', 'ids.join_eui', 'ids.dev_addr']);
const UPDATE_ATTEMPTS = 32;

/** The parts of a path (the key envelope paths of the policies, a small fixed set), split once. */
const PATH_PARTS = new Map<string, readonly string[]>();
function partsOf(path: string): readonly string[] {
  let parts = PATH_PARTS.get(path);
  if (!parts) PATH_PARTS.set(path, (parts = path.split('.')));
  return parts;
}

function deviceUid(ids: { application_ids: { application_id: string }; device_id: string }): string {
  return `${ids.application_ids.application_id}.${ids.device_id}`;
}

/** A Set validated and completed: the record to write (revision 1: a creation), the device stored, the paths its answer shows. */
interface PreparedSet {
  record: DeviceRecord;
  device: Device;
  viewPaths: readonly string[];
}

/** A Set request as the registry handles it: its EndDevice as plain JSON and its canonical, allowed paths. */
interface SetInput {
  request: Device;
  paths: readonly string[];
  /** The request's own mask paths (the update event's data). */
  maskPaths: string[];
}

const backoff = (attempt: number) => new Promise((r) => setTimeout(r, Math.random() * Math.min(2 + attempt * 2, 20)));

/**
 * One JS/NS/AS end-device registry (TTS `grpc_deviceregistry.go` semantics, the seed's rules):
 * Set creates or updates the masked paths, Get returns ids plus the masked paths, Delete removes;
 * Get and Delete refuse identifiers that match several devices. Keys are sealed at rest and
 * returned only when the mask names them (the RPC table asks the matching rights). A successful
 * Set publishes the policy's create event (the device was absent) or update event (data: the
 * request's mask paths), a successful Delete its delete event: once per call, never for a failed
 * one, naming the device by its identifiers as stored (with dev_addr when it has one).
 */
export class DeviceRegistry<T extends StoredDevice = Device> {
  /** What the registry stores of a device (its stored paths, normalised once). */
  private readonly selectStored: (device: Device) => Partial<Device>;
  /** Records of the devices data-plane reads returned, while those devices live (`modify`'s `read`). */
  private readonly reads = new WeakMap<object, DeviceRecord>();
  /** The latest record written per session DevAddr (`bySessionDevAddr`'s known record), if enabled. */
  private readonly sessionRecords: RecordCache | undefined;
  /** The latest record read or written per device (`stored`'s known record), if enabled. */
  private readonly deviceRecords: RecordCache | undefined;
  /**
   * The key envelopes among the stored paths (`root_keys.app_key`, `session.keys.nwk_s_enc_key`,
   * `pending_mac_state.queued_join_accept.keys.app_s_key`, …), derived from the contract: sealed at
   * rest, opened for readers whose mask names their key.
   */
  private readonly keyEnvelopes: readonly string[];

  /**
   * `o.sessionCacheSize`: how many session DevAddrs `bySessionDevAddr` remembers the latest written
   * record of (0: none). A lookup then reads that device's document only when it changed since:
   * the uplink path reads and writes the same device on every uplink. `o.deviceCacheSize`: how
   * many devices `stored` remembers the latest record read or written of, by application and
   * device ID (0: none), with the same check: their document is read again only when their
   * revision changed (the AS reads its device on every uplink and writes it rarely).
   * `o.freezeShared` (tests): the records they keep are frozen, so that code changing one in
   * place fails.
   */
  constructor(
    private readonly store: DeviceStore,
    private readonly policy: RegistryPolicy<T>,
    private readonly keys: KeySealer,
    private readonly events: EventPublisher,
    private readonly copy: CopySource = NO_COPY_SOURCE,
    o: { sessionCacheSize?: number; deviceCacheSize?: number; freezeShared?: boolean } = {},
  ) {
    this.selectStored = fieldSelector<Device>(['ids', 'created_at', 'updated_at', ...policy.storedPaths]);
    this.keyEnvelopes = envelopesUnder(END_DEVICE_KEY_PATHS, policy.storedPaths);
    this.sessionRecords = o.sessionCacheSize ? new RecordCache(o.sessionCacheSize, o.freezeShared ?? false, sessionDevAddrsOf) : undefined;
    this.deviceRecords = o.deviceCacheSize ? new RecordCache(o.deviceCacheSize, o.freezeShared ?? false, deviceKeyOf) : undefined;
  }

  async get({ end_device_ids, field_mask }: GetEndDeviceRequest): Promise<JsonObject> {
    const paths = canonicalEndDevicePaths(field_mask?.paths ?? []);
    checkFieldMaskPaths(paths, this.policy.allowedGetPaths);
    const record = await this.match(lookupOf(end_device_ids));
    return this.view(toDevice(record), paths);
  }

  async set(req: SetEndDeviceRequest, ctx: RpcContext): Promise<JsonObject> {
    const input = this.setInput(req);
    const { application_ids, device_id } = input.request.ids;
    for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
      const existing = await this.store.get(application_ids.application_id, device_id);
      const prepared = this.prepareSet(existing, input);
      if (await this.write(prepared, existing)) {
        this.published(prepared, input, ctx);
        return this.view(prepared.device, prepared.viewPaths);
      }
      await backoff(attempt);
    }
    throw ErrConcurrentUpdate.with({ device_id });
  }

  /**
   * Our batch Set: each request validated and completed exactly as by `set`, then all written in
   * one transaction, or none. Every device must be of the request's application, each once. A
   * request's error names its index: a validation or policy error (InvalidArgument) as the cause
   * of a validation error of `requests[i]`, any other as itself with the attribute `index`. Events
   * and answers as `set`'s, per device, in request order.
   */
  async batchSet({ application_ids, requests }: BatchSetEndDevicesRequest, ctx: RpcContext): Promise<{ end_devices: JsonObject[] }> {
    const applicationId = application_ids.application_id;
    const first = new Map<string, number>();
    const inputs = requests.map((req, index) =>
      atIndex(index, () => {
        const input = this.setInput(req);
        const { application_ids: app, device_id } = input.request.ids;
        if (app.application_id !== applicationId)
          throw batchFieldError('end_device.ids.application_ids.application_id', `value must be the application of the call (\`${applicationId}\`)`);
        if (first.has(device_id))
          throw batchFieldError('end_device.ids.device_id', `value must be unique in the call (as in requests[${first.get(device_id)}])`);
        first.set(device_id, index);
        return input;
      }),
    );
    const deviceIds = inputs.map((input) => input.request.ids.device_id);
    for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
      const written = await this.store.writeAll(applicationId, deviceIds, (stored) => {
        const prepared = inputs.map((input, index) => atIndex(index, () => this.prepareSet(stored.get(input.request.ids.device_id), input)));
        return { result: prepared, records: prepared.map((p) => p.record) };
      });
      if (written.ok) {
        written.result.forEach((prepared, index) => this.published(prepared, inputs[index], ctx));
        return { end_devices: written.result.map((p) => this.view(p.device, p.viewPaths)) };
      }
      if (written.conflict === 'euis') throw await this.takenEuisError(applicationId, inputs);
      await backoff(attempt); // A device created meanwhile: the next round updates it.
    }
    throw ErrConcurrentUpdate.with({ device_id: deviceIds.join(',') });
  }

  /** TTS's batch Delete: those of the devices that exist, in one transaction; unknown ones skipped. */
  async batchDelete({ application_ids, device_ids }: BatchDeleteEndDevicesRequest, ctx: RpcContext): Promise<Record<string, never>> {
    const deleted = await this.store.deleteAll(application_ids.application_id, [...new Set(device_ids)]);
    for (const record of deleted) this.forget(record);
    if (deleted.length > 0) {
      this.events.publish(
        this.policy.events.batchDelete,
        { application_ids: { application_id: application_ids.application_id } },
        { ctx, data: { end_device_ids: deleted.map((r) => identifiersOf(r.ids)) } },
      );
    }
    return {};
  }

  async delete(ids: DeleteEndDeviceRequest, ctx: RpcContext): Promise<Record<string, never>> {
    for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
      const record = await this.match(lookupOf(ids));
      if (await this.store.delete(ids.application_ids.application_id, ids.device_id, record.revision)) {
        this.forget(record);
        this.events.publish(this.policy.events.delete, deviceIdentifiers(record.ids), { ctx });
        return {};
      }
      await backoff(attempt);
    }
    throw ErrConcurrentUpdate.with({ device_id: ids.device_id });
  }

  /**
   * A data-plane read-modify-write of one stored device (the AS downlink queue), under the same
   * optimistic concurrency as Set: `mutate` gets the device as stored (its key envelopes as stored;
   * `openKey` opens one) and returns the device to store, or throws to store nothing. It may run
   * more than once when a concurrent write wins a round. Publishes no registry event. Returns
   * what `mutate` returned for the round that was stored. Of the identifiers only `dev_addr` may
   * change (a session becoming current); the others stay as stored.
   *
   * `read`: a device this registry's data-plane lookups returned (`bySessionDevAddr`, `stored`, `getByEuis`),
   * or the device a `mutate` returned to a modify that stored it, that the caller has not changed
   * since. Its record is the first round's starting point instead of a
   * new read (the uplink path reads the device to match it, then writes it at once); when another
   * write came in between, the revision check refuses the round and the next one reads afresh.
   * The device `mutate` gets then shares nested objects with `read`: build new ones, as a
   * read-modify-write does anyway, rather than relying on `read` staying as it was.
   */
  async modify<R>(
    ids: { application_id: string; device_id: string },
    mutate: (device: T, openKey: (envelope: KeyEnvelopeJson) => KeyEnvelopeJson) => { device: T; result: R } | Promise<{ device: T; result: R }>,
    o: { read?: T } = {},
  ): Promise<R> {
    const openKey = (envelope: KeyEnvelopeJson) => this.keys.open(envelope);
    const known = o.read ? this.reads.get(o.read) : undefined;
    const reusable = known && known.ids.device_id === ids.device_id && known.ids.application_ids.application_id === ids.application_id;
    for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
      const existing = attempt === 0 && reusable ? known : await this.store.get(ids.application_id, ids.device_id);
      if (!existing) throw this.policy.errors.notFound.with({ device_uid: `${ids.application_id}.${ids.device_id}` });
      // A record is parsed afresh from the store on every read: nothing else holds the device `mutate` gets.
      const { device, result } = await mutate(asTyped<T>(toDevice(existing)), openKey);
      const written = await this.replaceFrom(existing, device);
      if (written === 'ok') return result;
      if (written === 'euis') throw ErrConcurrentUpdate.with({ device_id: ids.device_id });
      await backoff(attempt);
    }
    throw ErrConcurrentUpdate.with({ device_id: ids.device_id });
  }

  /**
   * One round of `modify` from `read` alone, without reading the store and without retrying:
   * `mutate` gets the device as `read` was read (as `modify`'s first round does) and its answer is
   * written only while the store still has the device at `read`'s revision. Answers `{ result }`
   * when it was written, undefined when nothing was: the device moved on or is gone (another
   * replica, a Set, a Delete), a unique key refused the write, `read` is no device of this
   * registry's data-plane reads, or `mutate` answered undefined (it declines to write from
   * `read`). Errors of `mutate` propagate. Meant for a `read` that may be outdated
   * (`lastWrittenBySessionDevAddr`): when nothing was written, the caller starts over from a fresh
   * read (`modify` reports what a unique key refused), so an outdated `read` costs a round, never a
   * write from outdated state.
   */
  async modifyIfUnchanged<R>(
    read: T,
    mutate: (device: T, openKey: (envelope: KeyEnvelopeJson) => KeyEnvelopeJson) => { device: T; result: R } | undefined,
  ): Promise<{ result: R } | undefined> {
    const known = this.reads.get(read);
    if (!known) return undefined;
    const mutated = mutate(asTyped<T>(toDevice(known)), (envelope) => this.keys.open(envelope));
    if (!mutated) return undefined;
    return (await this.replaceFrom(known, mutated.device)) === 'ok' ? { result: mutated.result } : undefined;
  }

  /** Writes `device` over `existing` if the store still has `existing`'s revision (one round of `modify`); on success, remembers what was written. */
  private async replaceFrom(existing: DeviceRecord, device: T): Promise<ReplaceResult> {
    const { dev_addr: _stored, ...fixedIds } = existing.ids;
    const storedIds = device.ids?.dev_addr ? { ...fixedIds, dev_addr: device.ids.dev_addr } : fixedIds;
    const updated = { ...this.keepStored(asJson(device)), ids: storedIds, created_at: existing.created_at, updated_at: nowTimestamp() };
    const record = toRecord(updated, existing.revision + 1, this.keys, this.keyEnvelopes);
    const written = await this.store.replace(record);
    if (written === 'ok') {
      // What was written is where a next modify of the same device may start (`read`), and what a next lookup by its session DevAddr may reuse.
      this.reads.set(device, record);
      this.sessionRecords?.remember(record);
      this.deviceRecords?.remember(record);
    }
    return written;
  }

  /** A data-plane read of one device as stored (key envelopes as stored; `openKey` opens one). */
  async stored(ids: { application_id: string; device_id: string }): Promise<T> {
    const uid = `${ids.application_id}.${ids.device_id}`;
    const known = this.deviceRecords?.get(uid);
    const existing = await this.store.get(ids.application_id, ids.device_id, known);
    if (!existing) {
      if (known) this.deviceRecords?.forget(known);
      throw this.policy.errors.notFound.with({ device_uid: uid });
    }
    if (existing !== known) this.deviceRecords?.remember(existing);
    return this.tracked(existing);
  }

  /** Opens a stored key envelope (the plain key when this component holds its KEK). */
  openKey(envelope: KeyEnvelopeJson): KeyEnvelopeJson {
    return this.keys.open(envelope);
  }

  /** Drops what the caches remember of a deleted device. */
  private forget(record: DeviceRecord): void {
    this.sessionRecords?.forget(record);
    this.deviceRecords?.forget(record);
  }

  /** The data plane's lookup by DevAddr: exactly one device, else not found or several-match. */
  async getByDevAddr(devAddr: string): Promise<T> {
    return asTyped<T>(toDevice(this.single(await this.store.findByDevAddr(devAddr), { dev_addr: devAddr })));
  }

  /** The data plane's candidates for an uplink: devices whose session or pending session has this DevAddr, as stored (at most `limit`). */
  async bySessionDevAddr(devAddr: string, limit = 16): Promise<T[]> {
    return (await this.store.findBySessionDevAddr(devAddr, limit, this.sessionRecords?.get(devAddr))).map((r) => this.tracked(r));
  }

  /**
   * The device this registry last wrote (`modify`) with this session DevAddr (current or pending),
   * from its session cache: no statement. Possibly outdated (another replica, a Set or a Delete
   * may have written the device since), and never the only device with the DevAddr (a DevAddr may
   * be shared; a device another replica created or joined is only in the store): a guess to try
   * first, never what is stored. Write from it with `modifyIfUnchanged`, which checks its revision,
   * and fall back to `bySessionDevAddr` when it is not the sender or nothing was written. Undefined
   * without a session cache or when none is remembered.
   */
  lastWrittenBySessionDevAddr(devAddr: string): T | undefined {
    const record = this.sessionRecords?.get(devAddr);
    return record ? this.tracked(record) : undefined;
  }

  /** The device of a data-plane read, remembered with its record for a `modify` that follows (see there). */
  private tracked(record: DeviceRecord): T {
    const device = asTyped<T>(toDevice(record));
    this.reads.set(device, record);
    return device;
  }

  /**
   * The data plane's lookup by JoinEUI and DevEUI: exactly one device, else not found or
   * several-match. Tracked like `stored`'s: the join that reads it may write it at once (`modify`'s `read`).
   */
  async getByEuis(joinEui: string, devEui: string): Promise<T> {
    return this.tracked(this.single(await this.store.findByEuis(joinEui, devEui), { join_eui: joinEui, dev_eui: devEui }));
  }

  private single(records: DeviceRecord[], identifiers: JsonObject): DeviceRecord {
    if (records.length > 1) throw ErrMultipleEndDevices.with({ count: records.length, device_ids: records.map((r) => deviceUid(r.ids)) });
    if (records.length === 0) throw this.policy.errors.notFound.with({ device_uid: JSON.stringify(identifiers) });
    return records[0];
  }

  /** The device the identifiers name: every identifier given must agree, and only one device may match. */
  private async match(lookup: DeviceLookup): Promise<DeviceRecord> {
    const candidates = await this.store.findCandidates(lookup);
    if (candidates.length > 1) {
      throw ErrMultipleEndDevices.with({ count: candidates.length, device_ids: candidates.map((c) => c.ids.device_id).sort() });
    }
    const [found] = candidates;
    const agrees =
      found !== undefined &&
      found.ids.device_id === lookup.device_id &&
      (!lookup.dev_eui || found.ids.dev_eui === lookup.dev_eui) &&
      (!lookup.join_eui || found.ids.join_eui === lookup.join_eui) &&
      (!lookup.dev_addr || found.ids.dev_addr === lookup.dev_addr);
    if (!agrees) throw this.policy.errors.notFound.with({ device_uid: `${lookup.application_id}.${lookup.device_id}` });
    return found;
  }

  /** A Set request's EndDevice as plain JSON and its paths, checked against the registry's allowed paths. */
  private setInput({ end_device, field_mask }: SetEndDeviceRequest): SetInput {
    const paths = canonicalEndDevicePaths(field_mask?.paths ?? []);
    checkFieldMaskPaths(paths, this.policy.allowedSetPaths);
    // Boundary (the decoded request): the validated EndDevice as the plain JSON document the registry merges.
    return { request: plainJson(end_device) as unknown as Device, paths, maskPaths: [...(field_mask?.paths ?? [])] };
  }

  /**
   * A Set validated and completed by the registry's rules, creating the device when `existing` is
   * absent, else updating it: the record to write (keys sealed), nothing written yet. Synchronous,
   * so a batch prepares all of its devices inside its transaction.
   */
  private prepareSet(existing: DeviceRecord | undefined, { request, paths }: SetInput): PreparedSet {
    if (!existing) {
      const ids: DeviceIds = { device_id: request.ids.device_id, application_ids: { application_id: request.ids.application_ids.application_id } };
      if (request.ids.dev_eui) ids.dev_eui = request.ids.dev_eui;
      if (request.ids.join_eui) ids.join_eui = request.ids.join_eui;
      let device = this.applyRequest({ ids } as Device, request, paths);
      const viewPaths = [...paths, ...this.copyOnCreate(device, request)];
      device = this.keepStored(asJson(this.policy.complete(asTyped<T>(device), { created: true, paths: viewPaths, request })));
      const now = nowTimestamp();
      device = { ...device, created_at: now, updated_at: now };
      return { record: toRecord(device, 1, this.keys, this.keyEnvelopes), device, viewPaths };
    }
    for (const id of ['dev_eui', 'join_eui'] as const) {
      const given = request.ids[id];
      if (given !== undefined && given !== existing.ids[id]) throw this.policy.errors.readOnlyField.with({ field: `ids.${id}` });
    }
    const previous = toDevice(existing);
    let device = this.applyRequest(previous, request, paths);
    device = this.keepStored(asJson(this.policy.complete(asTyped<T>(device), { created: false, paths, request, previous: asTyped<T>(previous) })));
    device = { ...device, created_at: existing.created_at, updated_at: nowTimestamp() };
    return { record: toRecord(device, existing.revision + 1, this.keys, this.keyEnvelopes), device, viewPaths: paths };
  }

  /** Writes a prepared Set of one device: false when the round lost a race and must be retried. */
  private async write({ record }: PreparedSet, existing: DeviceRecord | undefined): Promise<boolean> {
    if (existing) {
      const result = await this.store.replace(record);
      if (result === 'euis') throw euisTaken(record.ids, undefined);
      return result === 'ok';
    }
    const result = await this.store.create(record);
    if (result.ok) return true;
    if (result.conflict === 'id') return false; // Created concurrently: the next round updates it.
    throw euisTaken(record.ids, result.holder);
  }

  /** The event of a written Set: create, or update with the request's mask paths. */
  private published({ record }: PreparedSet, { maskPaths }: SetInput, ctx: RpcContext): void {
    if (record.revision === 1) this.events.publish(this.policy.events.create, deviceIdentifiers(record.ids), { ctx });
    else this.events.publish(this.policy.events.update, deviceIdentifiers(record.ids), { ctx, data: maskPaths });
  }

  /**
   * The error of a batch whose JoinEUI + DevEUI are taken: the first request whose EUIs another
   * device holds (a stored one, or one of an earlier request) with its index. A stored device's
   * EUIs never change, so an update keeps its own.
   */
  private async takenEuisError(applicationId: string, inputs: readonly SetInput[]): Promise<StackError> {
    const claimed = new Map<string, DeviceIds>();
    for (const [index, { request }] of inputs.entries()) {
      const { device_id } = request.ids;
      const stored = await this.store.get(applicationId, device_id);
      const euis = stored ? stored.ids : request.ids;
      if (!euis.join_eui || !euis.dev_eui) continue;
      const key = `${euis.join_eui}:${euis.dev_eui}`;
      const holders = (await this.store.findByEuis(euis.join_eui, euis.dev_eui)).map((r) => r.ids);
      const holder =
        holders.find((ids) => ids.device_id !== device_id || ids.application_ids.application_id !== applicationId) ?? (stored ? undefined : claimed.get(key));
      if (holder) return atIndexError(index, euisTaken(euis, holder));
      claimed.set(key, { device_id, application_ids: { application_id: applicationId } });
    }
    return euisTaken({}, undefined); // Taken by a device written meanwhile and gone again.
  }

  /**
   * The request's masked paths onto `target` (identifiers are not set through the mask). A key
   * replaces its whole envelope, never one leaf of what is stored: a stored envelope may hold the
   * key wrapped (`kek_label`, `encrypted_key`), which must not linger beside a new key. So a masked
   * `<envelope>.key` sets the envelope to the request's key (or removes it when the request has
   * none), and any envelope that ends up with a plain key holds only that key.
   */
  private applyRequest(target: Device, request: Device, paths: readonly string[]): Device {
    const device = applyFields(
      target,
      request,
      paths.filter((p) => !ID_PATHS.has(p)),
    );
    for (const envelopePath of this.keyEnvelopes) {
      const keyOnly = paths.includes(`${envelopePath}.key`) && !hasAnyField(paths, envelopePath);
      const key = (getPath(keyOnly ? request : device, partsOf(envelopePath)) as KeyEnvelopeJson | undefined)?.key;
      if (key) setPath(device, partsOf(envelopePath), { key });
      else if (keyOnly) deletePath(device, partsOf(envelopePath));
    }
    return device;
  }

  /** Fills absent Copy fields from the template of the request's version_ids, else the profile; returns the paths it filled. */
  private copyOnCreate(device: Device, request: Device): string[] {
    const added = copyOnCreate(device, this.policy.copyFields, this.copy.template(request.version_ids), this.copy.profile());
    Object.assign(device, added);
    return Object.keys(added);
  }

  private keepStored(device: Device): Device {
    return this.selectStored(device) as Device;
  }

  /** What a reader gets: ids plus the masked paths, with the masked keys opened. */
  private view(device: Device, paths: readonly string[]): JsonObject {
    const presented = this.policy.present ? asJson(this.policy.present(asTyped<T>(device))) : device;
    const opened = this.keyEnvelopes.filter((envelopePath) => hasAnyField(paths, `${envelopePath}.key`));
    if (opened.length === 0) return cloneJson(selectFields(presented, ['ids', ...paths]));
    // The envelopes to open whole (a sealed one has no `key` yet), opened, then the paths asked for.
    const shown = cloneJson(selectFields(presented, ['ids', ...paths, ...opened]));
    for (const envelopePath of opened) {
      const envelope = getPath(shown, partsOf(envelopePath)) as KeyEnvelopeJson | undefined;
      if (envelope) setPath(shown, partsOf(envelopePath), this.keys.open(envelope));
    }
    return selectFields(shown, ['ids', ...paths]);
  }
}

function euisTaken(ids: { join_eui?: string; dev_eui?: string }, holder: DeviceIds | undefined): StackError {
  return ErrEndDeviceEUIsTaken.with({
    join_eui: ids.join_eui ?? '',
    dev_eui: ids.dev_eui ?? '',
    device_id: holder?.device_id ?? '',
    application_id: holder?.application_ids.application_id ?? '',
  });
}

/** `fn`'s result, or its error naming the batch request it is about (see `atIndexError`). */
function atIndex<T>(index: number, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw err instanceof StackError ? atIndexError(index, err) : err;
  }
}

/** The error of batch request `index`, naming `requests[<index>]` (see `batchItemError`). */
function atIndexError(index: number, err: StackError): StackError {
  return batchItemError(err, { field: 'requests', index, message: 'BatchSetEndDevicesRequest' });
}

/** A field of a batch request the batch refuses (its application, its uniqueness). */
function batchFieldError(field: string, reason: string): StackError {
  return ErrValidation.with({ field, name: 'SetEndDeviceRequestValidationError', reason });
}

/** A device's identifiers as events carry them (`ttn.lorawan.v3.EndDeviceIdentifiers`). */
function identifiersOf(ids: DeviceIds): unknown {
  return (deviceIdentifiers(ids) as { device_ids: unknown }).device_ids;
}

function lookupOf(ids: DeleteEndDeviceRequest): DeviceLookup {
  return { application_id: ids.application_ids.application_id, device_id: ids.device_id, dev_eui: ids.dev_eui, join_eui: ids.join_eui, dev_addr: ids.dev_addr };
}

/**
 * The two boundaries between the registry's JSON documents and its policy's device type `T`: what
 * the registry stores of a device is exactly what its policy completed and its data plane wrote
 * (a `T`), checked by the policy on every Set; and every `T` is a JSON document.
 */
function asTyped<T extends StoredDevice>(device: Device): T {
  return device as unknown as T;
}

function asJson(device: StoredDevice): Device {
  return device as Device;
}

/**
 * The device of a record (its identifiers copied: the record's are what a write compares with).
 * The store hands out fresh records, so their objects are reused, not copied (applyFields and view
 * copy what they change).
 */
function toDevice(record: DeviceRecord): Device {
  return { ...record.fields, ids: cloneJson(record.ids), created_at: record.created_at, updated_at: record.updated_at };
}

/**
 * The record of a device, its key envelopes sealed. The device is not changed: only the objects
 * on the way to an envelope are copied (a device carries tens of kilobytes of MAC state and
 * recent uplinks, written on every uplink; cloning it all would be most of a write's cost).
 */
function toRecord(device: Device, revision: number, keys: KeySealer, envelopes: readonly string[]): DeviceRecord {
  const { ids, created_at, updated_at, ...rest } = device;
  let fields: JsonObject = rest;
  for (const envelopePath of envelopes) {
    const parts = partsOf(envelopePath);
    const envelope = getPath(fields, parts) as KeyEnvelopeJson | undefined;
    if (envelope) fields = withPath(fields, parts, keys.seal(envelope));
  }
  return { ids: cloneJson(ids), created_at: created_at ?? '', updated_at: updated_at ?? '', revision, fields };
}

/** `root` with `value` at `parts`: the objects along the path copied, the rest shared. */
function withPath(root: JsonObject, parts: readonly string[], value: unknown): JsonObject {
  const [head, ...tail] = parts;
  const child = root[head];
  return { ...root, [head]: tail.length === 0 ? value : withPath(child && typeof child === 'object' ? (child as JsonObject) : {}, tail, value) };
}

/** The session DevAddrs of a record (current and pending): the keys `bySessionDevAddr` finds it by. */
function sessionDevAddrsOf(record: DeviceRecord): string[] {
  const pending = (record.fields.pending_session as { dev_addr?: unknown } | undefined)?.dev_addr;
  return [record.ids.dev_addr, typeof pending === 'string' ? pending : undefined].filter((devAddr): devAddr is string => !!devAddr);
}

/** A record's application and device ID: the key `stored` finds it by. */
function deviceKeyOf(record: DeviceRecord): string[] {
  return [deviceUid(record.ids)];
}

/**
 * The latest record per key (the session DevAddrs of a device, or its application and device ID:
 * `keysOf`), least recently used first out. A record is only ever reused at the revision the store
 * still has (the store compares), so an entry another writer outdated costs nothing but its
 * memory. Records are shared, never changed: with `freeze` (NODE_ENV=test) they are frozen, so a
 * change in place fails the tests that make it.
 */
class RecordCache {
  private readonly byKey = new Map<string, DeviceRecord>();

  constructor(
    private readonly size: number,
    private readonly freeze: boolean,
    private readonly keysOf: (record: DeviceRecord) => string[],
  ) {}

  get(key: string): DeviceRecord | undefined {
    const record = this.byKey.get(key);
    if (record) {
      this.byKey.delete(key);
      this.byKey.set(key, record);
    }
    return record;
  }

  remember(record: DeviceRecord): void {
    if (this.freeze) deepFreeze(record);
    for (const key of this.keysOf(record)) {
      this.byKey.delete(key);
      this.byKey.set(key, record);
    }
    while (this.byKey.size > this.size) this.byKey.delete(this.byKey.keys().next().value as string);
  }

  /** Drops what is remembered of a deleted device. */
  forget(record: DeviceRecord): void {
    const { device_id, application_ids } = record.ids;
    for (const key of this.keysOf(record)) {
      const known = this.byKey.get(key);
      if (known && known.ids.device_id === device_id && known.ids.application_ids.application_id === application_ids.application_id) this.byKey.delete(key);
    }
  }
}

function deepFreeze(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const child of Object.values(value)) deepFreeze(child);
}
