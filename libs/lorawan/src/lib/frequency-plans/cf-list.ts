import { getBand } from './bands';
import type { FrequencyPlan } from './types';

/**
 * The CFList a join-accept carries for a frequency plan (LoRaWAN 1.0.2+ §6.2.5, RP002 §2.x.4), as
 * TTS's structured message: EU-like bands list up to five channels beyond the band's defaults
 * (frequency / 100 Hz); US915/AU915 send the masks of the plan's 72 channels (ChMask0–4), CN470
 * of its 96 (ChMask0–5, RP001-1.1revB §2.6.4), RP002's CN470 plans of their 64 or 48 (ChMask0–3 or
 * 0–2, as TTS's generic channel-mask CFList). Undefined when the
 * plan adds nothing to the band's defaults.
 */
export function cfListMessage(plan: FrequencyPlan): CFListMessage | undefined {
  const band = getBand(plan.band_id);
  if (band.cf_list_type === 'FREQUENCIES') {
    const defaults = new Set(band.default_channels.map((c) => c.uplink_frequency));
    const extra = plan.uplink_channels.filter((c) => !defaults.has(c.frequency)).slice(0, 5);
    return extra.length === 0 ? undefined : { type: 'FREQUENCIES', freq: extra.map((c) => Math.round(Number(c.frequency) / 100)) };
  }
  const enabled = new Set(plan.uplink_channels.map((c) => c.frequency));
  return { type: 'CHANNEL_MASKS', ch_masks: band.default_channels.map((c) => enabled.has(c.uplink_frequency)) };
}

/**
 * The CFList bytes of a plan: `cfListMessage` on the air (24-bit little-endian frequencies and type
 * 0, or up to six 16-bit ChMasks, RFU zeros and type 1).
 */
export function cfList(plan: FrequencyPlan): Buffer | undefined {
  return cfListBytes(cfListMessage(plan));
}

/** TTS's structured CFList (`ttn.lorawan.v3.CFList`): frequencies in units of 100 Hz, or channel mask bits. */
export interface CFListMessage {
  type?: string;
  freq?: number[];
  ch_masks?: boolean[];
}

/** The 16 bytes of a structured CFList; undefined when it has nothing to say. */
export function cfListBytes(message: CFListMessage | undefined): Buffer | undefined {
  if (!message) return undefined;
  const out = Buffer.alloc(16);
  if ((message.type ?? 'FREQUENCIES') === 'FREQUENCIES') {
    const freq = (message.freq ?? []).slice(0, 5);
    if (freq.length === 0) return undefined;
    freq.forEach((f, i) => out.writeUIntLE(f & 0xffffff, 3 * i, 3));
    return out;
  }
  // Six ChMasks (CN470's 96 channels) fill 12 of the 15 bytes before the type.
  (message.ch_masks ?? []).slice(0, 96).forEach((on, i) => {
    if (on) out[i >> 3] |= 1 << (i & 7);
  });
  out[15] = 1;
  return out;
}
