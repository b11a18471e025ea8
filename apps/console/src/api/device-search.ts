import { api } from './client';
import { devicePath, type EndDevice } from './devices';

export interface DevicePage {
  devices: EndDevice[];
  /** X-Total-Count: the application's devices, or a search's matches. */
  total: number;
}

export interface DevicePageRequest {
  /** Empty: the plain List. Otherwise TTS's end device search with `query` (ID, name, description or EUI contains it, any case). */
  search: string;
  fieldMask: string;
  order: string;
  limit: number;
  page: number;
}

/** The IS search route (TTS `EndDeviceRegistrySearch.SearchEndDevices`). */
export const deviceSearchPath = (app: string): string => `/search/applications/${encodeURIComponent(app)}/devices`;

/** One page of an application's devices, ordered, with the total: the IS List, or its search when there is a term. */
export async function loadDevicePage(app: string, { search, fieldMask, order, limit, page }: DevicePageRequest): Promise<DevicePage> {
  const term = search.trim();
  const path = term ? deviceSearchPath(app) : devicePath('is', app);
  const res = await api<{ end_devices?: EndDevice[] }>('GET', path, { query: { field_mask: fieldMask, order, limit, page, query: term || undefined } });
  return { devices: res.body.end_devices ?? [], total: Number(res.headers.get('x-total-count') ?? 0) };
}
