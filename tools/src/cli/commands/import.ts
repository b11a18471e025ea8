/**
 * `devices import`: registers the devices of a file in the IS, JS (OTAA), NS and AS, in the spec's
 * order per device, a chunk of devices at a time through the batch routes (`batch.ts`), a few
 * chunks in flight. A chunk goes IS create → JS set → NS set → AS set, each step for the devices
 * the previous one accepted. A device refused anywhere is reported (`import-report.ts`) and
 * deleted again from the registries it reached, as `devices register` rolls back.
 *
 * Resuming: before the first request the application's device IDs are listed from the IS. A line
 * whose device exists there with the line's EUIs is the work of an earlier run (or the same
 * device registered otherwise): present in the AS, the last step, it is complete and skipped;
 * otherwise it is completed (JS/NS/AS Set are upserts) or, failing that, deleted everywhere. A
 * line whose device ID exists with other EUIs is another device: the IS's refusal is reported
 * and the existing device left alone.
 */
import { decodeMessage, EndDevice } from '@lorawan/api';
import { StackError } from '@lorawan/errors';
import { type BatchRoute, type BatchState, type Outcome, sendBatched } from '../batch';
import type { Http } from '../client';
import { mapConcurrent } from '../concurrency';
import { type DeviceFormat, readDeviceFile } from '../device-file';
import { ApiError } from '../errors';
import { type ReportEntry, reportedApiError, reportedValidationError } from '../import-report';
import { batchPath, devicePath, devicesPath, type RegistryName } from '../registries';
import { type DeviceRef, isObject, type JsonObject, planRegistration, type RegistrationPlan, type SetAllowedPaths, type SetRequest } from '../split';
import { rollBack } from './register';

export interface ImportOptions {
  applicationId: string;
  path: string;
  format: DeviceFormat;
  /** Devices per batch request (the routes take 1..1000). */
  batchSize: number;
  /** Chunks of `batchSize` devices in flight at once. */
  concurrency: number;
}

export interface ImportSummary {
  /** Devices of the file (non-empty lines, less a CSV header). */
  lines: number;
  /** Registered in every registry by this run. */
  registered: number;
  /** Found half-registered (an earlier, interrupted run) and completed. */
  completed: number;
  /** Already registered in every registry: left as they were. */
  skipped: number;
  failed: number;
}

export interface DryRunSummary {
  lines: number;
  valid: number;
  failed: number;
}

export interface ImportSinks {
  report: { add(entry: ReportEntry): void };
  progress: { add(count: number): void };
}

/** The EUIs of a device the IS has, as listed. */
interface Existing {
  devEui: string;
  joinEui: string;
}

interface Entry {
  line: number;
  ref: DeviceRef;
  device: JsonObject;
  plan: RegistrationPlan;
  /** Registries that have the device (those this run set, or for a resumed device the IS). */
  reached: RegistryName[];
  /** Found in the IS at the start: completing it, and undoing it everywhere if that fails. */
  resumed: boolean;
}

/** IDs per IS List page while looking for devices already there. */
const LIST_PAGE = 1000;
/** AS Gets in flight at once while checking resumed devices. */
const CHECK_CONCURRENCY = 8;

/** An EUI for comparison: upper case, all zeros as absent. */
function eui(value: unknown): string {
  return typeof value === 'string' && !/^0*$/.test(value) ? value.toUpperCase() : '';
}

function euisOf(device: JsonObject): Existing {
  const ids = isObject(device.ids) ? device.ids : {};
  return { devEui: eui(ids.dev_eui), joinEui: eui(ids.join_eui) };
}

/** Device ID → EUIs of every device the IS has in the application now, page by page. */
export async function existingDevices(client: Http, applicationId: string): Promise<Map<string, Existing>> {
  const existing = new Map<string, Existing>();
  for (let page = 1; ; page++) {
    const res = await client.get(`${devicesPath('IS', applicationId)}?field_mask=ids&limit=${LIST_PAGE}&page=${page}`);
    const listed = Array.isArray(res.body.end_devices) ? res.body.end_devices.filter(isObject) : [];
    for (const device of listed) {
      const id = isObject(device.ids) ? device.ids.device_id : undefined;
      if (typeof id === 'string') existing.set(id, euisOf(device));
    }
    if (listed.length < LIST_PAGE) return existing;
  }
}

function answeredDevices(res: { body: JsonObject }): JsonObject[] {
  return Array.isArray(res.body.end_devices) ? res.body.end_devices.filter(isObject) : [];
}

