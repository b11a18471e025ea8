/**
 * Helpers for the JS / NS / AS end-device registry e2e suite: routes, unique identifiers and key
 * material, typical device bodies per registry, and a small client that builds Set / Get / Delete
 * requests the way TTS clients send them (wire contract §0, §2.1, §3).
 */
import { randomBytes } from 'node:crypto';
import { expect } from '@jest/globals';
import { SimulatedOtaaDevice } from '@lorawan/testing';
import { type Api, type ApiResponse, expectStatus } from './http-client';

export type Registry = 'js' | 'ns' | 'as';
export const REGISTRIES: readonly Registry[] = ['js', 'ns', 'as'];

/** Error namespace of each registry's own errors (device_not_found, field_value, read_only_field). */
export const NAMESPACE: Record<Registry, string> = {
  js: 'pkg/joinserver',
  ns: 'pkg/networkserver',
  as: 'pkg/applicationserver',
};

export const registryDevicesPath = (c: Registry, app: string) => `/api/v3/${c}/applications/${app}/devices`;
export const registryDevicePath = (c: Registry, app: string, dev: string) => `${registryDevicesPath(c, app)}/${dev}`;
export const isDevicesPath = (app: string) => `/api/v3/applications/${app}/devices`;
export const isDevicePath = (app: string, dev: string) => `${isDevicesPath(app)}/${dev}`;

// ------------------------------------------------------------------------------------------------
// Unique identifiers and key material

let counter = 0;
const run = randomBytes(2).toString('hex');

/** A device or application ID unique within this test run: `<prefix>-<run>-<n>` (ID pattern, ≤ 36). */
export function uid(prefix: string): string {
  counter += 1;
  return `${prefix}-${run}${counter.toString(36)}`;
}

/** Random non-zero bytes as upper-case hex (the canonical JSON form of EUIs, DevAddrs and keys). */
function randomHex(bytes: number): string {
  for (;;) {
    const b = randomBytes(bytes);
    if (b.some((x) => x !== 0)) return b.toString('hex').toUpperCase();
  }
}

export const randomEui = () => randomHex(8);
/** A DevAddr in the experimental range (NetID type 0 / 1: 0x00–0x03 prefix), as the seed suggests for manual ABP. */
export const randomDevAddr = () => `0${randomBytes(1)[0] % 4}${randomHex(3)}`;
export const randomKey = () => randomHex(16);
export const ZERO_EUI = '0000000000000000';
export const ZERO_DEV_ADDR = '00000000';
export const ZERO_KEY = '00000000000000000000000000000000';

/** Hex → standard base64, to exercise the "hex or base64" input rule. */
export const hexToBase64 = (hex: string) => Buffer.from(hex, 'hex').toString('base64');

// ------------------------------------------------------------------------------------------------
// Typical devices per registry

export interface DeviceIds {
  device_id: string;
  application_ids?: { application_id: string };
  dev_eui?: string;
  join_eui?: string;
  dev_addr?: string;
}

export type EndDeviceJson = Record<string, unknown> & { ids?: Partial<DeviceIds> };

/** A device body with the field-mask paths to set it with. */
export interface DeviceBody {
  device: EndDeviceJson;
  paths: string[];
}

/** A device body, and what a Get of its paths returns (besides `ids`). */
export interface Sample extends DeviceBody {
  expected: Record<string, unknown>;
}

/** OTAA identifiers with fresh random EUIs. */
export function otaaIds(device_id: string): DeviceIds {
  return { device_id, dev_eui: randomEui(), join_eui: randomEui() };
}

/** The fields every NS device needs (known frequency plan, versions, activation mode). */
export const NS_OTAA = {
  frequency_plan_id: 'EU_863_870',
  lorawan_version: 'MAC_V1_0_3',
  lorawan_phy_version: 'PHY_V1_0_3_REV_A',
  supports_join: true,
} as const;
export const NS_OTAA_PATHS = Object.keys(NS_OTAA);

/** A valid device for registry `c` with some registry-owned fields set. */
export function sampleDevice(c: Registry, ids: DeviceIds): Sample {
  switch (c) {
    case 'js': {
      const fields = {
        network_server_address: 'ns.example.com',
        application_server_address: 'as.example.com:8884',
        net_id: '000013',
        resets_join_nonces: true,
      };
      return { device: { ids, ...fields }, paths: Object.keys(fields), expected: fields };
    }
    case 'ns':
      return { device: { ids, ...NS_OTAA }, paths: [...NS_OTAA_PATHS], expected: { ...NS_OTAA } };
    case 'as': {
      const fields = { formatters: { up_formatter: 'FORMATTER_CAYENNELPP', down_formatter: 'FORMATTER_CAYENNELPP' } };
      return { device: { ids, ...fields }, paths: ['formatters'], expected: fields };
    }
  }
}

