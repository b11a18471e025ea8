import { getBand } from './bands';
import type { BandId } from './types';

describe('band TX power offsets (RP002 TX power tables, TTS `Band.TxOffset`)', () => {
  it.each<[BandId, number]>([
    ['EU_863_870', 7],
    ['US_902_928', 14],
    ['AU_915_928', 14],
    ['AS_923', 7],
    ['IN_865_867', 10],
  ])('%s: TXPower 0 is the max EIRP, then 2 dB less per index up to TXPower %d', (bandId, maxIndex) => {
    const offsets = getBand(bandId).tx_power_offsets;
    expect(offsets).toHaveLength(maxIndex + 1);
    expect(offsets).toEqual(Array.from({ length: maxIndex + 1 }, (_, i) => (i === 0 ? 0 : -2 * i)));
    expect(Object.is(offsets[0], 0)).toBe(true);
  });
});
