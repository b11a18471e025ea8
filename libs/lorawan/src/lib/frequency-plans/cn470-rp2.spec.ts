import { pingSlotFrequency } from '../class-b/ping-slots';
import { getBand } from './bands';
import { cfList } from './cf-list';
import { dataRate, dataRateIndexOf, maxMacPayload, rx1DataRateIndex } from './data-rates';
import { applyLinkAdrChannelMasks, type ChannelMaskBlock, linkAdrChannelMasks } from './link-adr-masks';
import { classARxWindows, rx1FrequencyOf } from './rx-windows';
import type { BandId, FrequencyPlan } from './types';

/**
 * RP002-1.0.4's four CN470-510 channel plans, held against tables written here by hand from TTS's
 * band files (`pkg/band/cn_470_510_{20,26}_{a,b}.go` and `…_rp2_v1_0_4.go`) and `channel_mask.go`:
 * channel frequencies in rows of 16 (one ChMask each), RX1 channels, RX2, data rates with M, RX1
 * data rates (`cn470510DownlinkDRTable`), class B channels and the LinkADRReq layouts of 48 and 64
 * channels.
 */

const MHz = (f: number) => String(Math.round(f * 1e6));

const A20_UPLINK_MHZ: number[][] = [
  [470.3, 470.5, 470.7, 470.9, 471.1, 471.3, 471.5, 471.7, 471.9, 472.1, 472.3, 472.5, 472.7, 472.9, 473.1, 473.3],
  [473.5, 473.7, 473.9, 474.1, 474.3, 474.5, 474.7, 474.9, 475.1, 475.3, 475.5, 475.7, 475.9, 476.1, 476.3, 476.5],
  [503.5, 503.7, 503.9, 504.1, 504.3, 504.5, 504.7, 504.9, 505.1, 505.3, 505.5, 505.7, 505.9, 506.1, 506.3, 506.5],
  [506.7, 506.9, 507.1, 507.3, 507.5, 507.7, 507.9, 508.1, 508.3, 508.5, 508.7, 508.9, 509.1, 509.3, 509.5, 509.7],
];
const A20_DOWNLINK_MHZ: number[][] = [
  [483.9, 484.1, 484.3, 484.5, 484.7, 484.9, 485.1, 485.3, 485.5, 485.7, 485.9, 486.1, 486.3, 486.5, 486.7, 486.9],
  [487.1, 487.3, 487.5, 487.7, 487.9, 488.1, 488.3, 488.5, 488.7, 488.9, 489.1, 489.3, 489.5, 489.7, 489.9, 490.1],
  [490.3, 490.5, 490.7, 490.9, 491.1, 491.3, 491.5, 491.7, 491.9, 492.1, 492.3, 492.5, 492.7, 492.9, 493.1, 493.3],
  [493.5, 493.7, 493.9, 494.1, 494.3, 494.5, 494.7, 494.9, 495.1, 495.3, 495.5, 495.7, 495.9, 496.1, 496.3, 496.5],
];
/** Type B answers on the uplink frequencies. */
const B20_MHZ: number[][] = [
  [476.9, 477.1, 477.3, 477.5, 477.7, 477.9, 478.1, 478.3, 478.5, 478.7, 478.9, 479.1, 479.3, 479.5, 479.7, 479.9],
  [480.1, 480.3, 480.5, 480.7, 480.9, 481.1, 481.3, 481.5, 481.7, 481.9, 482.1, 482.3, 482.5, 482.7, 482.9, 483.1],
  [496.9, 497.1, 497.3, 497.5, 497.7, 497.9, 498.1, 498.3, 498.5, 498.7, 498.9, 499.1, 499.3, 499.5, 499.7, 499.9],
  [500.1, 500.3, 500.5, 500.7, 500.9, 501.1, 501.3, 501.5, 501.7, 501.9, 502.1, 502.3, 502.5, 502.7, 502.9, 503.1],
];
/** 26 MHz type A: the 20 MHz type A's first group of 32, then 16 more. */
const A26_UPLINK_MHZ: number[][] = [
  ...A20_UPLINK_MHZ.slice(0, 2),
  [476.7, 476.9, 477.1, 477.3, 477.5, 477.7, 477.9, 478.1, 478.3, 478.5, 478.7, 478.9, 479.1, 479.3, 479.5, 479.7],
];
const A26_DOWNLINK_MHZ: number[][] = [
  [490.1, 490.3, 490.5, 490.7, 490.9, 491.1, 491.3, 491.5, 491.7, 491.9, 492.1, 492.3, 492.5, 492.7, 492.9, 493.1],
  [493.3, 493.5, 493.7, 493.9, 494.1, 494.3, 494.5, 494.7],
];
const B26_UPLINK_MHZ: number[][] = [
  [480.3, 480.5, 480.7, 480.9, 481.1, 481.3, 481.5, 481.7, 481.9, 482.1, 482.3, 482.5, 482.7, 482.9, 483.1, 483.3],
  [483.5, 483.7, 483.9, 484.1, 484.3, 484.5, 484.7, 484.9, 485.1, 485.3, 485.5, 485.7, 485.9, 486.1, 486.3, 486.5],
  [486.7, 486.9, 487.1, 487.3, 487.5, 487.7, 487.9, 488.1, 488.3, 488.5, 488.7, 488.9, 489.1, 489.3, 489.5, 489.7],
];
const B26_DOWNLINK_MHZ: number[][] = [
  [500.1, 500.3, 500.5, 500.7, 500.9, 501.1, 501.3, 501.5, 501.7, 501.9, 502.1, 502.3, 502.5, 502.7, 502.9, 503.1],
  [503.3, 503.5, 503.7, 503.9, 504.1, 504.3, 504.5, 504.7],
];

