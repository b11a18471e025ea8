import { getBand } from './bands';
import type { BandId } from './types';

/**
 * The channel part of a LinkADRReq (LoRaWAN 1.0.4 §5.3, RP002-1.0.x §2.x.5): ChMask (bit i = the
 * 16 channels the ChMaskCntl selects) and ChMaskCntl, in the field names of TTS's
 * `MACCommand.LinkADRReq` JSON. A device processes a contiguous block of LinkADRReqs as one change
 * and checks only the result (LoRaWAN 1.0.4 §5.3.1), so a sequence may pass through states that
 * enable no channel.
 */
export interface ChannelMaskBlock {
  channel_mask: boolean[];
  channel_mask_control: number;
}

export interface LinkAdrChannelMaskOptions {
  /**
   * What the device has enabled now (same indexing). When known, 16-channel groups that already
   * match are left out, and an unchanged mask is one no-op block, as TTS's `GenerateChMasks` does;
   * when omitted, every group is spelt out, so the blocks mean the same whatever the device has.
   */
  current?: readonly boolean[];
  /**
   * US915/AU915 only: the device knows ChMaskCntl 5 (RP001 1.0.3revA, RP001 1.1 and RP002; RFU in
   * RP001 1.0.2 and earlier). TTS then tries it as one more candidate (`makeGenerateChMask72(true, …)`).
   * Off unless the caller knows the device's regional parameters.
   */
  chMaskCntl5?: boolean;
}

const MASK_BITS = 16;
/** US915/AU915: 64 × 125 kHz channels (8 sub-bands of 8), then 8 × 500 kHz channels. */
const NARROW_CHANNELS = 64;
const FIXED_CHANNELS = 72;
const SUB_BAND_SIZE = 8;
/**
 * Fixed-plan bands addressed purely in groups of 16 channels: ChMaskCntl g masks channels
 * 16g…16g+15, one ChMaskCntl switches every channel on and, where the layout has one, another every
 * channel off (the ChMask then says nothing). TTS `parseChMask48/64/96` (`pkg/band/channel_mask.go`).
 */
interface GroupLayout {
  readonly channels: number;
  readonly allOn: number;
  readonly allOff?: number;
}
/** RP002 CN470-510 26 MHz plans: 48 channels, ChMaskCntl 0–2, 3 all on, 4 all off. */
const FIXED_48: GroupLayout = { channels: 48, allOn: 3, allOff: 4 };
/** RP002 CN470-510 20 MHz plans: 64 channels, ChMaskCntl 0–3, 6 all on, 7 all off. */
const FIXED_64: GroupLayout = { channels: 64, allOn: 6, allOff: 7 };
/** RP001 CN470-510: 96 channels, ChMaskCntl 0–5, 6 all on, 7 RFU. */
const FIXED_96: GroupLayout = { channels: 96, allOn: 6 };
const GROUP_LAYOUTS: readonly GroupLayout[] = [FIXED_48, FIXED_64, FIXED_96];

/** How a band's LinkADRReq addresses its channels: one ChMask of 16, US/AU's 64 + 8, or groups of 16 (CN470). */
type MaskLayout = 'DYNAMIC' | 'FIXED_72' | GroupLayout;

function layoutOf(bandId: BandId): MaskLayout {
  const band = getBand(bandId);
  if (band.cf_list_type === 'FREQUENCIES') return 'DYNAMIC';
  return GROUP_LAYOUTS.find((l) => l.channels === band.default_channels.length) ?? 'FIXED_72';
}

/**
 * The LinkADRReq ChMask/ChMaskCntl blocks, in the order to send them, after which a device has
 * exactly the channels `desiredEnabled` marks (index = channel index in `MACParameters.channels`).
 * Bands with a dynamic channel plan (EU-like, at most 16 channels): one ChMaskCntl 0 block, as TTS's
 * `generateChMask16` (ChMaskCntl 6 is never shorter). US915/AU915 (72 fixed channels): the shortest
 * of TTS's `generateChMask72` candidates (`pkg/band/channel_mask.go`):
 * - the explicit sequence: ChMaskCntl 0–3 for each group of 16 narrow channels, ChMaskCntl 4 for
 *   the 500 kHz channels;
 * - ChMaskCntl 6 (every 125 kHz channel on) or 7 (every one off), both carrying the 500 kHz mask,
 *   then ChMaskCntl 0–3 for the groups that differ from that;
 * - with `chMaskCntl5`, ChMaskCntl 5 (whole sub-bands on), whatever still differs after it and,
 *   where needed, ChMaskCntl 4 (`subBandSequence`); taken only when strictly shorter.
 * Ties go to the explicit sequence, then to ChMaskCntl 7, as in TTS; no 125 kHz channel or all of
 * them enabled is a single ChMaskCntl 7 / 6.
 * CN470-510 (RP001's 96 channels, RP002's 48 or 64): `groupMasks`.
 */
