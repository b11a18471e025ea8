import { api, ApiError, get } from './client';

export type Registry = 'is' | 'js' | 'ns' | 'as';
export type EndDevice = Record<string, unknown> & {
  ids?: { device_id: string; dev_eui?: string; join_eui?: string; dev_addr?: string; application_ids?: { application_id: string } };
  name?: string;
  description?: string;
};

/** What the device page reads from each registry; keys only when the user asks (they need `…_READ_KEYS`). */
export const DEVICE_PATHS: Record<Registry, { fields: string[]; keys: string[] }> = {
  is: { fields: ['name', 'description', 'attributes', 'version_ids', 'created_at', 'updated_at'], keys: [] },
  js: { fields: ['resets_join_nonces', 'net_id', 'last_dev_nonce', 'last_join_nonce'], keys: ['root_keys'] },
  ns: {
    fields: [
      'frequency_plan_id',
      'lorawan_version',
      'lorawan_phy_version',
      'supports_join',
      'supports_class_b',
      'supports_class_c',
      'mac_settings',
      // The MAC state but a queued join-accept, which holds session keys (those need `…_READ_KEYS`).
      ...[
        'device_class',
        'lorawan_version',
        'current_parameters',
        'desired_parameters',
        'rx_windows_available',
        'pending_requests',
        'queued_responses',
        'ping_slot_periodicity',
        'last_confirmed_downlink_at',
        'last_dev_status_f_cnt_up',
        'last_downlink_at',
      ].map((field) => `mac_state.${field}`),
      'session.dev_addr',
      'session.last_f_cnt_up',
      'session.last_n_f_cnt_down',
      'session.started_at',
      'last_dev_status_received_at',
      'battery_percentage',
      'recent_uplinks',
    ],
    keys: ['session.keys', 'pending_session.keys'],
  },
  as: { fields: ['formatters', 'skip_payload_crypto', 'session.dev_addr', 'session.last_a_f_cnt_down'], keys: ['session.keys.app_s_key.key'] },
};

const PREFIX: Record<Registry, string> = { is: '', js: '/js', ns: '/ns', as: '/as' };

export const devicePath = (registry: Registry, app: string, dev?: string): string =>
  `${PREFIX[registry]}/applications/${encodeURIComponent(app)}/devices${dev === undefined ? '' : `/${encodeURIComponent(dev)}`}`;

/** One registry's answer: the device, not there (404), or the API's error (e.g. 403 for keys). */
export type Part = { device: EndDevice } | { missing: true } | { error: ApiError };

export interface MergedDevice {
  device: EndDevice;
  /** Which registry gave each top-level field. */
  sources: Record<string, Registry[]>;
  parts: Record<Registry, Part>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function deepMerge(into: Record<string, unknown>, from: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(from)) {
    const existing = into[k];
    if (isObject(existing) && isObject(v)) deepMerge(existing, v);
    else into[k] = isObject(v) ? structuredClone(v) : v;
  }
}

/** The device as the four registries hold it, merged in registration order (IS, JS, NS, AS), as TTS's Console shows it. */
export function mergeDevice(parts: Record<Registry, Part>): MergedDevice {
  const device: EndDevice = {};
  const sources: Record<string, Registry[]> = {};
  for (const registry of ['is', 'js', 'ns', 'as'] as const) {
    const part = parts[registry];
    if (!('device' in part)) continue;
    deepMerge(device, part.device);
    for (const field of Object.keys(part.device)) if (field !== 'ids') (sources[field] ??= []).push(registry);
  }
  return { device, sources, parts };
}

async function readPart(registry: Registry, app: string, dev: string, paths: string[]): Promise<Part> {
  try {
    return { device: await get<EndDevice>(devicePath(registry, app, dev), { field_mask: paths.join(',') }) };
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return { missing: true };
    if (err instanceof ApiError) return { error: err };
    throw err;
  }
}

/** The merged device; with `keys`, the registries are also asked for key material (a 403 comes back as that part's error). */
export async function loadDevice(app: string, dev: string, keys: boolean): Promise<MergedDevice> {
  const registries = ['is', 'js', 'ns', 'as'] as const;
  const parts = await Promise.all(
    registries.map((r) => readPart(r, app, dev, keys ? [...DEVICE_PATHS[r].fields, ...DEVICE_PATHS[r].keys] : DEVICE_PATHS[r].fields)),
  );
  const is = parts[0];
  if ('missing' in is) throw new ApiError(404, 5, `end device \`${dev}\` not found`);
  if ('error' in is) throw is.error;
  return mergeDevice({ is, js: parts[1], ns: parts[2], as: parts[3] });
}