interface Plan {
  id: BandId;
  uplinks: number[][];
  downlinks: number[][];
  /** Downlink channel of uplink channel n. */
  rx1: (n: number) => number;
  /** [uplink channel, its MHz, RX1 MHz], worked out by hand. */
  samples: Array<[number, number, number]>;
  rx2MHz: number;
  /** Beacon and ping-slot channel; null: none (TTS defines none for the 20 MHz plans). */
  classBMHz: number | null;
}

const PLANS: Plan[] = [
  {
    id: 'CN_470_510_20_A',
    uplinks: A20_UPLINK_MHZ,
    downlinks: A20_DOWNLINK_MHZ,
    rx1: (n) => n,
    samples: [
      [0, 470.3, 483.9],
      [31, 476.5, 490.1],
      [33, 503.7, 490.5],
      [63, 509.7, 496.5],
    ],
    rx2MHz: 486.9,
    classBMHz: null,
  },
  {
    id: 'CN_470_510_20_B',
    uplinks: B20_MHZ,
    downlinks: B20_MHZ,
    rx1: (n) => n,
    samples: [
      [0, 476.9, 476.9],
      [40, 498.5, 498.5],
      [63, 503.1, 503.1],
    ],
    rx2MHz: 498.3,
    classBMHz: null,
  },
  {
    id: 'CN_470_510_26_A',
    uplinks: A26_UPLINK_MHZ,
    downlinks: A26_DOWNLINK_MHZ,
    rx1: (n) => n % 24,
    samples: [
      [0, 470.3, 490.1],
      [23, 474.9, 494.7],
      [24, 475.1, 490.1],
      [30, 476.3, 491.3],
      [47, 479.7, 494.7],
    ],
    rx2MHz: 492.5,
    classBMHz: 494.9,
  },
  {
    id: 'CN_470_510_26_B',
    uplinks: B26_UPLINK_MHZ,
    downlinks: B26_DOWNLINK_MHZ,
    rx1: (n) => n % 24,
    samples: [
      [0, 480.3, 500.1],
      [30, 486.3, 501.3],
      [47, 489.7, 504.7],
    ],
    rx2MHz: 502.5,
    classBMHz: 504.9,
  },
];

/** TTS RP2 v1.0.4 data rates of all four plans: DR1–DR7, LoRa [SF, kHz] or FSK, and M. DR0 is not one of them. */
const DATA_RATES: Array<[index: number, modulation: [number, number] | 'FSK', m: number]> = [
  [1, [11, 125], 31],
  [2, [10, 125], 94],
  [3, [9, 125], 172],
  [4, [8, 125], 250],
  [5, [7, 125], 250],
  [6, [7, 500], 250],
  [7, 'FSK', 250],
];

