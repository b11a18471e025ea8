import { readFileSync } from 'node:fs';
import { decodeMessage, EndDeviceVersionIdentifiers, isJsonObject } from '@lorawan/api';
import bundled from './catalogue.json';
import { checkKnownKeys, type DeviceProfile, parseDeviceProfile } from './device-profile';
import { validationMessage } from './validation-message';

/** `EndDeviceVersionIdentifiers` as a request carries them (any field may be missing). */
export interface VersionIds {
  brand_id?: string;
  model_id?: string;
  hardware_version?: string;
  firmware_version?: string;
}

interface Template {
  brand_id: string;
  model_id: string;
  /** Undefined: the template applies to every hardware (firmware) version. */
  hardware_version?: string;
  firmware_version?: string;
  profile: DeviceProfile;
}

const ENTRY_FIELDS = ['version_ids', 'end_device'];
const VERSION_ID_FIELDS = ['brand_id', 'model_id', 'hardware_version', 'firmware_version'];

/** Identity of a template: a later file's entry with the same key replaces an earlier one. */
function keyOf(t: Pick<Template, 'brand_id' | 'model_id' | 'hardware_version' | 'firmware_version'>): string {
  return JSON.stringify([t.brand_id, t.model_id, t.hardware_version ?? null, t.firmware_version ?? null]);
}

/** A hardware match outranks a firmware match: the radio hardware decides band and class support. */
function specificity(t: Template): number {
  return (t.hardware_version !== undefined ? 2 : 0) + (t.firmware_version !== undefined ? 1 : 0);
}

function parseVersionIds(value: unknown): Omit<Template, 'profile'> {
  if (!isJsonObject(value)) throw new Error('version_ids: must be an object');
  checkKnownKeys(value, VERSION_ID_FIELDS, 'version_ids.');
  let ids: EndDeviceVersionIdentifiers;
  try {
    ids = decodeMessage(EndDeviceVersionIdentifiers, value);
  } catch (err) {
    throw new Error(`version_ids.${validationMessage(err)}`);
  }
  for (const field of ['brand_id', 'model_id'] as const) if (!ids[field]) throw new Error(`version_ids.${field}: value is required`);
  for (const field of ['hardware_version', 'firmware_version'] as const) {
    if (ids[field] === '') throw new Error(`version_ids.${field}: must not be empty; leave it out to match every version`);
  }
  return { brand_id: ids.brand_id as string, model_id: ids.model_id as string, hardware_version: ids.hardware_version, firmware_version: ids.firmware_version };
}

/** Places an error message (`field: reason`, or a bare reason) under a path. */
function under(path: string, message: string): string {
  return /^[\w.[\]]+: /.test(message) ? `${path}.${message}` : `${path}: ${message}`;
}

/** Parses one catalogue document; errors name the file and the entry. */
function parseCatalogue(document: unknown, file: string): Template[] {
  const prefix = `device template catalogue ${file}`;
  if (!isJsonObject(document) || !Array.isArray(document['templates'])) throw new Error(`${prefix}: must be a JSON object with a "templates" array`);
  const seen = new Map<string, number>();
  return document['templates'].map((entry: unknown, index) => {
    try {
      if (!isJsonObject(entry)) throw new Error('must be an object');
      checkKnownKeys(entry, ENTRY_FIELDS);
      const ids = parseVersionIds(entry['version_ids']);
      let profile: DeviceProfile;
      try {
        profile = parseDeviceProfile(entry['end_device']);
      } catch (err) {
        throw new Error(under('end_device', (err as Error).message));
      }
      const key = keyOf(ids);
      const previous = seen.get(key);
      if (previous !== undefined) throw new Error(`version_ids: same as templates[${previous}]`);
      seen.set(key, index);
      return { ...ids, profile };
    } catch (err) {
      throw new Error(`${prefix}: ${under(`templates[${index}]`, (err as Error).message)}`);
    }
  });
}

function readCatalogue(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`device template catalogue ${file}: cannot be read: ${(err as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new Error(`device template catalogue ${file}: not valid JSON: ${(err as Error).message}`);
  }
}

/**
 * Device templates for "Copy on create" (see docs/http-api.md): the catalogue bundled with the code, plus
 * an operator's file whose entries replace bundled ones with the same version identifiers.
 */
export class DeviceTemplateCatalogue {
  private constructor(private readonly templates: readonly Template[]) {}

  /** Loads and validates the catalogue(s); throws at once, naming file and entry, if one is invalid. */
  static load(extraFile?: string): DeviceTemplateCatalogue {
    const byKey = new Map<string, Template>();
    for (const t of parseCatalogue(bundled, 'catalogue.json (bundled)')) byKey.set(keyOf(t), t);
    if (extraFile !== undefined) for (const t of parseCatalogue(readCatalogue(extraFile), extraFile)) byKey.set(keyOf(t), t);
    return new DeviceTemplateCatalogue([...byKey.values()]);
  }

  /**
   * The profile of the most specific template for these version identifiers: brand and model must
   * match; a template's hardware/firmware version, when given, must match too. Exact hardware and
   * firmware beats hardware only, which beats firmware only, which beats brand and model only.
   */
  find(versionIds?: VersionIds): DeviceProfile | undefined {
    if (!versionIds?.brand_id || !versionIds.model_id) return undefined;
    // Proto3 JSON: an empty string is an unset version.
    const hardware = versionIds.hardware_version || undefined;
    const firmware = versionIds.firmware_version || undefined;
    let best: Template | undefined;
    for (const t of this.templates) {
      if (t.brand_id !== versionIds.brand_id || t.model_id !== versionIds.model_id) continue;
      if (t.hardware_version !== undefined && t.hardware_version !== hardware) continue;
      if (t.firmware_version !== undefined && t.firmware_version !== firmware) continue;
      if (!best || specificity(t) > specificity(best)) best = t;
    }
    return best?.profile;
  }
}
