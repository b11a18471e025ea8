import { getBand } from './bands';
import { getFrequencyPlan } from './catalogue';
import { applyLinkAdrChannelMasks, type ChannelMaskBlock, linkAdrChannelMasks } from './link-adr-masks';
import type { BandId } from './types';

/** Channel indexes → a list of `length` flags with those set. */
const enabled = (length: number, ...indexes: number[]): boolean[] => Array.from({ length }, (_, i) => indexes.includes(i));
const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);
/** A 16-bit mask with bits `indexes` set. */
const bits = (...indexes: number[]): boolean[] => enabled(16, ...indexes);
const block = (cntl: number, ...indexes: number[]): ChannelMaskBlock => ({ channel_mask: bits(...indexes), channel_mask_control: cntl });

/** A plan's channels as the device indexes them (the band's defaults first, then extra frequencies), and which are on. */
function planEnabled(planId: string): boolean[] {
  const plan = getFrequencyPlan(planId);
  if (!plan) throw new Error(`no plan ${planId}`);
  const defaults = getBand(plan.band_id).default_channels.map((c) => c.uplink_frequency);
  const extra = plan.uplink_channels.map((c) => c.frequency).filter((f) => !defaults.includes(f));
  const on = new Set(plan.uplink_channels.map((c) => c.frequency));
  return [...defaults, ...extra].map((f) => on.has(f));
}

const US_ALL = enabled(72, ...range(0, 71));
const US_FSB2 = enabled(72, ...range(8, 15), 65);

