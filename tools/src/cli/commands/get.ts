import type { Http } from '../client';
import { ApiError } from '../errors';
import { devicePath, getMask, type RegistryName } from '../registries';
import { type DeviceRef, type JsonObject, mergeAll } from '../split';

/** Get masks of the JS, NS and AS, comma-separated. */
export type PartMasks = Record<'JS' | 'NS' | 'AS', string>;

/** The device as one registry has it, or undefined when it is not registered there (404). */
async function getPart(client: Http, registry: RegistryName, ref: DeviceRef, mask: string): Promise<JsonObject | undefined> {
  try {
    return (await client.get(`${devicePath(registry, ref)}?field_mask=${mask}`)).body;
  } catch (err) {
    if (err instanceof ApiError && err.notFound) return undefined;
    throw err;
  }
}

/**
 * The device merged from all registries (IS, JS, NS, AS, earlier ones winning conflicts). The IS
 * must have it (its 404 is the answer); the others may not (an ABP device has no JS part).
 * `isPart` skips the IS request when the caller already has the IS view (List). `masks` replaces
 * the Get masks of the JS, NS and AS (the export's, without key material).
 */
export async function getDevice(client: Http, ref: DeviceRef, isPart?: JsonObject, masks?: PartMasks): Promise<JsonObject> {
  const is = isPart ?? (await client.get(`${devicePath('IS', ref)}?field_mask=${getMask('IS')}`)).body;
  const others = await Promise.all((['JS', 'NS', 'AS'] as const).map((registry) => getPart(client, registry, ref, masks?.[registry] ?? getMask(registry))));
  return mergeAll([is, ...others]);
}
