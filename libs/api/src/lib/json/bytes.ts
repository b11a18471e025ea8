/**
 * Byte conventions of the TTS JSON API (wire contract §0): EUIs, DevAddr, NetID and AES keys are
 * upper-case hex; input may be hex (exact length, any case) or base64 (standard or URL alphabet,
 * padding optional). Everything is normalised to upper-case hex on the way in.
 */
export class InvalidBytes {
  constructor(readonly reason: string) {}
}

const HEX = /^[0-9a-fA-F]*$/;
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** Returns upper-case hex, `undefined` for "" / null, or an InvalidBytes marker with a reason. */
export function normalizeFixedBytes(value: unknown, length: number): string | undefined | InvalidBytes {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') return new InvalidBytes('value must be a string');
  if (value.length === length * 2 && HEX.test(value)) return value.toUpperCase();
  if (BASE64.test(value)) {
    const buf = Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (buf.length === length) return buf.toString('hex').toUpperCase();
    if (buf.length > 0 && value.length !== length * 2) return new InvalidBytes(`invalid length: want ${length} bytes, got ${buf.length}`);
  }
  return new InvalidBytes(`invalid length or encoding: want ${length} bytes as hex or base64`);
}

/** Standard base64 (with padding) for other `bytes` fields; accepts URL alphabet and no padding. */
export function normalizeBase64(value: unknown): string | undefined | InvalidBytes {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string' || !BASE64.test(value)) return new InvalidBytes('value must be base64');
  return Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('base64');
}

export function isZeroHex(hex: string | undefined): boolean {
  return hex === undefined || /^0*$/.test(hex);
}
