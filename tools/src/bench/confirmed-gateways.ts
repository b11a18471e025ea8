import { txpkAirtimeUs } from '@lorawan/testing';

/**
 * How many gateways a confirmed sub-phase needs for its rate (bench README, "Gateways for confirmed
 * uplinks"). Every confirmed uplink is answered in RX1 by the gateway that heard it best, and one
 * radio sends one frame at a time: each downlink holds it for its time on air plus the 33 ms the
 * Semtech JIT queue needs after it (the GS's scheduler books the same), and the copies of an
 * uplink arrive up to `jitterMs` apart. The sub-phase makes each gateway best in turn (round
 * robin), so gateway g answers every `gateways / rate` seconds, which must hold the longest
 * answer: gateways = ceil(rate × slot), slot = the longest answer's airtime at the sub-phase's
 * slowest data rate + 33 ms + the jitter. Never fewer than the gateways that hear each uplink.
 */

/** The longest EU868 join-accept (PHYPayload): MHDR, AppNonce, NetID, DevAddr, DLSettings, RxDelay, the CFList, MIC. */
export const JOIN_ACCEPT_BYTES = 1 + 3 + 3 + 4 + 1 + 1 + 16 + 4;

/** µs the radio needs after a transmission before the next (jitqueue.c TX_START_DELAY + TX_JIT_DELAY + TX_MARGIN_DELAY, as the GS books it). */
export const RADIO_GAP_US = 33_000;

/** µs a radio is held by one answer of `bytes` (PHYPayload) at the slowest of `dataRates` (LoRa, `SF<n>BW<kHz>`), the gap and the jitter included. */
export function answerSlotUs(dataRates: readonly string[], bytes: number, jitterMs: number): number {
  // Downlinks go without the payload CRC (`ncrc`), as the GS sends them.
  const airtimes = dataRates.map((datr) => txpkAirtimeUs({ modu: 'LORA', datr, codr: '4/5', size: bytes, ncrc: true }));
  return Math.max(0, ...airtimes) + RADIO_GAP_US + Math.round(jitterMs * 1000);
}

/** The gateways a sub-phase offering `ratePerS` confirmed uplinks needs (each busy `slotUs` per answer), at least `heardBy`. */
export function confirmedGateways(ratePerS: number, slotUs: number, heardBy: number): number {
  return Math.max(heardBy, Math.ceil((ratePerS * slotUs) / 1e6));
}
