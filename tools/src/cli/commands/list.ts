import type { Http } from '../client';
import { mapConcurrent } from '../concurrency';
import { devicesPath, listMask } from '../registries';
import { isObject, type JsonObject } from '../split';
import { getDevice, type PartMasks } from './get';

/** Per-device requests in flight at once while listing. */
const CONCURRENCY = 8;

export interface ListOptions {
  limit?: number;
  page?: number;
  /** The JS, NS and AS Get masks (default: every top-level path). */
  masks?: PartMasks;
}

export interface ListResult {
  end_devices: JsonObject[];
  /** The IS's `X-Total-Count`: devices in the application, all pages. */
  total: number | undefined;
}

/** One page of the IS List, each device completed with its JS, NS and AS parts. */
export async function listDevices(client: Http, applicationId: string, options: ListOptions): Promise<ListResult> {
  let query = `?field_mask=${listMask()}`;
  if (options.limit !== undefined) query += `&limit=${options.limit}`;
  if (options.page !== undefined) query += `&page=${options.page}`;
  const res = await client.get(devicesPath('IS', applicationId) + query);
  // TTS answers `{}` rather than an empty list.
  const listed = Array.isArray(res.body.end_devices) ? res.body.end_devices.filter(isObject) : [];
  const end_devices = await mapConcurrent(listed, CONCURRENCY, (isPart) => {
    const deviceId = isObject(isPart.ids) ? isPart.ids.device_id : undefined;
    return getDevice(client, { applicationId, deviceId: String(deviceId) }, isPart, options.masks);
  });
  const total = res.headers.get('x-total-count');
  return { end_devices, total: total === null ? undefined : Number(total) };
}
