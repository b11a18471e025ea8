/**
 * The pure part of the CLI: how one EndDevice description is split over the four registries
 * (IS fields, per-registry field masks) and how their answers are merged back into one device.
 * No I/O here, so the rules are unit-tested (`split.spec.ts`).
 */
import { IS_END_DEVICE_FIELDS } from '@lorawan/api';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Fields the Identity Server stores besides ids and its timestamps (the contract's list): the body
 * of IS Create. `ids.dev_addr` is not among the IS ids; the NS derives it from `session.dev_addr`.
 */
const IS_FIELDS = IS_END_DEVICE_FIELDS.filter((f) => !['ids', 'created_at', 'updated_at'].includes(f));
const IS_ID_FIELDS = ['device_id', 'application_ids', 'dev_eui', 'join_eui'] as const;

/**
 * Fields whose value is a map (or a google.protobuf.Struct): their keys are data, not field names
 * (a key may even contain a dot), so the whole map is one leaf of the field mask.
 */
const MAP_FIELDS = new Set(['attributes', 'locations', 'picture.sizes', 'provisioning_data']);

/** The IS Create body's `end_device`: the IS fields of the description. */
export function isFields(device: JsonObject): JsonObject {
  const out: JsonObject = {};
  const ids = isObject(device.ids) ? device.ids : {};
  const outIds: JsonObject = {};
  for (const key of IS_ID_FIELDS) if (ids[key] !== undefined) outIds[key] = ids[key];
  out.ids = outIds;
  for (const key of IS_FIELDS) if (device[key] !== undefined) out[key] = device[key];
  return out;
}

/**
 * Every leaf path of a JSON object: objects are descended; arrays, scalars, null, empty objects
 * and map fields are leaves.
 */
export function leafPaths(value: JsonObject, prefix = ''): string[] {
  const out: string[] = [];
  for (const [key, child] of Object.entries(value)) {
    const path = prefix + key;
    if (isObject(child) && Object.keys(child).length > 0 && !MAP_FIELDS.has(path)) out.push(...leafPaths(child, `${path}.`));
    else out.push(path);
  }
  return out;
}

/** `a.b.c` → `a`, `a.b`, `a.b.c`. */
function prefixes(path: string): string[] {
  const parts = path.split('.');
  return parts.map((_, i) => parts.slice(0, i + 1).join('.'));
}

const PARENTS = new WeakMap<ReadonlySet<string>, Set<string>>();

/** Paths that have allowed sub-paths: the registry knows their sub-fields one by one (worked out once per allowed set). */
function parentsOf(allowed: ReadonlySet<string>): Set<string> {
  let parents = PARENTS.get(allowed);
  if (!parents) {
    parents = new Set<string>();
    for (const path of allowed) for (const p of prefixes(path).slice(0, -1)) parents.add(p);
    PARENTS.set(allowed, parents);
  }
  return parents;
}

/** Masks worked out per allowed set and leaf set: the devices of an import mostly share their shape. */
const MASKS = new WeakMap<ReadonlySet<string>, Map<string, string[]>>();
const MASKS_PER_SET = 1000;

type LeafKind = 'settable' | 'foreign' | 'elsewhere';

/**
 * How a registry sees one leaf of the description:
 * - `settable`: the leaf, or an allowed parent whose sub-fields the registry does not list (a map,
 *   a wrapper value), is in the allowed set;
 * - `foreign`: an allowed parent lists its sub-fields and this one is not among them, e.g.
 *   `session.keys.app_s_key` for the NS, which allows `session.keys` but only the network keys;
 * - `elsewhere`: no prefix is allowed, the field belongs to other registries.
 */
function classify(leaf: string, allowed: ReadonlySet<string>, parents: ReadonlySet<string>): LeafKind {
  const deepest = prefixes(leaf)
    .filter((p) => allowed.has(p))
    .pop();
  if (deepest === undefined) return 'elsewhere';
  if (deepest === leaf || !parents.has(deepest)) return 'settable';
  return 'foreign';
}

/**
 * The field mask for one registry's Set, given the description sent whole as the body: for every
 * leaf the registry can set, the SHORTEST allowed prefix, so `mac_settings` goes whole rather than
 * as 20 sub-paths. A prefix is skipped when a `foreign` leaf of the description lies below it,
 * because TTS rejects a Set whose masked sub-tree holds a non-zero field the RPC may not set
 * (`pkg/rpcmiddleware/validator:non_zero_path`): the NS gets `session.dev_addr` and
 * `session.keys.f_nwk_s_int_key` rather than `session`, which would carry the AppSKey along.
 * `ids` never appear: they are always in the body and the registries add them to the mask.
 */
export function setFieldMask(device: JsonObject, allowed: ReadonlySet<string>): string[] {
  const leaves = leafPaths(device).filter((p) => p !== 'ids' && !p.startsWith('ids.'));
  let masks = MASKS.get(allowed);
  if (!masks) MASKS.set(allowed, (masks = new Map()));
  const shape = leaves.join('\n');
  const known = masks.get(shape);
  if (known) return [...known];
  const mask = maskOf(leaves, allowed);
  if (masks.size >= MASKS_PER_SET) masks.clear();
  masks.set(shape, mask);
  return [...mask];
}

function maskOf(leaves: readonly string[], allowed: ReadonlySet<string>): string[] {
  const parents = parentsOf(allowed);
  const kinds = new Map(leaves.map((leaf) => [leaf, classify(leaf, allowed, parents)]));
  const foreign = leaves.filter((leaf) => kinds.get(leaf) === 'foreign');
  const mask = new Set<string>();
  for (const leaf of leaves) {
    if (kinds.get(leaf) !== 'settable') continue;
    const chosen = prefixes(leaf).find((p) => allowed.has(p) && !foreign.some((f) => f.startsWith(`${p}.`)));
    // A settable leaf always finds one: the deepest allowed prefix has no foreign leaf below it.
    if (chosen !== undefined) mask.add(chosen);
  }
  return [...mask].sort();
}

/** Top-level names of allowed paths (`session.dev_addr` → `session`), for short Get masks. */
export function topLevelPaths(allowed: Iterable<string>): string[] {
  return [...new Set([...allowed].map((p) => p.split('.')[0]))].sort();
}

function isEmpty(value: Json | undefined): boolean {
  if (value === undefined || value === null || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  return isObject(value) && Object.keys(value).length === 0;
}

/**
 * Merges a later registry's view of a device onto an earlier one: objects are merged key by key,
 * any other value only fills a gap (absent, null, "", [] or {}), so the earlier registry wins
 * conflicts; with the order IS, JS, NS, AS the IS's `created_at`/`updated_at` are kept.
 */
export function mergeDevices(earlier: JsonObject, later: JsonObject): JsonObject {
  const out: JsonObject = { ...earlier };
  for (const [key, value] of Object.entries(later)) {
    const current = out[key];
    if (isObject(current) && isObject(value)) out[key] = mergeDevices(current, value);
    else if (isEmpty(current) && value !== undefined) out[key] = value;
  }
  return out;
}

/** Merges the parts in order (IS, JS, NS, AS); missing parts (device absent there) are skipped. */
export function mergeAll(parts: Array<JsonObject | undefined>): JsonObject {
  return parts.reduce<JsonObject>((acc, part) => (part ? mergeDevices(acc, part) : acc), {});
}

/** A Set request of the JS, NS or AS (`SetEndDeviceRequest`). */
export interface SetRequest {
  end_device: JsonObject;
  field_mask: { paths: string[] };
}

export interface RegistrationPlan {
  is: { end_device: JsonObject };
  /** Absent for ABP devices and when the description holds nothing for the JS. */
  js?: SetRequest;
  ns: SetRequest;
  as: SetRequest;
}

/** The allowed paths of `JsEndDeviceRegistry.Set`, `NsEndDeviceRegistry.Set`, `AsEndDeviceRegistry.Set`. */
export interface SetAllowedPaths {
  js: ReadonlySet<string>;
  ns: ReadonlySet<string>;
  as: ReadonlySet<string>;
}

/** The device's `ids` and the sub-trees the mask names: all a Set with that mask reads. */
export function maskedFields(device: JsonObject, paths: readonly string[]): JsonObject {
  const out: JsonObject = { ids: device.ids ?? {} };
  for (const path of paths) {
    const parts = path.split('.');
    let from: Json | undefined = device;
    for (const part of parts) from = isObject(from) ? from[part] : undefined;
    if (from === undefined) continue;
    let to = out;
    for (const part of parts.slice(0, -1)) {
      if (!isObject(to[part])) to[part] = {};
      to = to[part] as JsonObject;
    }
    to[parts[parts.length - 1]] = from;
  }
  return out;
}

/** A registry's Set of the device: its mask, and only the fields the mask names (smaller bodies to encode, send and decode). */
function setRequest(device: JsonObject, allowed: ReadonlySet<string>): SetRequest {
  const paths = setFieldMask(device, allowed);
  return { end_device: maskedFields(device, paths), field_mask: { paths } };
}

/**
 * The four requests of a registration, in the spec's order IS → JS (OTAA only) → NS → AS. The JS,
 * NS and AS get their part of the description with the mask naming it. The NS is always called
 * (the device must exist there to be served) and the AS too (ids alone make it known to the AS).
 */
export function planRegistration(device: JsonObject, allowed: SetAllowedPaths): RegistrationPlan {
  const plan: RegistrationPlan = {
    is: { end_device: isFields(device) },
    ns: setRequest(device, allowed.ns),
    as: setRequest(device, allowed.as),
  };
  if (device.supports_join === true) {
    // TTS's JS refuses a create whose ids carry a DevAddr (it is only known after the join).
    const ids = isObject(device.ids) ? { ...device.ids } : {};
    delete ids.dev_addr;
    const js = setRequest({ ...device, ids }, allowed.js);
    if (js.field_mask.paths.length > 0) plan.js = js;
  }
  return plan;
}

export interface DeviceRef {
  applicationId: string;
  deviceId: string;
}

/**
 * Checks a parsed description: an EndDevice object (or `{"end_device": {...}}`) whose `ids` name
 * the device and its application. Returns the device and its identifiers, or throws an Error
 * whose message says what is missing.
 */
export function parseDescription(input: unknown): { device: JsonObject; ref: DeviceRef } {
  const device = isObject(input) && isObject(input.end_device) ? input.end_device : input;
  if (!isObject(device)) throw new Error('the description must be a JSON object (an EndDevice, or {"end_device": {...}})');
  const ids = device.ids;
  if (!isObject(ids)) throw new Error('the description has no "ids" object');
  const deviceId = ids.device_id;
  if (typeof deviceId !== 'string' || deviceId === '') throw new Error('the description has no "ids.device_id"');
  const applicationId = isObject(ids.application_ids) ? ids.application_ids.application_id : undefined;
  if (typeof applicationId !== 'string' || applicationId === '') {
    throw new Error('the description has no "ids.application_ids.application_id"');
  }
  return { device, ref: { applicationId, deviceId } };
}