export function linkAdrChannelMasks(bandId: BandId, desiredEnabled: readonly boolean[], options: LinkAdrChannelMaskOptions = {}): ChannelMaskBlock[] {
  const layout = layoutOf(bandId);
  if (layout === 'DYNAMIC') return [maskBlock(0, padded(desiredEnabled, MASK_BITS))];
  if (layout !== 'FIXED_72') return groupMasks(layout, desiredEnabled, options.current);
  const desired = padded(desiredEnabled, FIXED_CHANNELS);
  const current = options.current && padded(options.current, FIXED_CHANNELS);
  if (current && sameChannels(current, desired)) return [maskBlock(0, desired.slice(0, MASK_BITS))];
  const wide = desired.slice(NARROW_CHANNELS);
  const narrowOn = desired.slice(0, NARROW_CHANNELS).filter(Boolean).length;
  if (narrowOn === 0) return [maskBlock(7, wide)];
  if (narrowOn === NARROW_CHANNELS) return [maskBlock(6, wide)];
  const explicit = blocksFrom(current, desired);
  const allOn = startingWith(maskBlock(6, wide), desired);
  const allOff = startingWith(maskBlock(7, wide), desired);
  let best = explicit.length <= allOn.length && explicit.length <= allOff.length ? explicit : allOn.length < allOff.length ? allOn : allOff;
  if (options.chMaskCntl5) {
    const subBands = subBandSequence(current, desired);
    if (subBands.length < best.length) best = subBands;
  }
  return best;
}

/**
 * The channels a device has after accepting `blocks` in order, starting from `currentEnabled`;
 * undefined when the device would answer ChannelMaskACK = 0: an RFU ChMaskCntl, a mask that enables
 * a channel the device does not have, or a result with no channel enabled (LoRaWAN 1.0.4 §5.3.2).
 * The NS applies this to `current_parameters.channels` when a LinkADRAns acknowledges the request
 * (TTS `HandleLinkADRAns` with `Band.ParseChMask`).
 */
export function applyLinkAdrChannelMasks(bandId: BandId, currentEnabled: readonly boolean[], blocks: readonly ChannelMaskBlock[]): boolean[] | undefined {
  const layout = layoutOf(bandId);
  let channels: boolean[] | undefined = [...currentEnabled];
  for (const block of blocks) {
    if (!channels) return undefined;
    const assignments =
      layout === 'DYNAMIC'
        ? dynamicPlanAssignments(block, channels.length)
        : layout === 'FIXED_72'
          ? fixedPlanAssignments(block)
          : groupAssignments(layout, block);
    channels = applyBlock(channels, assignments);
  }
  return channels?.some(Boolean) ? channels : undefined;
}

/** Channel index → enabled, as one block sets them; undefined for a block the band does not define. */
type Assignments = ReadonlyArray<readonly [index: number, enabled: boolean]>;

/**
 * Dynamic channel plans (RP002 EU868 and alike): ChMaskCntl 0 masks channels 0–15, ChMaskCntl 6
 * enables every defined channel whatever the mask says; the others are RFU.
 */
function dynamicPlanAssignments(block: ChannelMaskBlock, definedChannels: number): Assignments | undefined {
  const mask = maskOf(block);
  if (!mask) return undefined;
  switch (block.channel_mask_control) {
    case 0:
      return mask.map((on, i) => [i, on] as const);
    case 6:
      return Array.from({ length: definedChannels }, (_, i) => [i, true] as const);
    default:
      return undefined;
  }
}

/**
 * US915/AU915 (RP002 §2.5.5, §2.7.5): ChMaskCntl 0–3 mask a group of 16 narrow channels, 4 the
 * 500 kHz channels (bits 0–7); 5 switches whole sub-bands, bit i being channels 8i…8i+7 and 500 kHz
 * channel 64+i, as the RP002 text and the LoRaMac-node reference have it (TTS's `parseChMask72`
 * leaves the 500 kHz channels alone; see `subBandSequence`);
 * 6 and 7 switch every narrow channel on or off and mask the 500 kHz channels.
 */
