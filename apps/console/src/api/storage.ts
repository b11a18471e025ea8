import { ApiError, apiUrl, authHeaders, get } from './client';
import { NdjsonSplitter } from './ndjson';

/** The Storage Integration's package name (an association with it turns storage on). */
export const STORAGE_PACKAGE = 'storage-integration';

/** A stored uplink as the device page lists it. */
export interface StoredUplink {
  received_at: string;
  f_port?: number;
  f_cnt?: number;
  frm_payload?: string;
  decoded_payload?: unknown;
}

interface StoredUp {
  received_at?: string;
  uplink_message?: { f_port?: number; f_cnt?: number; frm_payload?: string; decoded_payload?: unknown };
}

type StreamMessage = { result?: StoredUp; error?: { code?: number; message?: string; details?: [] } };

/**
 * The messages of a storage stream (`{"result": …}` per line; an `{"error": …}` line, which ends a
 * stream that broke after it started, is thrown as the API's error).
 */
export function parseStoredUplinks(bytes: Uint8Array): StoredUplink[] {
  const splitter = new NdjsonSplitter();
  const out: StoredUplink[] = [];
  for (const message of [...splitter.push(bytes), ...splitter.end()] as StreamMessage[]) {
    if (message.error) throw new ApiError(200, message.error.code, message.error.message ?? 'stream error', message.error.details ?? []);
    const up = message.result;
    if (!up?.uplink_message) continue;
    const { f_port, f_cnt, frm_payload, decoded_payload } = up.uplink_message;
    out.push({ received_at: up.received_at ?? '', f_port, f_cnt, frm_payload, decoded_payload });
  }
  return out;
}

/** A device's stored uplinks, newest first (`GET …/devices/{dev}/packages/storage/uplink_message`). */
export async function loadStoredUplinks(app: string, dev: string, limit = 50): Promise<StoredUplink[]> {
  const path = `/as/applications/${encodeURIComponent(app)}/devices/${encodeURIComponent(dev)}/packages/storage/uplink_message`;
  const res = await fetch(apiUrl(path, { limit, order: '-received_at' }), { headers: authHeaders() });
  if (!res.ok) throw await ApiError.from(res);
  return parseStoredUplinks(new Uint8Array(await res.arrayBuffer()));
}

interface Associations {
  defaults?: Array<{ package_name?: string }>;
  associations?: Array<{ package_name?: string }>;
}

/**
 * Whether the Storage Integration stores the device's messages: a default association of its
 * application or an association of the device with `storage-integration` (any FPort). Reading
 * associations needs RIGHT_APPLICATION_SETTINGS_PACKAGES: without it, `undefined` (unknown).
 */
export async function storageEnabled(app: string, dev: string): Promise<boolean | undefined> {
  const a = encodeURIComponent(app);
  const paths = [`/as/applications/${a}/packages/associations`, `/as/applications/${a}/devices/${encodeURIComponent(dev)}/packages/associations`];
  try {
    const lists = await Promise.all(paths.map((p) => get<Associations>(p, { field_mask: 'package_name', limit: 1000 })));
    return lists.some((l) => [...(l.defaults ?? []), ...(l.associations ?? [])].some((x) => x.package_name === STORAGE_PACKAGE));
  } catch (err) {
    if (err instanceof ApiError && err.status === 403) return undefined;
    throw err;
  }
}
