/**
 * The import's CSV format: a header row naming columns of a fixed set (docs/http-api.md "Importing and
 * exporting devices"), then one device per row. A header with a column outside the set refuses
 * the whole file, before any request: a misspelt key column would otherwise register every
 * device without its key. Fields may be quoted (`"a, b"`, `""` for a quote); a field cannot span
 * lines. An empty field is an absent value.
 */
import type { JsonObject } from './split';

/** Columns of the EndDevice's top level, copied as strings. */
const TEXT_COLUMNS = ['name', 'description', 'frequency_plan_id', 'lorawan_version', 'lorawan_phy_version'] as const;
/** `version_ids.*`. */
const VERSION_COLUMNS = ['brand_id', 'model_id', 'hardware_version', 'firmware_version', 'band_id'] as const;
/** OTAA root keys (`root_keys.<column>.key`). */
const ROOT_KEY_COLUMNS = ['app_key', 'nwk_key'] as const;
/** ABP session keys (`session.keys.<column>.key`); `nwk_s_key` is LoRaWAN 1.0's name of `f_nwk_s_int_key`. */
const SESSION_KEY_COLUMNS = ['app_s_key', 'f_nwk_s_int_key', 's_nwk_s_int_key', 'nwk_s_enc_key'] as const;

export const CSV_COLUMNS: readonly string[] = [
  'device_id',
  'dev_eui',
  'join_eui',
  ...TEXT_COLUMNS,
  'supports_join',
  ...ROOT_KEY_COLUMNS,
  'dev_addr',
  ...SESSION_KEY_COLUMNS,
  'nwk_s_key',
  ...VERSION_COLUMNS,
];

/** `attributes.<key>` columns set one attribute each. */
const ATTRIBUTE_PREFIX = 'attributes.';

/** The fields of one CSV row; throws on an unterminated quote or text after a closing quote. */
export function splitCsvRow(row: string): string[] {
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    if (row[i] === '"') {
      let value = '';
      i++;
      for (;;) {
        const quote = row.indexOf('"', i);
        if (quote < 0) throw new Error('unterminated quoted field');
        value += row.slice(i, quote);
        if (row[quote + 1] === '"') {
          value += '"';
          i = quote + 2;
          continue;
        }
        i = quote + 1;
        break;
      }
      if (i < row.length && row[i] !== ',') throw new Error(`text after a closing quote at column ${i + 1}`);
      fields.push(value);
    } else {
      const comma = row.indexOf(',', i);
      const end = comma < 0 ? row.length : comma;
      fields.push(row.slice(i, end).trim());
      i = end;
    }
    if (i >= row.length) return fields;
    i++; // the comma
  }
}

function parseBoolean(value: string): boolean {
  const lower = value.toLowerCase();
  if (lower === 'true' || lower === '1' || lower === 'yes') return true;
  if (lower === 'false' || lower === '0' || lower === 'no') return false;
  throw new Error(`supports_join must be true or false, got "${value}"`);
}

/** A CSV header, checked: maps each row to an EndDevice. */
export class CsvColumns {
  private constructor(readonly names: readonly string[]) {}

  /** Throws an Error naming the first unknown or repeated column, or a missing device_id. */
  static fromHeader(header: string): CsvColumns {
    const names = splitCsvRow(header.replace(/^\uFEFF/, '')).map((n) => n.trim());
    const seen = new Set<string>();
    for (const name of names) {
      const known = CSV_COLUMNS.includes(name) || (name.startsWith(ATTRIBUTE_PREFIX) && name.length > ATTRIBUTE_PREFIX.length);
      if (!known) throw new Error(`unknown column "${name}" (known: ${CSV_COLUMNS.join(', ')}, attributes.<key>)`);
      if (seen.has(name)) throw new Error(`column "${name}" appears twice`);
      seen.add(name);
    }
    if (!seen.has('device_id')) throw new Error('the header has no device_id column');
    return new CsvColumns(names);
  }

  /** The EndDevice of one row (ids without the application); throws an Error saying what is wrong. */
  toDevice(row: string): JsonObject {
    const fields = splitCsvRow(row);
    if (fields.length !== this.names.length) throw new Error(`${fields.length} fields where the header has ${this.names.length} columns`);
    const value: Record<string, string> = {};
    this.names.forEach((name, i) => {
      if (fields[i] !== '') value[name] = fields[i];
    });
    const hex = (name: string) => value[name]?.toUpperCase();

    const ids: JsonObject = { device_id: value.device_id ?? '' };
    if (value.dev_eui !== undefined) ids.dev_eui = hex('dev_eui') as string;
    if (value.join_eui !== undefined) ids.join_eui = hex('join_eui') as string;
    const device: JsonObject = { ids };
    for (const name of TEXT_COLUMNS) if (value[name] !== undefined) device[name] = value[name];

    const versionIds: JsonObject = {};
    for (const name of VERSION_COLUMNS) if (value[name] !== undefined) versionIds[name] = value[name];
    if (Object.keys(versionIds).length > 0) device.version_ids = versionIds;

    const attributes: JsonObject = {};
    for (const name of this.names)
      if (name.startsWith(ATTRIBUTE_PREFIX) && value[name] !== undefined) attributes[name.slice(ATTRIBUTE_PREFIX.length)] = value[name];
    if (Object.keys(attributes).length > 0) device.attributes = attributes;

    const rootKeys: JsonObject = {};
    for (const name of ROOT_KEY_COLUMNS) if (value[name] !== undefined) rootKeys[name] = { key: hex(name) as string };
    if (Object.keys(rootKeys).length > 0) device.root_keys = rootKeys;

    const sessionKeys: JsonObject = {};
    for (const name of SESSION_KEY_COLUMNS) if (value[name] !== undefined) sessionKeys[name] = { key: hex(name) as string };
    if (value.nwk_s_key !== undefined) {
      if (value.f_nwk_s_int_key !== undefined) throw new Error('nwk_s_key and f_nwk_s_int_key are the same key: give one');
      sessionKeys.f_nwk_s_int_key = { key: hex('nwk_s_key') as string };
    }
    if (value.dev_addr !== undefined || Object.keys(sessionKeys).length > 0) {
      const session: JsonObject = { keys: sessionKeys };
      if (value.dev_addr !== undefined) session.dev_addr = hex('dev_addr') as string;
      device.session = session;
    }

    // Without the column: OTAA when the row has a root key, ABP when it has a session.
    if (value.supports_join !== undefined) device.supports_join = parseBoolean(value.supports_join);
    else if (device.root_keys) device.supports_join = true;
    else if (device.session) device.supports_join = false;
    return device;
  }
}