/** A change of registry-owned fields for an existing sample device (applied with `paths`). */
export function sampleUpdate(c: Registry): Sample {
  switch (c) {
    case 'js': {
      const fields = { application_server_id: 'as-id-2', network_server_address: 'ns2.example.com' };
      return { device: fields, paths: Object.keys(fields), expected: fields };
    }
    case 'ns': {
      const fields = { frequency_plan_id: 'EU_863_870_TTN', supports_class_c: true };
      return { device: fields, paths: Object.keys(fields), expected: fields };
    }
    case 'as': {
      const up_formatter_parameter = 'function decodeUplink(input) { return { data: { n: input.bytes.length } }; }';
      return {
        device: { formatters: { up_formatter: 'FORMATTER_JAVASCRIPT', up_formatter_parameter } },
        paths: ['formatters.up_formatter', 'formatters.up_formatter_parameter'],
        expected: { formatters: { up_formatter: 'FORMATTER_JAVASCRIPT', up_formatter_parameter, down_formatter: 'FORMATTER_CAYENNELPP' } },
      };
    }
  }
}

/** An ABP NS device (MAC 1.0.3 unless given) with a session: DevAddr, FNwkSIntKey and a session key ID. */
export function abpNsDevice(ids: DeviceIds, devAddr: string, fNwkSIntKey: string, extra: Record<string, unknown> = {}): DeviceBody {
  const device = {
    ids,
    frequency_plan_id: 'EU_863_870',
    lorawan_version: 'MAC_V1_0_3',
    lorawan_phy_version: 'PHY_V1_0_3_REV_A',
    supports_join: false,
    session: { dev_addr: devAddr, keys: { session_key_id: 'AQID', f_nwk_s_int_key: { key: fNwkSIntKey } } },
    ...extra,
  };
  return {
    device,
    paths: [
      'frequency_plan_id',
      'lorawan_version',
      'lorawan_phy_version',
      'supports_join',
      'session.dev_addr',
      'session.keys.session_key_id',
      'session.keys.f_nwk_s_int_key.key',
      ...Object.keys(extra),
    ],
  };
}

/** An ABP AS device: DevAddr, AppSKey and a session key ID. */
export function abpAsDevice(ids: DeviceIds, devAddr: string, appSKey: string): DeviceBody {
  return {
    device: { ids, session: { dev_addr: devAddr, keys: { session_key_id: 'AQID', app_s_key: { key: appSKey } } } },
    paths: ['session.dev_addr', 'session.keys.session_key_id', 'session.keys.app_s_key.key'],
  };
}

/** An ABP device registered in the IS, the NS (a session; EU_863_870_TTN unless `ns` says) and the AS (its AppSKey). */
export async function registerAbpDevice(api: Api, reg: Registries, app: string, prefix: string, ns: Record<string, unknown> = {}) {
  const dev = uid(prefix);
  const ids = { device_id: dev, dev_eui: randomEui() };
  const devAddr = randomDevAddr();
  const keys = { nwkSKey: randomKey(), appSKey: randomKey() };
  expectOk(await api.post(isDevicesPath(app), { end_device: { ids: { ...ids, application_ids: { application_id: app } } } }), `IS Create ${app}/${dev}`);
  const nsDevice = abpNsDevice(ids, devAddr, keys.nwkSKey, { frequency_plan_id: 'EU_863_870_TTN', ...ns });
  await reg.setOk('ns', app, dev, nsDevice.device, nsDevice.paths);
  const asDevice = abpAsDevice(ids, devAddr, keys.appSKey);
  await reg.setOk('as', app, dev, asDevice.device, asDevice.paths);
  return { dev, ids, devAddr, keys };
}

// ------------------------------------------------------------------------------------------------
// Assertions on device JSON

/** Paths (`a.b[0].c`) of every `encrypted_key` or `kek_label` in a JSON value: wrapped key material must never reach the client. */
export function wrappedKeyFields(value: unknown, path = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => wrappedKeyFields(v, `${path}[${i}]`));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([k, v]) => {
    const here = path ? `${path}.${k}` : k;
    return [...(k === 'encrypted_key' || k === 'kek_label' ? [here] : []), ...wrappedKeyFields(v, here)];
  });
}

export function expectNoWrappedKeys(res: ApiResponse, what: string): void {
  const leaks = wrappedKeyFields(res.json);
  if (leaks.length > 0) throw new Error(`${what}: the response carries wrapped key fields ${leaks.join(', ')}: ${res.text.slice(0, 2000)}`);
}

/** The response text must not contain any of these (upper- or lower-case hex) keys. */
export function expectNoKeyMaterial(res: ApiResponse, keys: string[], what: string): void {
  for (const key of keys) {
    if (res.text.toUpperCase().includes(key.toUpperCase())) throw new Error(`${what}: key material ${key} leaked: ${res.text.slice(0, 2000)}`);
    if (res.text.includes(hexToBase64(key))) throw new Error(`${what}: key material ${key} leaked as base64: ${res.text.slice(0, 2000)}`);
  }
}

/** The top-level fields of a Get response, sorted. */
export const topLevel = (res: ApiResponse): string[] => Object.keys(res.json ?? {}).sort();