function fixedPlanAssignments(block: ChannelMaskBlock): Assignments | undefined {
  const mask = maskOf(block);
  if (!mask) return undefined;
  const cntl = block.channel_mask_control;
  const wide = mask.slice(0, SUB_BAND_SIZE).map((on, i) => [NARROW_CHANNELS + i, on] as const);
  const narrow = (enabled: (index: number) => boolean) => Array.from({ length: NARROW_CHANNELS }, (_, i) => [i, enabled(i)] as const);
  switch (cntl) {
    case 0:
    case 1:
    case 2:
    case 3:
      return mask.map((on, i) => [MASK_BITS * cntl + i, on] as const);
    case 4:
      return wide;
    case 5:
      return [...narrow((i) => mask[Math.floor(i / SUB_BAND_SIZE)]), ...wide];
    case 6:
      return [...narrow(() => true), ...wide];
    case 7:
      return [...narrow(() => false), ...wide];
    default:
      return undefined;
  }
}

/**
 * CN470-510 (RP001-1.1revB §2.6.5, RP002-1.0.4 "CN470-510 LinkAdrReq command"; TTS
 * `parseChMask48/64/96`): ChMaskCntl g below the number of groups masks that group of 16
 * channels; the layout's all-on and all-off ChMaskCntl switch every channel whatever the mask says;
 * the others are RFU.
 */
function groupAssignments(layout: GroupLayout, block: ChannelMaskBlock): Assignments | undefined {
  const mask = maskOf(block);
  if (!mask) return undefined;
  const cntl = block.channel_mask_control;
  if (cntl < layout.channels / MASK_BITS) return mask.map((on, i) => [MASK_BITS * cntl + i, on] as const);
  if (cntl === layout.allOn || cntl === layout.allOff) return Array.from({ length: layout.channels }, (_, i) => [i, cntl === layout.allOn] as const);
  return undefined;
}

/**
 * The blocks of a layout in groups of 16, as TTS's `generateChMask48/64/96`: an unchanged mask is one
 * no-op block (TTS's 48/64 generators return no block then; a LinkADRReq needs one); RP001's all 96
 * channels one ChMaskCntl 6. Otherwise the explicit ChMaskCntl blocks for the groups that differ
 * (every group when `current` is unknown) when there are at most two of them or no candidate is
 * shorter; else the all-on block followed by the groups not all on, or the all-off block followed
 * by the groups not all off, whichever is strictly shorter, ties to all-off (TTS's choice).
 */
function groupMasks(layout: GroupLayout, desiredEnabled: readonly boolean[], currentEnabled: readonly boolean[] | undefined): ChannelMaskBlock[] {
  const groups = layout.channels / MASK_BITS;
  const desired = padded(desiredEnabled, layout.channels);
  const current = currentEnabled && padded(currentEnabled, layout.channels);
  if (current && sameChannels(current, desired)) return [maskBlock(0, desired.slice(0, MASK_BITS))];
  if (layout === FIXED_96 && desired.every(Boolean)) return [maskBlock(layout.allOn, [])];
  const explicit = groupBlocks(current, desired, groups);
  if (explicit.length <= 2) return explicit;
  const startingFrom = (cntl: number, on: boolean) => [maskBlock(cntl, []), ...groupBlocks(new Array<boolean>(layout.channels).fill(on), desired, groups)];
  const allOn = startingFrom(layout.allOn, true);
  const allOff = layout.allOff === undefined ? undefined : startingFrom(layout.allOff, false);
  if (explicit.length <= allOn.length && (!allOff || explicit.length <= allOff.length)) return explicit;
  return !allOff || allOn.length < allOff.length ? allOn : allOff;
}

/** ChMaskCntl g for each of the first `groups` groups of 16 channels that differs between `from` (unknown: every group) and `desired`. */
function groupBlocks(from: readonly boolean[] | undefined, desired: readonly boolean[], groups: number): ChannelMaskBlock[] {
  const blocks: ChannelMaskBlock[] = [];
  for (let group = 0; group < groups; group++) {
    const bits = desired.slice(group * MASK_BITS, (group + 1) * MASK_BITS);
    if (!from || bits.some((on, i) => on !== from[group * MASK_BITS + i])) blocks.push(maskBlock(group, bits));
  }
  return blocks;
}

