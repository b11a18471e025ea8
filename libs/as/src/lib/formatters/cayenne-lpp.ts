import type { JsonObject } from '@lorawan/api';
import { ErrCayenneLpp } from './formatter.errors';

interface LppType {
  id: number;
  /** TTS's JSON key prefix (`<name>_<channel>`). */
  name: string;
  /** Value size in bytes per axis. */
  size: number;
  signed: boolean;
  scale: number;
  /** Axis names of an object value (accelerometer, gyrometer, GPS). */
  axes?: readonly string[];
  /** Per-axis size/scale overrides (GPS altitude). */
  axisScales?: readonly number[];
}

/** Cayenne LPP data types (IPSO object ID − 3200), as TTS's `pkg/messageprocessors/cayennelpp` names them. */
const TYPES: readonly LppType[] = [
  { id: 0, name: 'digital_in', size: 1, signed: false, scale: 1 },
  { id: 1, name: 'digital_out', size: 1, signed: false, scale: 1 },
  { id: 2, name: 'analog_in', size: 2, signed: true, scale: 100 },
  { id: 3, name: 'analog_out', size: 2, signed: true, scale: 100 },
  { id: 101, name: 'luminosity', size: 2, signed: false, scale: 1 },
  { id: 102, name: 'presence', size: 1, signed: false, scale: 1 },
  { id: 103, name: 'temperature', size: 2, signed: true, scale: 10 },
  { id: 104, name: 'relative_humidity', size: 1, signed: false, scale: 2 },
  { id: 113, name: 'accelerometer', size: 2, signed: true, scale: 1000, axes: ['x', 'y', 'z'] },
  { id: 115, name: 'barometric_pressure', size: 2, signed: false, scale: 10 },
  { id: 134, name: 'gyrometer', size: 2, signed: true, scale: 100, axes: ['x', 'y', 'z'] },
  { id: 136, name: 'gps', size: 3, signed: true, scale: 10000, axes: ['latitude', 'longitude', 'altitude'], axisScales: [10000, 10000, 100] },
];
const BY_ID = new Map(TYPES.map((t) => [t.id, t]));
const BY_NAME = new Map(TYPES.map((t) => [t.name, t]));

function readInt(bytes: Uint8Array, offset: number, size: number, signed: boolean): number {
  let v = 0;
  for (let i = 0; i < size; i++) v = v * 256 + bytes[offset + i];
  if (signed && v >= 2 ** (8 * size - 1)) v -= 2 ** (8 * size);
  return v;
}

function writeInt(out: number[], value: number, size: number, signed: boolean, what: string): void {
  const min = signed ? -(2 ** (8 * size - 1)) : 0;
  const max = signed ? 2 ** (8 * size - 1) - 1 : 2 ** (8 * size) - 1;
  if (!Number.isFinite(value) || value < min || value > max) throw ErrCayenneLpp.with({ reason: `value of \`${what}\` out of range` });
  let v = value < 0 ? value + 2 ** (8 * size) : value;
  const bytes: number[] = [];
  for (let i = 0; i < size; i++) {
    bytes.unshift(v % 256);
    v = Math.floor(v / 256);
  }
  out.push(...bytes);
}

/** Rounds away binary noise of the scaling (27.2, not 27.200000000000003). */
const scaled = (raw: number, scale: number) => Number((raw / scale).toFixed(Math.ceil(Math.log10(scale))));