/** Status check that names the request in the failure. */
export function expectOk(res: ApiResponse, what: string): void {
  if (res.status !== 200) throw new Error(`${what}: expected HTTP 200, got HTTP ${res.status}: ${res.text.slice(0, 2000)}`);
}

// ------------------------------------------------------------------------------------------------
// Requests

export interface SetOptions {
  /** POST to the collection with the device ID in the body instead of PUT with the ID in the path. */
  post?: boolean;
  /** Send the mask as the string "a,b" instead of {"paths":[…]}. */
  stringMask?: boolean;
}

/** Set / Get / Delete of the JS, NS and AS registries. */
export class Registries {
  constructor(private readonly api: Api) {}

  /** Set with body `{"end_device": device, "field_mask": {"paths": paths}}`; `ids.device_id` defaults to `dev`. */
  set(c: Registry, app: string, dev: string, device: EndDeviceJson, paths: string[], options: SetOptions = {}): Promise<ApiResponse> {
    const end_device = { ...device, ids: { device_id: dev, ...device.ids } };
    const field_mask = options.stringMask ? paths.join(',') : { paths };
    if (options.post) return this.api.post(registryDevicesPath(c, app), { end_device, field_mask });
    return this.api.put(registryDevicePath(c, app, dev), { end_device, field_mask });
  }

  /** Set that must succeed. */
  async setOk(c: Registry, app: string, dev: string, device: EndDeviceJson, paths: string[], options?: SetOptions): Promise<ApiResponse> {
    const res = await this.set(c, app, dev, device, paths, options);
    expectOk(res, `${c.toUpperCase()} Set ${app}/${dev} [${paths.join(',')}]`);
    return res;
  }

  /** Get with `?field_mask=a,b` and extra query parameters (e.g. `end_device_ids.dev_eui`). */
  get(c: Registry, app: string, dev: string, paths: string[] = [], query: Record<string, string> = {}): Promise<ApiResponse> {
    const params = new URLSearchParams(query);
    if (paths.length > 0) params.set('field_mask', paths.join(','));
    const qs = params.toString().replace(/%2C/g, ',');
    return this.api.get(`${registryDevicePath(c, app, dev)}${qs ? `?${qs}` : ''}`);
  }

  /** Get that must succeed. */
  async getOk(c: Registry, app: string, dev: string, paths: string[] = [], query: Record<string, string> = {}): Promise<ApiResponse> {
    const res = await this.get(c, app, dev, paths, query);
    expectOk(res, `${c.toUpperCase()} Get ${app}/${dev} [${paths.join(',')}]`);
    return res;
  }

  /** Delete with extra identifiers as query parameters (`dev_eui`, `join_eui`, `dev_addr`). */
  delete(c: Registry, app: string, dev: string, query: Record<string, string> = {}): Promise<ApiResponse> {
    const qs = new URLSearchParams(query).toString();
    return this.api.delete(`${registryDevicePath(c, app, dev)}${qs ? `?${qs}` : ''}`);
  }

  /** Delete that must succeed with `{}`. */
  async deleteOk(c: Registry, app: string, dev: string, query: Record<string, string> = {}): Promise<void> {
    const res = await this.delete(c, app, dev, query);
    expectOk(res, `${c.toUpperCase()} Delete ${app}/${dev}`);
    expect(res.json).toEqual({});
  }
}

/**
 * An OTAA device (MAC 1.0.3, EU_863_870_TTN) registered in the IS, the JS (its AppKey), the NS and
 * the AS (with `upFormatter`), and its simulator (frames by lora-packet).
 */
export async function registerOtaaDevice(api: Api, app: string, upFormatter: string): Promise<{ dev: string; ids: DeviceIds; sim: SimulatedOtaaDevice }> {
  const reg = new Registries(api);
  const dev = uid('dev');
  const ids = { device_id: dev, dev_eui: randomEui(), join_eui: randomEui() };
  const appKey = randomKey();
  expectStatus(await api.post(isDevicesPath(app), { end_device: { ids: { ...ids, application_ids: { application_id: app } } } }), 200);
  await reg.setOk('js', app, dev, { ids, root_keys: { app_key: { key: appKey } } }, ['root_keys.app_key.key']);
  const ns = { ids, frequency_plan_id: 'EU_863_870_TTN', lorawan_version: 'MAC_V1_0_3', lorawan_phy_version: 'PHY_V1_0_3_REV_A', supports_join: true };
  await reg.setOk('ns', app, dev, ns, ['frequency_plan_id', 'lorawan_version', 'lorawan_phy_version', 'supports_join']);
  await reg.setOk('as', app, dev, { ids, formatters: { up_formatter: upFormatter } }, ['formatters']);
  const sim = new SimulatedOtaaDevice({ joinEui: ids.join_eui, devEui: ids.dev_eui, appKey, macVersion: 'MAC_V1_0_3' });
  return { dev, ids, sim };
}