/** The batch and single routes of one registration step. */
function routes(client: Http, applicationId: string): Record<RegistryName, BatchRoute<Entry>> {
  const set = (registry: 'JS' | 'NS' | 'AS', request: (e: Entry) => SetRequest | undefined): BatchRoute<Entry> => ({
    name: `${registry} set`,
    batch: async (entries) => answeredDevices(await client.put(batchPath(registry, applicationId), { requests: entries.map((e) => request(e)) })),
    single: async (e) => (await client.put(devicePath(registry, e.ref), request(e))).body,
  });
  return {
    IS: {
      name: 'IS create',
      batch: async (entries) => answeredDevices(await client.post(batchPath('IS', applicationId), { end_devices: entries.map((e) => e.plan.is.end_device) })),
      single: async (e) => (await client.post(devicesPath('IS', applicationId), e.plan.is)).body,
    },
    JS: set('JS', (e) => e.plan.js),
    NS: set('NS', (e) => e.plan.ns),
    AS: set('AS', (e) => e.plan.as),
  };
}

const ALL_REGISTRIES: readonly RegistryName[] = ['IS', 'JS', 'NS', 'AS'];

export class DeviceImporter {
  readonly summary: ImportSummary = { lines: 0, registered: 0, completed: 0, skipped: 0, failed: 0 };
  private readonly routes: Record<RegistryName, BatchRoute<Entry>>;
  private readonly batches: Record<RegistryName, BatchState> = {
    IS: { useBatch: true },
    JS: { useBatch: true },
    NS: { useBatch: true },
    AS: { useBatch: true },
  };

  constructor(
    private readonly client: Http,
    private readonly options: ImportOptions,
    private readonly allowed: SetAllowedPaths,
    private readonly sinks: ImportSinks,
    /** From `existingDevices`, listed before the run. */
    private readonly existing: ReadonlyMap<string, Existing>,
  ) {
    this.routes = routes(client, options.applicationId);
  }

  /** Imports the file; the summary counts every line, the report names every line not registered. */
  async run(): Promise<ImportSummary> {
    const inFlight = new Set<Promise<void>>();
    let failure: { error: unknown } | undefined;
    const launch = async (chunk: Entry[]) => {
      while (inFlight.size >= this.options.concurrency) await Promise.race(inFlight);
      if (failure) throw failure.error;
      const done: Promise<void> = this.importChunk(chunk)
        .catch((error: unknown) => {
          failure ??= { error };
        })
        .finally(() => inFlight.delete(done));
      inFlight.add(done);
    };
    let chunk: Entry[] = [];
    for await (const item of readDeviceFile(this.options.path, this.options.format, this.options.applicationId)) {
      this.summary.lines++;
      if ('error' in item) {
        this.fail({ line: item.line, device_id: item.deviceId, status: 'failed', error: { message: item.error } });
        continue;
      }
      chunk.push({ ...item, plan: planRegistration(item.device, this.allowed), reached: [], resumed: false });
      if (chunk.length >= this.options.batchSize) {
        await launch(chunk);
        chunk = [];
      }
    }
    if (chunk.length > 0) await launch(chunk);
    await Promise.all(inFlight);
    if (failure) throw failure.error;
    return this.summary;
  }

  /** One chunk through the four steps. */
  async importChunk(chunk: readonly Entry[]): Promise<void> {
    const fresh: Entry[] = [];
    const found: Entry[] = [];
    const others: Entry[] = [];
    for (const entry of chunk) {
      const existing = this.existing.get(entry.ref.deviceId);
      if (existing === undefined) fresh.push(entry);
      else {
        const euis = euisOf(entry.device);
        (existing.devEui === euis.devEui && existing.joinEui === euis.joinEui ? found : others).push(entry);
      }
    }
    const active = [...(await this.createInIs([...fresh, ...others])), ...(await this.checkFound(found))];
    await this.setIn('JS', active);
    await this.setIn('NS', active);
    await this.setIn('AS', active);
    for (const entry of active) {
      if (entry.resumed) this.summary.completed++;
      else this.summary.registered++;
    }
    this.sinks.progress.add(active.length);
  }

  /** IS Create of the chunk's new devices; returns those created. */
  private async createInIs(entries: Entry[]): Promise<Entry[]> {
    const outcomes = await sendBatched(entries, this.routes.IS, this.batches.IS);
    const created: Entry[] = [];
    entries.forEach((entry, i) => {
      const outcome = outcomes[i];
      if (outcome.ok) {
        entry.reached.push('IS');
        created.push(entry);
      } else {
        // Never rolled back: a refused create may mean the device is somebody else's.
        this.fail({ line: entry.line, device_id: entry.ref.deviceId, status: 'failed', registry: 'IS', error: reportedApiError(outcome.error) });
      }
    });
    return created;
  }

