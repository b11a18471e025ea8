import { randomInt } from 'node:crypto';

/**
 * DevAddr allocation from a NetID (LoRaWAN Backend Interfaces 1.0 §13; TTS `pkg/types/devaddr.go`,
 * `pkg/networkserver/networkserver.go` makeNewDevAddrFunc): a DevAddr is the NetID type's prefix
 * (`type` ones and a zero), the NwkID (the NetID's low bits) and a random NwkAddr. Addresses are
 * not unique per device (MIC matching tells devices apart), so allocation is random within the
 * prefixes, avoiding only the device's current address.
 */

/** NwkID and NwkAddr widths by NetID type 0–7. */
const NWK_ID_BITS = [6, 6, 9, 11, 12, 13, 15, 17];

export interface DevAddrPrefix {
  /** The prefix's bits, left-aligned in 32 bits. */
  addr: number;
  length: number;
}

const HEX6 = /^[0-9A-Fa-f]{6}$/;
const HEX8 = /^[0-9A-Fa-f]{8}$/;

/** The DevAddr prefix of a NetID (`000013` → `26000000/7`). */
export function devAddrPrefixOf(netId: string): DevAddrPrefix {
  if (!HEX6.test(netId)) throw new Error(`a NetID is 6 hex digits, got ${JSON.stringify(netId)}`);
  const value = parseInt(netId, 16);
  const type = value >>> 21;
  const idBits = NWK_ID_BITS[type];
  const nwkId = value & ((1 << idBits) - 1);
  const typeBits = type + 1;
  const typePrefix = ((0xff << (8 - type)) & 0xff) >>> (8 - typeBits); // `type` ones and a zero
  const length = typeBits + idBits;
  return { addr: (((typePrefix << idBits) | nwkId) << (32 - length)) >>> 0, length };
}

/** `26000000/7` → prefix; undefined for text that is not one (the bits below the length must be zero). */
export function parseDevAddrPrefix(text: string): DevAddrPrefix | undefined {
  const m = /^([0-9A-Fa-f]{8})\/(\d{1,2})$/.exec(text);
  if (!m) return undefined;
  const length = Number(m[2]);
  const addr = parseInt(m[1], 16) >>> 0;
  if (length > 32 || (length < 32 && (addr & (0xffffffff >>> length)) !== 0)) return undefined;
  return { addr, length };
}

export function formatDevAddrPrefix(prefix: DevAddrPrefix): string {
  return `${prefix.addr.toString(16).toUpperCase().padStart(8, '0')}/${prefix.length}`;
}

export function devAddrHasPrefix(devAddr: string, prefix: DevAddrPrefix): boolean {
  if (!HEX8.test(devAddr)) return false;
  if (prefix.length === 0) return true;
  const mask = (0xffffffff << (32 - prefix.length)) >>> 0;
  return (parseInt(devAddr, 16) & mask) >>> 0 === prefix.addr;
}

const ATTEMPTS = 5;

/**
 * A random DevAddr in one of `prefixes` (chosen in proportion to its size), other than `avoid`
 * when that can be helped (a few attempts, as TTS).
 */
export function randomDevAddr(prefixes: readonly DevAddrPrefix[], avoid?: string): string {
  if (prefixes.length === 0) throw new Error('no DevAddr prefix to allocate from');
  const sizes = prefixes.map((p) => 2 ** (32 - p.length));
  const total = sizes.reduce((a, b) => a + b, 0);
  let addr = '';
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    let pick = Math.random() * total;
    let i = 0;
    while (i < prefixes.length - 1 && pick >= sizes[i]) pick -= sizes[i++];
    const { addr: base, length } = prefixes[i];
    // randomInt takes at most 2^48 - 1; a /0 prefix draws the two halves.
    const low = length === 0 ? ((randomInt(0x10000) << 16) | randomInt(0x10000)) >>> 0 : randomInt(2 ** (32 - length));
    addr = ((base | low) >>> 0).toString(16).toUpperCase().padStart(8, '0');
    if (addr !== avoid?.toUpperCase()) break;
  }
  return addr;
}