export interface OtaaRegistration {
  activation?: 'otaa';
  device_id: string;
  dev_eui: string;
  join_eui: string;
  name: string;
  description: string;
  app_key: string;
  /** LoRaWAN 1.1 only: the network root key (the JS derives the network session keys from it). */
  nwk_key?: string;
  frequency_plan_id: string;
  lorawan_version: string;
  lorawan_phy_version: string;
  up_formatter: string;
}

/**
 * An ABP device: a DevAddr and session keys instead of a join. Before LoRaWAN 1.1 there is one
 * network session key (NwkSKey), sent as the FNwkSIntKey (the NS uses it as the other two); 1.1
 * has three. The DevEUI is optional.
 */
export interface AbpRegistration {
  activation: 'abp';
  device_id: string;
  dev_eui: string;
  dev_addr: string;
  name: string;
  description: string;
  f_nwk_s_int_key: string;
  s_nwk_s_int_key: string;
  nwk_s_enc_key: string;
  app_s_key: string;
  frequency_plan_id: string;
  lorawan_version: string;
  lorawan_phy_version: string;
  up_formatter: string;
}

export type Registration = OtaaRegistration | AbpRegistration;

type SetStep = { registry: Exclude<Registry, 'is'>; end_device: EndDevice; paths: string[] };

/** Hex digits of each hex field of the registration form. */
const HEX_DIGITS: Record<string, number> = {
  dev_eui: 16,
  join_eui: 16,
  app_key: 32,
  nwk_key: 32,
  dev_addr: 8,
  f_nwk_s_int_key: 32,
  s_nwk_s_int_key: 32,
  nwk_s_enc_key: 32,
  app_s_key: 32,
};

/** The hex fields a registration sends (ABP before 1.1: no SNwkSIntKey and NwkSEncKey; the DevEUI optional), with their values. */
function hexFields(r: Registration): Array<{ name: string; value: string; optional: boolean }> {
  const v11 = r.lorawan_version === 'MAC_V1_1';
  const field = (name: string, value: string) => ({ name, value, optional: r.activation === 'abp' && name === 'dev_eui' });
  return r.activation === 'abp'
    ? [
        field('dev_eui', r.dev_eui),
        field('dev_addr', r.dev_addr),
        field('f_nwk_s_int_key', r.f_nwk_s_int_key),
        ...(v11 ? [field('s_nwk_s_int_key', r.s_nwk_s_int_key), field('nwk_s_enc_key', r.nwk_s_enc_key)] : []),
        field('app_s_key', r.app_s_key),
      ]
    : [field('dev_eui', r.dev_eui), field('join_eui', r.join_eui), field('app_key', r.app_key), ...(v11 ? [field('nwk_key', r.nwk_key ?? '')] : [])];
}

/** The form's own check: each hex field it sends has its number of hex digits (the rest is the API's to judge). Field name → message; empty when valid. */
export function validateRegistration(r: Registration): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const { name, value: raw, optional } of hexFields(r)) {
    const digits = HEX_DIGITS[name];
    const value = raw.trim();
    if (optional && value === '') continue;
    if (!new RegExp(`^[0-9A-Fa-f]{${digits}}$`).test(value)) errors[name] = `${digits} hex digits`;
  }
  return errors;
}

/** A random session key ID (16 bytes, base64) for a new ABP session: the same in the NS and the AS. */
export function newSessionKeyId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes));
}

const hex = (v: string) => v.trim().toUpperCase();

/**
 * The writes of a registration, in the documented order (docs/http-api.md): IS create, then for OTAA the JS (root key),
 * NS and AS; for ABP (no JS) the NS with the session's DevAddr and network keys and the AS with the
 * AppSKey, both with the same session key ID.
 */