/** A block's 16 mask bits (missing bits off); undefined for a ChMaskCntl or mask no LinkADRReq can carry. */
function maskOf(block: ChannelMaskBlock): boolean[] | undefined {
  const cntl = block.channel_mask_control;
  if (!Number.isInteger(cntl) || cntl < 0 || cntl > 7 || block.channel_mask.length > MASK_BITS) return undefined;
  return padded(block.channel_mask, MASK_BITS);
}

/** The channels after one block; undefined when it is invalid or enables a channel the device lacks. */
function applyBlock(channels: readonly boolean[], assignments: Assignments | undefined): boolean[] | undefined {
  if (!assignments) return undefined;
  const next = [...channels];
  for (const [index, enabled] of assignments) {
    if (index < next.length) next[index] = enabled;
    else if (enabled) return undefined;
  }
  return next;
}

/**
 * The explicit blocks that take a device from `from` (unknown: assume every group differs) to
 * `desired`: ChMaskCntl 0–3 for each group of 16 narrow channels that differs, ChMaskCntl 4 when
 * the 500 kHz channels do (TTS `generateChMaskMatrix` and its ChMaskCntl 4 check).
 */
function blocksFrom(from: readonly boolean[] | undefined, desired: readonly boolean[]): ChannelMaskBlock[] {
  const blocks = groupBlocks(from, desired, NARROW_CHANNELS / MASK_BITS);
  const wideDiffers = !from || desired.slice(NARROW_CHANNELS, FIXED_CHANNELS).some((on, i) => on !== from[NARROW_CHANNELS + i]);
  if (wideDiffers) blocks.push(maskBlock(4, desired.slice(NARROW_CHANNELS)));
  return blocks;
}

/** A sequence opening with a block that sets all 72 channels (ChMaskCntl 5, 6 or 7), completed by what still differs. */
function startingWith(head: ChannelMaskBlock, desired: readonly boolean[]): ChannelMaskBlock[] {
  const afterHead = applyBlock(new Array<boolean>(FIXED_CHANNELS).fill(false), fixedPlanAssignments(head));
  return [head, ...blocksFrom(afterHead, desired)];
}

/**
 * The ChMaskCntl 5 candidate: the sub-bands whose channels are all desired, then what still
 * differs. Devices read ChMaskCntl 5 two ways (RP002 and LoRaMac-node switch sub-band i's 500 kHz
 * channel with it, TTS assumes it leaves the 500 kHz channels as they were), so the sequence ends
 * with ChMaskCntl 4 unless both readings give the desired 500 kHz channels.
 */
function subBandSequence(current: readonly boolean[] | undefined, desired: readonly boolean[]): ChannelMaskBlock[] {
  const blocks = startingWith(maskBlock(5, fullSubBands(desired)), desired);
  const wideUnchanged = current !== undefined && current.slice(NARROW_CHANNELS).every((on, i) => on === desired[NARROW_CHANNELS + i]);
  const endsWithWide = blocks[blocks.length - 1].channel_mask_control === 4;
  return wideUnchanged || endsWithWide ? blocks : [...blocks, maskBlock(4, desired.slice(NARROW_CHANNELS))];
}

/** ChMaskCntl 5's mask: the sub-bands whose eight narrow channels are all desired (TTS `fsbs`). */
function fullSubBands(desired: readonly boolean[]): boolean[] {
  return Array.from({ length: NARROW_CHANNELS / SUB_BAND_SIZE }, (_, i) => desired.slice(SUB_BAND_SIZE * i, SUB_BAND_SIZE * (i + 1)).every(Boolean));
}

function maskBlock(cntl: number, bits: readonly boolean[]): ChannelMaskBlock {
  return { channel_mask: padded(bits, MASK_BITS), channel_mask_control: cntl };
}

/** `values` extended with `false` to `length`; a longer list is a channel the band cannot have. */
function padded(values: readonly boolean[], length: number): boolean[] {
  if (values.length > length) throw new RangeError(`${values.length} channels; the band's LinkADRReq addresses at most ${length}`);
  return Array.from({ length }, (_, i) => values[i] === true);
}

function sameChannels(a: readonly boolean[], b: readonly boolean[]): boolean {
  return a.length === b.length && a.every((on, i) => on === b[i]);
}
