import type { ApiClient, ApiResponse, Http } from '../client';
import { ApiError } from '../errors';
import { devicePath, devicesPath, type RegistryName } from '../registries';
import { type DeviceRef, type JsonObject, mergeAll, planRegistration, type SetAllowedPaths } from '../split';

export interface RollbackReport {
  /** Registries the device was deleted from (404 = was not there, counted as done). */
  deleted: RegistryName[];
  /** Registries where the delete failed: the device is left there. */
  failed: Array<{ registry: RegistryName; error: ApiError }>;
}

/** A registration that failed at `step`; what it had created was rolled back as reported. */
export class RegistrationError extends Error {
  constructor(
    readonly ref: DeviceRef,
    readonly step: RegistryName,
    readonly error: ApiError,
    readonly rollback: RollbackReport,
  ) {
    super(error.message);
  }
}

/** Deletes the device from the given registries in reverse order, as the spec orders deletion. */
export async function rollBack(client: Http, ref: DeviceRef, created: readonly RegistryName[]): Promise<RollbackReport> {
  const report: RollbackReport = { deleted: [], failed: [] };
  for (const registry of [...created].reverse()) {
    try {
      await client.delete(devicePath(registry, ref));
      report.deleted.push(registry);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      if (err.notFound) report.deleted.push(registry);
      else report.failed.push({ registry, error: err });
    }
  }
  return report;
}

/**
 * Registers a device: IS Create, JS Set (OTAA), NS Set, AS Set, in that order, each step only
 * after the previous one succeeded. On a failure, deletes what the earlier steps created and
 * throws a RegistrationError. Returns the registries' answers merged into one device, and the
 * registries it was registered in.
 */
export async function registerDevice(
  client: ApiClient,
  device: JsonObject,
  ref: DeviceRef,
  allowed: SetAllowedPaths,
): Promise<{ device: JsonObject; registries: RegistryName[] }> {
  const plan = planRegistration(device, allowed);
  const steps: Array<{ registry: RegistryName; send: () => Promise<ApiResponse> }> = [
    { registry: 'IS', send: () => client.post(devicesPath('IS', ref.applicationId), plan.is) },
  ];
  const js = plan.js;
  if (js) steps.push({ registry: 'JS', send: () => client.put(devicePath('JS', ref), js) });
  steps.push({ registry: 'NS', send: () => client.put(devicePath('NS', ref), plan.ns) });
  steps.push({ registry: 'AS', send: () => client.put(devicePath('AS', ref), plan.as) });

  const created: RegistryName[] = [];
  const parts: JsonObject[] = [];
  for (const step of steps) {
    try {
      parts.push((await step.send()).body);
      created.push(step.registry);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      // A Set that got no answer may have been applied: undo it too (Set is an upsert and the IS
      // step succeeded, so the device is ours). Never for the IS: a failed Create may mean the
      // device already existed, and then it is somebody else's.
      const undo = step.registry !== 'IS' && err.outcomeUnknown ? [...created, step.registry] : created;
      throw new RegistrationError(ref, step.registry, err, await rollBack(client, ref, undo));
    }
  }
  return { device: mergeAll(parts), registries: created };
}