/** Uplink: `[channel][type][value…]…` → `{"<type>_<channel>": value}` (e.g. `03 67 01 10` → `{"temperature_3": 27.2}`). */
export function decodeLpp(bytes: Uint8Array): JsonObject {
  const out: JsonObject = {};
  let i = 0;
  while (i < bytes.length) {
    if (i + 2 > bytes.length) throw ErrCayenneLpp.with({ reason: `truncated header at byte ${i}` });
    const channel = bytes[i];
    const type = BY_ID.get(bytes[i + 1]);
    if (!type) throw ErrCayenneLpp.with({ reason: `unknown type ${bytes[i + 1]} at byte ${i + 1}` });
    i += 2;
    const axes = type.axes ?? [undefined];
    if (i + type.size * axes.length > bytes.length) throw ErrCayenneLpp.with({ reason: `truncated \`${type.name}\` value of channel ${channel}` });
    const values = axes.map((_, a) => scaled(readInt(bytes, i + a * type.size, type.size, type.signed), type.axisScales?.[a] ?? type.scale));
    i += type.size * axes.length;
    out[`${type.name}_${channel}`] = type.axes ? Object.fromEntries(type.axes.map((axis, a) => [axis, values[a]])) : values[0];
  }
  return out;
}

function parseKey(key: string, prefixes: ReadonlyMap<string, LppType> | undefined): { type?: LppType; channel: number } {
  const m = /^(.+)_(\d+)$/.exec(key);
  if (!m) throw ErrCayenneLpp.with({ reason: `key \`${key}\` is not <type>_<channel>` });
  const channel = Number(m[2]);
  if (channel > 255) throw ErrCayenneLpp.with({ reason: `channel of \`${key}\` out of range` });
  const type = prefixes?.get(m[1]);
  if (prefixes && !type) throw ErrCayenneLpp.with({ reason: `unknown type in \`${key}\`` });
  return { type, channel };
}

/** The inverse of `decodeLpp` (for tests and devices that speak the uplink format downstream). */
export function encodeLpp(data: JsonObject): Uint8Array {
  const out: number[] = [];
  for (const [key, value] of Object.entries(data)) {
    const { type, channel } = parseKey(key, BY_NAME) as { type: LppType; channel: number };
    out.push(channel, type.id);
    if (type.axes) {
      if (typeof value !== 'object' || value === null) throw ErrCayenneLpp.with({ reason: `value of \`${key}\` must be an object` });
      type.axes.forEach((axis, a) => {
        const v = (value as JsonObject)[axis];
        if (typeof v !== 'number') throw ErrCayenneLpp.with({ reason: `\`${key}.${axis}\` must be a number` });
        writeInt(out, Math.round(v * (type.axisScales?.[a] ?? type.scale)), type.size, type.signed, `${key}.${axis}`);
      });
    } else {
      const v = typeof value === 'boolean' ? Number(value) : value;
      if (typeof v !== 'number') throw ErrCayenneLpp.with({ reason: `value of \`${key}\` must be a number` });
      writeInt(out, Math.round(v * type.scale), type.size, type.signed, key);
    }
  }
  return Uint8Array.from(out);
}

/**
 * Downlink (Cayenne's actuator commands, as TTS): `{"value_<channel>": number}` → `[channel][int16 value×100]`
 * per entry.
 */
export function encodeLppDownlink(data: JsonObject): Uint8Array {
  const out: number[] = [];
  for (const [key, value] of Object.entries(data)) {
    const { channel } = parseKey(key, undefined);
    if (!key.startsWith('value_')) throw ErrCayenneLpp.with({ reason: `key \`${key}\` is not value_<channel>` });
    if (typeof value !== 'number') throw ErrCayenneLpp.with({ reason: `value of \`${key}\` must be a number` });
    out.push(channel);
    writeInt(out, Math.round(value * 100), 2, true, key);
  }
  return Uint8Array.from(out);
}

/** The inverse of `encodeLppDownlink`. */
export function decodeLppDownlink(bytes: Uint8Array): JsonObject {
  if (bytes.length % 3 !== 0) throw ErrCayenneLpp.with({ reason: 'downlink length must be a multiple of 3' });
  const out: JsonObject = {};
  for (let i = 0; i < bytes.length; i += 3) out[`value_${bytes[i]}`] = scaled(readInt(bytes, i + 1, 2, true), 100);
  return out;
}