export function registrationSteps(app: string, r: Registration, sessionKeyId = newSessionKeyId()): { create: EndDevice; sets: SetStep[] } {
  const as = (ids: EndDevice['ids'], session?: Record<string, unknown>, sessionPaths: string[] = []): SetStep => ({
    registry: 'as',
    end_device: { ids, ...(session ? { session } : {}), formatters: { up_formatter: r.up_formatter } },
    paths: [...sessionPaths, 'formatters.up_formatter'],
  });
  const versions = { frequency_plan_id: r.frequency_plan_id, lorawan_version: r.lorawan_version, lorawan_phy_version: r.lorawan_phy_version };
  const versionPaths = ['frequency_plan_id', 'lorawan_version', 'lorawan_phy_version', 'supports_join'];
  if (r.activation === 'abp') {
    const dev_addr = hex(r.dev_addr);
    const ids = { device_id: r.device_id, application_ids: { application_id: app }, ...(r.dev_eui.trim() ? { dev_eui: hex(r.dev_eui) } : {}), dev_addr };
    const nwkKeys: Array<'f_nwk_s_int_key' | 's_nwk_s_int_key' | 'nwk_s_enc_key'> =
      r.lorawan_version === 'MAC_V1_1' ? ['f_nwk_s_int_key', 's_nwk_s_int_key', 'nwk_s_enc_key'] : ['f_nwk_s_int_key'];
    const keys: Record<string, unknown> = { session_key_id: sessionKeyId };
    for (const k of nwkKeys) keys[k] = { key: hex(r[k]) };
    return {
      create: { ids, name: r.name || undefined, description: r.description || undefined },
      sets: [
        {
          registry: 'ns',
          end_device: { ids, ...versions, supports_join: false, session: { dev_addr, keys } },
          paths: [...versionPaths, 'session.dev_addr', 'session.keys.session_key_id', ...nwkKeys.map((k) => `session.keys.${k}.key`)],
        },
        as(ids, { dev_addr, keys: { session_key_id: sessionKeyId, app_s_key: { key: hex(r.app_s_key) } } }, [
          'session.dev_addr',
          'session.keys.session_key_id',
          'session.keys.app_s_key.key',
        ]),
      ],
    };
  }
  const ids = { device_id: r.device_id, application_ids: { application_id: app }, dev_eui: hex(r.dev_eui), join_eui: hex(r.join_eui) };
  return {
    create: { ids, name: r.name || undefined, description: r.description || undefined },
    sets: [
      r.lorawan_version === 'MAC_V1_1'
        ? {
            registry: 'js',
            end_device: { ids, root_keys: { app_key: { key: hex(r.app_key) }, nwk_key: { key: hex(r.nwk_key ?? '') } } },
            paths: ['root_keys.app_key.key', 'root_keys.nwk_key.key'],
          }
        : { registry: 'js', end_device: { ids, root_keys: { app_key: { key: hex(r.app_key) } } }, paths: ['root_keys.app_key.key'] },
      { registry: 'ns', end_device: { ids, ...versions, supports_join: true }, paths: versionPaths },
      as(ids),
    ],
  };
}

const setIn = (registry: Exclude<Registry, 'is'>, app: string, dev: string, end_device: EndDevice, paths: string[]) =>
  api('PUT', devicePath(registry, app, dev), { body: { end_device, field_mask: { paths } } });

/** Registers a device (OTAA: IS, JS, NS, AS; ABP: IS, NS, AS); when a step fails, what the earlier steps wrote is deleted again and the step's error thrown. */
export async function registerDevice(app: string, r: Registration): Promise<void> {
  const steps = registrationSteps(app, r);
  await api('POST', devicePath('is', app), { body: { end_device: steps.create } });
  const done: Registry[] = ['is'];
  try {
    for (const step of steps.sets) {
      await setIn(step.registry, app, r.device_id, step.end_device, step.paths);
      done.push(step.registry);
    }
  } catch (err) {
    await deleteFrom(done.reverse(), app, r.device_id).catch(() => undefined);
    throw err;
  }
}

/** The documented delete order (docs/http-api.md): AS, NS, JS, then IS; a registry that does not hold the device is skipped. */
export const DELETE_ORDER: Registry[] = ['as', 'ns', 'js', 'is'];

async function deleteFrom(registries: Registry[], app: string, dev: string): Promise<void> {
  for (const registry of registries) {
    try {
      await api('DELETE', devicePath(registry, app, dev));
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 404 && registry !== 'is')) throw err;
    }
  }
}

export const deleteDevice = (app: string, dev: string): Promise<void> => deleteFrom(DELETE_ORDER, app, dev);

export interface DeviceEdit {
  name: string;
  description: string;
  frequency_plan_id: string;
  up_formatter: string;
}

/** Changes the IS's name and description, the NS's frequency plan and the AS's uplink formatter. */
export async function updateDevice(app: string, dev: string, ids: EndDevice['ids'], edit: DeviceEdit): Promise<void> {
  await api('PUT', devicePath('is', app, dev), {
    body: { end_device: { ids, name: edit.name, description: edit.description }, field_mask: { paths: ['name', 'description'] } },
  });
  await setIn('ns', app, dev, { ids, frequency_plan_id: edit.frequency_plan_id }, ['frequency_plan_id']);
  await setIn('as', app, dev, { ids, formatters: { up_formatter: edit.up_formatter } }, ['formatters.up_formatter']);
}