  /** Devices the IS had at the start with the line's EUIs: complete ones are skipped, the others returned to be completed. */
  private async checkFound(entries: Entry[]): Promise<Entry[]> {
    const toComplete: Entry[] = [];
    await mapConcurrent(entries, CHECK_CONCURRENCY, async (entry) => {
      try {
        await this.client.get(`${devicePath('AS', entry.ref)}?field_mask=ids`);
        this.sinks.report.add({
          line: entry.line,
          device_id: entry.ref.deviceId,
          status: 'skipped',
          error: { message: 'already registered in the IS and the AS, the last step (an earlier run): left as it is' },
        });
        this.summary.skipped++;
        this.sinks.progress.add(1);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        if (!err.notFound) {
          this.fail({ line: entry.line, device_id: entry.ref.deviceId, status: 'failed', registry: 'AS', error: reportedApiError(err) });
          return;
        }
        entry.reached.push('IS');
        entry.resumed = true;
        toComplete.push(entry);
      }
    });
    return toComplete;
  }

  /** One Set step for the active devices that have a request for it; refused ones leave `active`, rolled back. */
  private async setIn(registry: 'JS' | 'NS' | 'AS', active: Entry[]): Promise<void> {
    const step = registry === 'JS' ? 'js' : registry === 'NS' ? 'ns' : 'as';
    const subjects = active.filter((e) => e.plan[step] !== undefined);
    if (subjects.length === 0) return;
    const outcomes: Outcome[] = await sendBatched(subjects, this.routes[registry], this.batches[registry]);
    const refused: Array<{ entry: Entry; error: ApiError }> = [];
    subjects.forEach((entry, i) => {
      const outcome = outcomes[i];
      if (outcome.ok) entry.reached.push(registry);
      else refused.push({ entry, error: outcome.error });
    });
    await mapConcurrent(refused, CHECK_CONCURRENCY, async ({ entry, error }) => {
      active.splice(active.indexOf(entry), 1);
      // A Set without an answer may have been applied: undo it too. A resumed device may have
      // parts from the earlier run anywhere: undo it everywhere (a 404 counts as deleted).
      const undo = entry.resumed ? ALL_REGISTRIES : error.outcomeUnknown ? [...entry.reached, registry] : entry.reached;
      const rollback = await rollBack(this.client, entry.ref, undo);
      this.fail({
        line: entry.line,
        device_id: entry.ref.deviceId,
        status: 'failed',
        registry,
        error: reportedApiError(error),
        rolled_back: rollback.deleted,
        ...(rollback.failed.length > 0 ? { left_in: rollback.failed.map((f) => f.registry) } : {}),
      });
    });
  }

  private fail(entry: ReportEntry): void {
    this.sinks.report.add(entry);
    this.summary.failed++;
    this.sinks.progress.add(1);
  }
}

/** Imports the file into the application (listing what is there first, to resume). */
export async function importDevices(client: Http, options: ImportOptions, allowed: SetAllowedPaths, sinks: ImportSinks): Promise<ImportSummary> {
  const existing = await existingDevices(client, options.applicationId);
  return new DeviceImporter(client, options, allowed, sinks, existing).run();
}

function duplicateError(what: string, line: number): ReportEntry['error'] {
  return { message: `${what} already on line ${line} of the file` };
}

/**
 * `--dry-run`: parses and validates every line with the contract's EndDevice message, and finds
 * device IDs and EUI pairs given twice; sends nothing.
 */
export async function validateDevices(options: Pick<ImportOptions, 'applicationId' | 'path' | 'format'>, sinks: ImportSinks): Promise<DryRunSummary> {
  const summary: DryRunSummary = { lines: 0, valid: 0, failed: 0 };
  const ids = new Map<string, number>();
  const euis = new Map<string, number>();
  const fail = (entry: ReportEntry) => {
    sinks.report.add(entry);
    summary.failed++;
  };
  for await (const item of readDeviceFile(options.path, options.format, options.applicationId)) {
    summary.lines++;
    sinks.progress.add(1);
    if ('error' in item) {
      fail({ line: item.line, device_id: item.deviceId, status: 'failed', error: { message: item.error } });
      continue;
    }
    const deviceId = item.ref.deviceId;
    try {
      decodeMessage(EndDevice, item.device);
    } catch (err) {
      if (!(err instanceof StackError)) throw err;
      fail({ line: item.line, device_id: deviceId, status: 'failed', error: reportedValidationError(err) });
      continue;
    }
    const { devEui, joinEui } = euisOf(item.device);
    const pair = devEui ? `${joinEui}/${devEui}` : undefined;
    const idLine = ids.get(deviceId);
    const euiLine = pair === undefined ? undefined : euis.get(pair);
    if (idLine !== undefined) fail({ line: item.line, device_id: deviceId, status: 'failed', error: duplicateError(`device ID ${deviceId}`, idLine) });
    else if (euiLine !== undefined) fail({ line: item.line, device_id: deviceId, status: 'failed', error: duplicateError(`JoinEUI/DevEUI ${pair}`, euiLine) });
    else {
      ids.set(deviceId, item.line);
      if (pair !== undefined) euis.set(pair, item.line);
      summary.valid++;
    }
  }
  return summary;
}
