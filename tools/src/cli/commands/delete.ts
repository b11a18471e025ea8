import type { ApiClient } from '../client';
import { ApiError } from '../errors';
import { devicePath, type RegistryName } from '../registries';
import type { DeviceRef } from '../split';

/**
 * Deletes a device in the reverse of the registration order: AS, NS, JS (absent there is fine:
 * an ABP device has no JS part), then the IS, whose 404 means there was no such device. Stops at
 * the first other failure, so the IS entry survives while parts remain elsewhere. Returns the
 * registries it was deleted from.
 */
export async function deleteDevice(client: ApiClient, ref: DeviceRef): Promise<RegistryName[]> {
  const deleted: RegistryName[] = [];
  for (const registry of ['AS', 'NS', 'JS'] as const) {
    try {
      await client.delete(devicePath(registry, ref));
      deleted.push(registry);
    } catch (err) {
      if (!(err instanceof ApiError && err.notFound)) throw err;
    }
  }
  await client.delete(devicePath('IS', ref));
  deleted.push('IS');
  return deleted;
}
