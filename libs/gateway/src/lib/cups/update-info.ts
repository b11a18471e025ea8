import { crc32 } from 'node:zlib';
import { isJsonObject } from '@lorawan/api';
import { readEui } from '@lorawan/lorawan';

/**
 * The LoRa Basics Station CUPS protocol (`POST /update-info`, the specification's "The CUPS
 * Protocol"; station `src/cups.c`, `src/sys.c`; TTS `pkg/basicstation/cups`), as pure functions:
 * the station's request, the credentials it is given (and their CRC as station computes it), and
 * the binary answer.
 */

/** What a station posts: who it is, where it connects now and the CRCs of the credentials it holds. */
export interface UpdateInfoRequest {
  /** The gateway's EUI (station sends an id6), 16 upper-case hex digits. */
  router: string;
  cupsUri: string;
  tcUri: string;
  cupsCredCrc: number;
  tcCredCrc: number;
  station?: string;
  model?: string;
  package?: string;
  /** CRCs of the signing keys the station holds (firmware updates). */
  keys: number[];
}

/** The answer's segments; an absent one is sent empty (the station keeps what it has). */
export interface UpdateInfoResponse {
  cupsUri?: string;
  tcUri?: string;
  cupsCred?: Buffer;
  tcCred?: Buffer;
  /** The update's signature and the CRC of the key that made it (only with `updateData`). */
  signature?: { keyCrc: number; value: Buffer };
  updateData?: Buffer;
}

const URI_MAX = 0xff;
const CRED_MAX = 0xffff;
const SIG_MAX = 128;

const isUint32 = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 0xffffffff;

/** The station's `update-info` JSON, read field by field; `{ error }` names what is wrong. */
export function parseUpdateInfoRequest(body: unknown): UpdateInfoRequest | { error: string } {
  if (!isJsonObject(body)) return { error: 'the body is not a JSON object' };
  const router = readEui(body['router']);
  if (!router) return { error: 'missing or invalid `router`' };
  const strings: Record<string, string | undefined> = {};
  for (const field of ['cupsUri', 'tcUri', 'station', 'model', 'package']) {
    const value = body[field];
    if (value !== undefined && typeof value !== 'string') return { error: `\`${field}\` is not a string` };
    strings[field] = value;
  }
  const crcs: Record<string, number> = {};
  for (const field of ['cupsCredCrc', 'tcCredCrc']) {
    const value = body[field] ?? 0;
    if (!isUint32(value)) return { error: `\`${field}\` is not a 32-bit unsigned integer` };
    crcs[field] = value;
  }
  const keys = body['keys'] ?? [];
  if (!Array.isArray(keys) || !keys.every(isUint32)) return { error: '`keys` is not a list of 32-bit unsigned integers' };
  return {
    router,
    cupsUri: strings['cupsUri'] ?? '',
    tcUri: strings['tcUri'] ?? '',
    cupsCredCrc: crcs['cupsCredCrc'],
    tcCredCrc: crcs['tcCredCrc'],
    ...(strings['station'] !== undefined ? { station: strings['station'] } : {}),
    ...(strings['model'] !== undefined ? { model: strings['model'] } : {}),
    ...(strings['package'] !== undefined ? { package: strings['package'] } : {}),
    keys,
  };
}

/**
 * The credentials of a token-authenticated connection as station stores them (`sys_credComplete`
 * splits the segment into its `.trust`, `.crt` and `.key` files): the server's trust (one DER
 * certificate), four zero bytes for "no client certificate", and the token as the HTTP header line
 * station sends (`Authorization: Bearer <key>\r\n`, TTS's `tc.key`).
 */
export function tokenCredentials(trustDer: Buffer, authorization: string): Buffer {
  return Buffer.concat([trustDer, Buffer.alloc(4), Buffer.from(`Authorization: ${authorization.replace(/[\r\n]+$/, '')}\r\n`, 'utf8')]);
}

/**
 * The CRC station reports for credentials (`sys_crcCred`): CRC-32 (IEEE) over its trust, cert and
 * key files in turn, an absent or empty file counting as four zero bytes; of what
 * `tokenCredentials` gives, the CRC of the bytes themselves.
 */
export function credentialsCrc(credentials: Buffer): number {
  return crc32(credentials);
}

/**
 * The binary answer (little-endian lengths): `cupsUriLen` (1 byte) and `cupsUri`, `tcUriLen` (1)
 * and `tcUri`, `cupsCredLen` (2) and `cupsCred`, `tcCredLen` (2) and `tcCred`, `sigLen` (4) and,
 * when non-zero, the signing key's CRC (4) and the signature (station counts the CRC in `sigLen`,
 * so a signature segment is 8 to 132 bytes), `updLen` (4) and the update. `{ error }` when a
 * segment is longer than its length field allows.
 */
export function encodeUpdateInfoResponse(res: UpdateInfoResponse): Buffer | { error: string } {
  const cupsUri = Buffer.from(res.cupsUri ?? '', 'utf8');
  const tcUri = Buffer.from(res.tcUri ?? '', 'utf8');
  const cupsCred = res.cupsCred ?? Buffer.alloc(0);
  const tcCred = res.tcCred ?? Buffer.alloc(0);
  const update = res.updateData ?? Buffer.alloc(0);
  if (cupsUri.length > URI_MAX) return { error: `cupsUri is longer than ${URI_MAX} bytes` };
  if (tcUri.length > URI_MAX) return { error: `tcUri is longer than ${URI_MAX} bytes` };
  if (cupsCred.length > CRED_MAX) return { error: `cupsCred is longer than ${CRED_MAX} bytes` };
  if (tcCred.length > CRED_MAX) return { error: `tcCred is longer than ${CRED_MAX} bytes` };
  if (res.signature && (res.signature.value.length === 0 || res.signature.value.length > SIG_MAX))
    return { error: `the signature is not 1 to ${SIG_MAX} bytes long` };
  const u8 = (n: number) => Buffer.from([n]);
  const u16 = (n: number) => {
    const b = Buffer.alloc(2);
    b.writeUInt16LE(n);
    return b;
  };
  const u32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n);
    return b;
  };
  const sig = res.signature ? Buffer.concat([u32(res.signature.keyCrc), res.signature.value]) : Buffer.alloc(0);
  return Buffer.concat([
    u8(cupsUri.length),
    cupsUri,
    u8(tcUri.length),
    tcUri,
    u16(cupsCred.length),
    cupsCred,
    u16(tcCred.length),
    tcCred,
    u32(sig.length),
    sig,
    u32(update.length),
    update,
  ]);
}
