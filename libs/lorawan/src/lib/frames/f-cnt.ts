/**
 * Frame counters (LoRaWAN 1.0.x §4.3.1.5; TTS `pkg/networkserver/internal` FullFCnt, dataplane-notes
 * §2.6): only the low 16 bits travel; the network keeps the 32-bit counter and recovers it from the
 * last one it accepted.
 */

/** Before LoRaWAN 1.0.4, an FCnt more than this far ahead of the last is not the device's (RP002: MAX_FCNT_GAP). */
export const MAX_FCNT_GAP = 16384;

/**
 * The 32-bit FCnt of an uplink whose low 16 bits are `fCnt16`, after the last accepted `last`:
 * the same high half if the low half did not go back, the next one if it wrapped (never past
 * 2^32 − 1). Devices with 16-bit counters (`supports32BitFCnt` false) use the 16 bits as they are.
 */
export function fullFCnt(fCnt16: number, last: number | undefined, supports32BitFCnt = true): number {
  if (!supports32BitFCnt || last === undefined) return fCnt16 & 0xffff;
  const high = last - (last & 0xffff);
  if (fCnt16 >= (last & 0xffff)) return high + fCnt16;
  if (last >= 0xffff0000) return high + fCnt16;
  return high + 0x10000 + fCnt16;
}