describe('LinkADRReq channel masks', () => {
  describe('round trips: the device ends up with exactly the desired channels', () => {
    const cases: Array<[string, BandId, boolean[], boolean[]]> = [
      ['EU868: 3 default + 5 plan channels, from the defaults only', 'EU_863_870', enabled(8, 0, 1, 2), planEnabled('EU_863_870')],
      ['EU868: one plan channel off', 'EU_863_870', planEnabled('EU_863_870'), enabled(8, 0, 1, 2, 3, 4, 6, 7)],
      ['US915 FSB2 (channels 8–15 + 65), from boot (all 72 on)', 'US_902_928', US_ALL, planEnabled('US_902_928_FSB_2')],
      ['AU915 FSB2, from boot', 'AU_915_928', US_ALL, planEnabled('AU_915_928_FSB_2')],
      ['US915 all but channel 0 and the 500 kHz channels', 'US_902_928', US_FSB2, enabled(72, ...range(1, 63))],
      ['US915 sub-bands 1, 3 and 8 in part', 'US_902_928', US_ALL, enabled(72, 0, 5, 20, 21, 63, 64, 71)],
      ['US915 every other sub-band', 'US_902_928', US_ALL, enabled(72, ...range(0, 7), ...range(16, 23), ...range(32, 39), ...range(48, 55), 64, 66, 68, 70)],
    ];
    it.each(cases)('%s', (_name, bandId, current, desired) => {
      expect(applyLinkAdrChannelMasks(bandId, current, linkAdrChannelMasks(bandId, desired))).toEqual(desired);
      expect(applyLinkAdrChannelMasks(bandId, current, linkAdrChannelMasks(bandId, desired, { current }))).toEqual(desired);
      expect(applyLinkAdrChannelMasks(bandId, current, linkAdrChannelMasks(bandId, desired, { current, chMaskCntl5: true }))).toEqual(desired);
    });

    it('the catalogue plans are what the cases above assume', () => {
      expect(planEnabled('EU_863_870')).toEqual(enabled(8, ...range(0, 7)));
      expect(planEnabled('US_902_928_FSB_2')).toEqual(US_FSB2);
    });
  });

  describe('the blocks chosen', () => {
    it('EU868: one ChMaskCntl 0 block with the desired channels', () => {
      expect(linkAdrChannelMasks('EU_863_870', planEnabled('EU_863_870'))).toEqual([block(0, ...range(0, 7))]);
      expect(linkAdrChannelMasks('AS_923', enabled(2, 1))).toEqual([block(0, 1)]);
    });

    it('US915 FSB2: ChMaskCntl 7 with 500 kHz channel 65, then ChMaskCntl 0 for channels 8–15 (TTS from boot)', () => {
      const expected = [block(7, 1), block(0, ...range(8, 15))];
      expect(linkAdrChannelMasks('US_902_928', US_FSB2)).toEqual(expected);
      expect(linkAdrChannelMasks('US_902_928', US_FSB2, { current: US_ALL })).toEqual(expected);
    });

    it('US915: every 125 kHz channel on or off is a single ChMaskCntl 6 / 7 carrying the 500 kHz mask', () => {
      expect(linkAdrChannelMasks('US_902_928', US_ALL)).toEqual([block(6, ...range(0, 7))]);
      expect(linkAdrChannelMasks('US_902_928', enabled(72, 64, 70))).toEqual([block(7, 0, 6)]);
    });

    it('US915: nearly all on starts from ChMaskCntl 6 and masks the one group that differs', () => {
      expect(linkAdrChannelMasks('US_902_928', enabled(72, ...range(1, 63)))).toEqual([block(6), block(0, ...range(1, 15))]);
    });

    it('US915 with the current channels known: only the groups that change, or one no-op block when none does', () => {
      const fsb2and3 = enabled(72, ...range(8, 23), 65);
      expect(linkAdrChannelMasks('US_902_928', fsb2and3, { current: US_FSB2 })).toEqual([block(1, ...range(0, 7))]);
      expect(linkAdrChannelMasks('US_902_928', enabled(72, ...range(8, 15), 64), { current: US_FSB2 })).toEqual([block(4, 0)]);
      expect(linkAdrChannelMasks('US_902_928', US_FSB2, { current: US_FSB2 })).toEqual([block(0, ...range(8, 15))]);
    });

    it('US915 with ChMaskCntl 5: whole sub-bands in one block, the 500 kHz channels spelt out unless unchanged; used only when shorter', () => {
      const oddSubBands = enabled(72, ...range(0, 7), ...range(16, 23), ...range(32, 39), ...range(48, 55), 64, 66, 68, 70);
      expect(linkAdrChannelMasks('US_902_928', oddSubBands, { chMaskCntl5: true })).toEqual([block(5, 0, 2, 4, 6), block(4, 0, 2, 4, 6)]);
      // Without it, five blocks every way: the explicit sequence wins the tie, as in TTS.
      expect(linkAdrChannelMasks('US_902_928', oddSubBands)).toEqual([...[0, 1, 2, 3].map((g) => block(g, ...range(0, 7))), block(4, 0, 2, 4, 6)]);
      const allNarrowOddWide = enabled(72, ...range(0, 63), 64, 66, 68, 70);
      expect(linkAdrChannelMasks('US_902_928', oddSubBands, { chMaskCntl5: true, current: allNarrowOddWide })).toEqual([block(5, 0, 2, 4, 6)]);
      // FSB2 + 65: ChMaskCntl 5 and 4 are no shorter than TTS's ChMaskCntl 7 and 0.
      expect(linkAdrChannelMasks('US_902_928', US_FSB2, { chMaskCntl5: true })).toEqual([block(7, 1), block(0, ...range(8, 15))]);
    });

    it('refuses more channels than the band addresses', () => {
      expect(() => linkAdrChannelMasks('EU_863_870', enabled(17, 16))).toThrow(RangeError);
      expect(() => linkAdrChannelMasks('US_902_928', enabled(73, 0))).toThrow(RangeError);
    });
  });

  describe('what the device does with them', () => {
    it('EU868: ChMaskCntl 6 enables every defined channel; RFU ChMaskCntl values are refused', () => {
      expect(applyLinkAdrChannelMasks('EU_863_870', enabled(8, 0), [block(6)])).toEqual(enabled(8, ...range(0, 7)));
      for (const cntl of [1, 2, 3, 4, 5, 7]) expect(applyLinkAdrChannelMasks('EU_863_870', enabled(8, 0), [block(cntl, 0)])).toBeUndefined();
    });

    it('refuses a mask that enables a channel the device does not have, or leaves none enabled', () => {
      expect(applyLinkAdrChannelMasks('EU_863_870', enabled(8, 0), [block(0, 0, 9)])).toBeUndefined();
      expect(applyLinkAdrChannelMasks('EU_863_870', enabled(8, 0), [block(0)])).toBeUndefined();
      expect(applyLinkAdrChannelMasks('US_902_928', US_ALL, [block(7)])).toBeUndefined();
      expect(applyLinkAdrChannelMasks('US_902_928', US_ALL, [{ channel_mask: bits(0), channel_mask_control: 8 }])).toBeUndefined();
      expect(applyLinkAdrChannelMasks('US_902_928', US_ALL, [{ channel_mask: enabled(17, 0), channel_mask_control: 0 }])).toBeUndefined();
    });

    it('processes a block as a whole: an intermediate state with no channel is fine', () => {
      expect(applyLinkAdrChannelMasks('US_902_928', US_ALL, [block(7), block(3, 15)])).toEqual(enabled(72, 63));
    });

    it('US915: ChMaskCntl 4 sets the 500 kHz channels, 5 whole sub-bands and their 500 kHz channel', () => {
      expect(applyLinkAdrChannelMasks('US_902_928', US_FSB2, [block(4, 0, 7)])).toEqual(enabled(72, ...range(8, 15), 64, 71));
      expect(applyLinkAdrChannelMasks('US_902_928', US_ALL, [block(5, 1, 7)])).toEqual(enabled(72, ...range(8, 15), ...range(56, 63), 65, 71));
    });
  });
});