/** TTS `cn470510DownlinkDRTable`: uplink DR0–DR5 × RX1DROffset 0–5. */
const RX1: number[][] = [
  [0, 0, 0, 0, 0, 0],
  [1, 0, 0, 0, 0, 0],
  [2, 1, 0, 0, 0, 0],
  [3, 2, 1, 0, 0, 0],
  [4, 3, 2, 1, 0, 0],
  [5, 4, 3, 2, 1, 0],
];

function testPlan(p: Plan, enabled: (channel: number) => boolean = () => true): FrequencyPlan {
  const band = getBand(p.id);
  return {
    id: `TEST_${p.id}`,
    name: p.id,
    description: '',
    band_id: p.id,
    base_frequency: 470,
    uplink_channels: p.uplinks
      .flat()
      .filter((_, n) => enabled(n))
      .map((f) => ({ frequency: MHz(f), min_data_rate_index: 1, max_data_rate_index: 5 })),
    rx2: band.default_rx2,
    max_eirp: band.default_max_eirp,
    rx1_delay: band.rx1_delay,
    sub_bands: band.sub_bands,
  };
}

describe.each(PLANS)('$id (RP002-1.0.4, TTS RP2 v1.0.4)', (p) => {
  const band = getBand(p.id);
  const uplinks = p.uplinks.flat();
  const downlinks = p.downlinks.flat();

  it('uplink channels DR1–DR5, the downlink channel set, RX1 on the channel the plan maps each uplink channel to', () => {
    expect(band.default_channels).toEqual(
      uplinks.map((f, n) => ({ uplink_frequency: MHz(f), downlink_frequency: MHz(downlinks[p.rx1(n)]), min_data_rate_index: 1, max_data_rate_index: 5 })),
    );
    expect(band.downlink_channels).toEqual(downlinks.map((f) => ({ frequency: MHz(f), min_data_rate_index: 1, max_data_rate_index: 5 })));
    const all = testPlan(p);
    for (const [n, up, down] of p.samples) {
      expect([n, MHz(uplinks[n])]).toEqual([n, MHz(up)]);
      expect([n, rx1FrequencyOf(all, MHz(up))]).toEqual([n, MHz(down)]);
    }
    // 200 kHz off the grid: no channel.
    expect(rx1FrequencyOf(all, MHz(uplinks[0] + 0.1))).toBeUndefined();
    expect([band.cf_list_type, band.max_adr_data_rate_index]).toEqual(['CHANNEL_MASKS', 5]);
  });

  it('data rates DR1–DR7 and M, no DR0, nothing past DR7; RX1 data rate from the CN470 table, none for DR6, DR7 or an answer of DR0', () => {
    for (const [index, modulation, m] of DATA_RATES) {
      const rate = modulation === 'FSK' ? { fsk: { bit_rate: 50000 } } : { lora: { spreading_factor: modulation[0], bandwidth: modulation[1] * 1000 } };
      expect([index, dataRate(p.id, index)?.rate, maxMacPayload(p.id, index)]).toEqual([index, rate, m]);
      expect(dataRateIndexOf(p.id, rate)).toBe(index);
    }
    expect([dataRate(p.id, 0), dataRate(p.id, 8)]).toEqual([undefined, undefined]);
    for (let uplink = 1; uplink <= 5; uplink++)
      expect([uplink, Array.from({ length: 6 }, (_, offset) => rx1DataRateIndex(p.id, uplink, offset))]).toEqual([uplink, RX1[uplink]]);
    expect([rx1DataRateIndex(p.id, 0, 0), rx1DataRateIndex(p.id, 6, 0), rx1DataRateIndex(p.id, 7, 0), rx1DataRateIndex(p.id, 5, 6)]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it(`RX2 ${p.rx2MHz} MHz DR0 (TTS), 19.15 dBm EIRP, TXPower 0–7, no TxParamSetupReq, 470–510 MHz without duty cycle`, () => {
    expect(band.default_rx2).toEqual({ frequency: MHz(p.rx2MHz), data_rate_index: 0 });
    expect([band.rx1_delay, band.join_accept_delay_1, band.join_accept_delay_2]).toEqual([1, 5, 6]);
    expect(band.default_max_eirp).toBe(19.15);
    expect(band.tx_power_offsets).toEqual([0, -2, -4, -6, -8, -10, -12, -14]);
    expect(band.tx_param_setup_req_support).toBe(false);
    expect(band.sub_bands).toEqual([{ min_frequency: MHz(470), max_frequency: MHz(510), duty_cycle: 1, max_eirp: 19.15 }]);
  });

  it('class A windows: RX1 on the downlink channel; RX2 only once its data rate is one the band has', () => {
    const [, up, down] = p.samples[1];
    const windows = classARxWindows(testPlan(p), { frequency: MHz(up), data_rate_index: 5 }, { rx1DataRateOffset: 2 });
    expect(windows.rx1).toMatchObject({ frequency: MHz(down), data_rate_index: 3, delay: 1, eirp: 19.15 });
    // TTS's default RX2 DR0 names no data rate of these bands.
    expect(windows.rx2).toBeUndefined();
    const rx2 = classARxWindows(testPlan(p), { frequency: MHz(up), data_rate_index: 5 }, { rx2: { frequency: MHz(p.rx2MHz), data_rate_index: 1 } }).rx2;
    expect(rx2).toMatchObject({ frequency: MHz(p.rx2MHz), data_rate_index: 1, data_rate: { lora: { spreading_factor: 11, bandwidth: 125000 } }, delay: 2 });
    // RX1 at DR0 (uplink DR1, offset 1) is not offered either.
    expect(classARxWindows(testPlan(p), { frequency: MHz(up), data_rate_index: 1 }, { rx1DataRateOffset: 1 }).rx1).toBeUndefined();
  });

  it('class B: beacon DR2 on the plan`s channel, ping slots there; none where TTS defines none', () => {
    expect(band.beacon_data_rate_index).toBe(2);
    expect(band.beacon_frequencies).toBeUndefined();
    if (p.classBMHz === null) {
      expect([band.beacon_frequency, band.ping_slot_frequency]).toEqual([undefined, undefined]);
      expect(() => pingSlotFrequency(p.id, '00000003', 0)).toThrow(RangeError);
    } else {
      expect([band.beacon_frequency, band.ping_slot_frequency]).toEqual([MHz(p.classBMHz), MHz(p.classBMHz)]);
      for (let period = 0; period < 3; period++) expect(pingSlotFrequency(p.id, '00000003', period * 128)).toBe(MHz(p.classBMHz));
    }
    // PingSlotChannelReq's frequency wins.
    expect(pingSlotFrequency(p.id, '00000003', 0, MHz(p.rx2MHz))).toBe(MHz(p.rx2MHz));
  });

  it('CFList type 1: one ChMask per 16 channels, little-endian, RFU zeros, type 1', () => {
    const bytes = cfList(testPlan(p, (n) => n === 0 || n === 17 || n === uplinks.length - 1));
    const masks: string[] = p.uplinks.map((_, group) => (group === 0 ? '0100' : group === 1 ? '0200' : '0000'));
    masks[masks.length - 1] = '0080';
    expect(bytes?.toString('hex')).toBe(masks.join('') + '00'.repeat(15 - 2 * masks.length) + '01');
  });
});

/** Channel indexes → a list of `length` flags with those set. */
const enabled = (length: number, ...indexes: number[]): boolean[] => Array.from({ length }, (_, i) => indexes.includes(i));
const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const block = (cntl: number, ...indexes: number[]): ChannelMaskBlock => ({ channel_mask: enabled(16, ...indexes), channel_mask_control: cntl });
const allBut = (length: number, ...off: number[]) => Array.from({ length }, (_, i) => !off.includes(i));

describe('LinkADRReq of the RP002 CN470 plans (TTS parseChMask48/64, generateChMask48/64)', () => {
  describe.each<[BandId, number, number, number]>([
    ['CN_470_510_26_A', 48, 3, 4],
    ['CN_470_510_26_B', 48, 3, 4],
    ['CN_470_510_20_A', 64, 6, 7],
    ['CN_470_510_20_B', 64, 6, 7],
  ])('%s: %d channels, ChMaskCntl %d all on, %d all off', (id, channels, allOn, allOff) => {
    const groups = channels / 16;
    const ALL = allBut(channels);

    it('ChMaskCntl 0… mask a group of 16 each, all-on and all-off ignore the mask, the others are RFU', () => {
      const partial = enabled(channels, 0, 1);
      for (let cntl = 0; cntl < groups; cntl++) {
        const after = applyLinkAdrChannelMasks(id, ALL, [block(cntl, 0, 5, 15)]);
        expect([cntl, after]).toEqual([cntl, ALL.map((_, n) => (n >= 16 * cntl && n < 16 * (cntl + 1) ? [0, 5, 15].includes(n - 16 * cntl) : true))]);
      }
      expect(applyLinkAdrChannelMasks(id, partial, [block(allOn)])).toEqual(ALL);
      expect(applyLinkAdrChannelMasks(id, partial, [block(allOff, 0, 1, 2), block(1, 3)])).toEqual(enabled(channels, 19));
      // Nothing left on: ChannelMaskACK = 0.
      expect(applyLinkAdrChannelMasks(id, partial, [block(allOff)])).toBeUndefined();
      for (let cntl = groups; cntl <= 7; cntl++) {
        if (cntl !== allOn && cntl !== allOff) expect([cntl, applyLinkAdrChannelMasks(id, ALL, [block(cntl, 0)])]).toEqual([cntl, undefined]);
      }
    });

    const cases: Array<[string, boolean[], boolean[]]> = [
      ['one group from boot', ALL, enabled(channels, ...range(0, 7))],
      ['all but two channels', ALL, allBut(channels, 3, channels - 1)],
      ['every other channel', enabled(channels, 0), ALL.map((_, n) => n % 2 === 0)],
      ['all on again', enabled(channels, ...range(16, 23)), ALL],
      ['the first and last groups', enabled(channels, 5), enabled(channels, ...range(0, 15), ...range(channels - 16, channels - 1))],
    ];
    it.each(cases)('round trip: %s', (_name, current, desired) => {
      expect(applyLinkAdrChannelMasks(id, current, linkAdrChannelMasks(id, desired))).toEqual(desired);
      expect(applyLinkAdrChannelMasks(id, current, linkAdrChannelMasks(id, desired, { current }))).toEqual(desired);
    });

    it('the blocks chosen: at most two explicit blocks as they are, else the shorter of all-on / all-off first, ties to explicit then all-off', () => {
      // Unknown current channels: every group spelt out, unless all-on or all-off is shorter.
      expect(linkAdrChannelMasks(id, ALL)).toEqual([block(allOn)]);
      expect(linkAdrChannelMasks(id, enabled(channels, ...range(0, 7)))).toEqual([block(allOff), block(0, ...range(0, 7))]);
      expect(linkAdrChannelMasks(id, allBut(channels, 0))).toEqual([block(allOn), block(0, ...range(1, 15))]);
      // Groups 0 and 1 on, the rest off: explicit takes every group, all-on and all-off both one more than the rest; all-off wins the tie.
      const firstTwo = enabled(channels, ...range(0, 31));
      expect(linkAdrChannelMasks(id, firstTwo)).toEqual(
        groups === 3 ? [block(allOn), block(2)] : [block(allOff), block(0, ...range(0, 15)), block(1, ...range(0, 15))],
      );
      // Two groups differ from the current channels: the two explicit blocks, though all-on alone would do (TTS).
      expect(linkAdrChannelMasks(id, ALL, { current: allBut(channels, 0, 20) })).toEqual([block(0, ...range(0, 15)), block(1, ...range(0, 15))]);
      // Unchanged: one no-op block (TTS would send none; a LinkADRReq needs one).
      const some = enabled(channels, 1, 2);
      expect(linkAdrChannelMasks(id, some, { current: some })).toEqual([block(0, 1, 2)]);
      expect(() => linkAdrChannelMasks(id, enabled(channels + 1, 0))).toThrow(RangeError);
    });
  });
});
