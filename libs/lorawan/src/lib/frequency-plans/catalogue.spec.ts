import { getBand } from './bands';
import { combineFrequencyPlans, describeFrequencyPlans, FREQUENCY_PLAN_IDS, getFrequencyPlan, listFrequencyPlans } from './catalogue';
import type { BandId, FrequencyPlan } from './types';

/**
 * The catalogue held against a transcription, written here by hand, of TTS's
 * `lorawan-frequency-plans` (index `frequency-plans.yml` and the plan files): per plan its band, base
 * frequency and base plan, uplink channels with their radio, the plan's own sub-bands, RX2, max EIRP,
 * dwell time, listen-before-talk and radio centres. The US915/AU915 sub-band plans are computed
 * here from the RP002 channel grid; the radio centres are copied from the files.
 */

const MHz = (f: number) => String(Math.round(f * 1e6));
const mhz = (hz: string) => Number(hz) / 1e6;

const plan = (id: string): FrequencyPlan => {
  const found = getFrequencyPlan(id);
  if (!found) throw new Error(`no plan ${id}`);
  return found;
};

type Channel = [frequencyMHz: number, radio: number];

interface Expected {
  band: BandId;
  base: 433 | 470 | 868 | 915;
  baseId?: string;
  /** [MHz, radio]; DR0–DR5 unless `maxDr` says otherwise. */
  channels: Channel[];
  maxDr?: number;
  /** The plan's own sub-bands, before the band's: [min MHz, max MHz, duty cycle, max EIRP]. */
  subBands?: Array<[number, number, number, number]>;
  rx2: [MHz: number, dr: number];
  maxEirp: number;
  dwell?: { uplinks?: boolean; downlinks?: boolean };
  /** [RSSI target dBm, scan time µs]. */
  lbt?: [number, number];
  /** Radio 0 and radio 1 centre frequencies (MHz); radio 0 transmits between tx[0] and tx[1]. */
  radios: [number, number | undefined];
  tx: [number, number];
}

const EU_CHANNELS: Channel[] = [
  [868.1, 1],
  [868.3, 1],
  [868.5, 1],
  [867.1, 0],
  [867.3, 0],
  [867.5, 0],
  [867.7, 0],
  [867.9, 0],
];
const EU: Omit<Expected, 'channels'> = { band: 'EU_863_870', base: 868, rx2: [869.525, 0], maxEirp: 16, radios: [867.5, 868.5], tx: [863, 870] };

const AS_920_923_CHANNELS: Channel[] = [
  [923.2, 0],
  [923.4, 0],
  [922.2, 1],
  [922.4, 1],
  [922.6, 0],
  [922.8, 0],
  [923.0, 0],
  [922.0, 1],
];
const AS_920_923: Expected = {
  band: 'AS_923',
  base: 915,
  channels: AS_920_923_CHANNELS,
  subBands: [[922, 923.4, 1, 16]],
  rx2: [923.2, 2],
  maxEirp: 16,
  radios: [923.0, 922.1],
  tx: [920, 923.4],
};
const AS_923_925_CHANNELS: Channel[] = [
  [923.2, 0],
  [923.4, 0],
  [923.6, 0],
  [923.8, 0],
  [924.0, 0],
  [924.2, 1],
  [924.4, 1],
  [924.6, 1],
];
const AS_923_925: Expected = {
  band: 'AS_923',
  base: 915,
  channels: AS_923_925_CHANNELS,
  subBands: [[923.2, 924.6, 1, 16]],
  rx2: [923.2, 2],
  maxEirp: 16,
  radios: [923.6, 924.5],
  tx: [923.2, 925],
};
const JP_1: Expected = {
  band: 'AS_923',
  base: 915,
  channels: [
    [923.2, 0],
    [923.4, 0],
    [922.8, 0],
    [923.0, 0],
    [922.6, 0],
    [922.0, 1],
    [922.2, 1],
    [922.4, 1],
  ],
  subBands: [[922, 923.4, 1, 16]],
  rx2: [923.2, 2],
  maxEirp: 16,
  lbt: [-80, 5000],
  radios: [923.0, 922.1],
  tx: [922, 923.4],
};
const JP_3: Expected = {
  band: 'AS_923',
  base: 915,
  channels: [
    [920.6, 0],
    [920.8, 0],
    [921.0, 0],
    [921.2, 0],
    [921.4, 1],
    [921.6, 1],
    [921.8, 1],
    [922.0, 1],
  ],
  subBands: [[920.6, 922.0, 1, 16]],
  rx2: [923.2, 2],
  maxEirp: 16,
  lbt: [-80, 5000],
  radios: [920.9, 921.8],
  tx: [920.6, 922.0],
};
const TTN_AU = { subBands: [[915, 928, 1, 30]] as Array<[number, number, number, number]>, maxEirp: 30, dwell: { uplinks: false, downlinks: false } };
const NO_DWELL = { uplinks: false, downlinks: false };
const DWELL_400 = { uplinks: true, downlinks: true };
const IL_CHANNELS_1_4: Channel[] = [
  [917.3, 0],
  [917.5, 0],
  [917.7, 0],
  [917.9, 0],
];

/** AS923 group g's compatibility plan: two default channels on one radio between them, transmitting over 915–928 MHz. */
function asGroup(band: BandId, first: number, rx2: number): Expected {
  return {
    band,
    base: 915,
    channels: [
      [first, 0],
      [first + 0.2, 0],
    ],
    rx2: [rx2, 2],
    maxEirp: 16,
    radios: [first + 0.1, undefined],
    tx: [915, 928],
  };
}

const EXPECTED: Record<string, Expected> = {
  EU_863_870: { ...EU, channels: EU_CHANNELS },
  EU_863_870_TTN: { ...EU, baseId: 'EU_863_870', channels: EU_CHANNELS, rx2: [869.525, 3] },
  EU_863_870_ROAMING_DRAFT: { ...EU, baseId: 'EU_863_870', channels: [...EU_CHANNELS.slice(0, 5), [867.9, 0]] },
  EU_868_1: { ...EU, baseId: 'EU_863_870', channels: [[868.1, 1]] },
  EU_433: {
    band: 'EU_433',
    base: 433,
    channels: [
      [433.175, 0],
      [433.375, 0],
      [433.575, 0],
      [433.775, 0],
      [433.975, 1],
      [434.175, 1],
      [434.375, 1],
      [434.575, 1],
    ],
    subBands: [[433.05, 434.79, 0.1, 12.15]],
    rx2: [434.665, 0],
    maxEirp: 12.15,
    radios: [433.475, 434.275],
    tx: [433.05, 434.79],
  },
  AS_920_923,
  AS_920_923_LBT: { ...AS_920_923, baseId: 'AS_920_923', lbt: [-80, 128] },
  AS_920_923_TTN_JP_1: JP_1,
  AS_920_923_TTN_JP_1_LAND_MOBILE: { ...JP_1, baseId: 'AS_920_923_TTN_JP_1', subBands: [[922, 923.4, 1, 27]] },
  AS_920_923_TTN_JP_2: {
    ...JP_1,
    channels: [
      [923.2, 1],
      [923.4, 1],
      [922.8, 1],
      [923.0, 1],
      [920.6, 0],
      [920.8, 0],
      [921.0, 0],
      [921.2, 0],
    ],
    subBands: [[920.6, 923.4, 1, 16]],
    radios: [920.9, 923.1],
    tx: [920.6, 923.4],
  },
  AS_920_923_TTN_JP_3: JP_3,
  AS_920_923_TTN_JP_3_LAND_MOBILE: { ...JP_3, baseId: 'AS_920_923_TTN_JP_3', subBands: [[920.6, 922.0, 1, 27]] },
  AS_923: asGroup('AS_923', 923.2, 923.2),
  AS_923_2: asGroup('AS_923_2', 921.4, 921.4),
  AS_923_3: asGroup('AS_923_3', 916.6, 916.6),
  AS_923_4: asGroup('AS_923_4', 917.3, 917.3),
  AS_923_NDT: { ...asGroup('AS_923', 923.2, 923.2), baseId: 'AS_923', dwell: NO_DWELL },
  AS_923_DT: { ...asGroup('AS_923', 923.2, 923.2), baseId: 'AS_923', dwell: DWELL_400 },
  AS_923_2_NDT: { ...asGroup('AS_923_2', 921.4, 921.4), baseId: 'AS_923_2', dwell: NO_DWELL },
  AS_923_2_DT: { ...asGroup('AS_923_2', 921.4, 921.4), baseId: 'AS_923_2', dwell: DWELL_400 },
  AS_923_3_NDT: { ...asGroup('AS_923_3', 916.6, 916.6), baseId: 'AS_923_3', dwell: NO_DWELL },
  AS_923_3_DT: { ...asGroup('AS_923_3', 916.6, 916.6), baseId: 'AS_923_3', dwell: DWELL_400 },
  AS_923_4_NDT: { ...asGroup('AS_923_4', 917.3, 917.3), baseId: 'AS_923_4', dwell: NO_DWELL },
  AS_923_4_DT: { ...asGroup('AS_923_4', 917.3, 917.3), baseId: 'AS_923_4', dwell: DWELL_400 },
  AS_923_925,
  AS_923_925_LBT: { ...AS_923_925, baseId: 'AS_923_925', lbt: [-80, 128] },
  AS_920_923_TTN_AU: { ...AS_920_923, baseId: 'AS_920_923', ...TTN_AU },
  AS_923_925_TTN_AU: { ...AS_923_925, baseId: 'AS_923_925', ...TTN_AU },
  KR_920_923_TTN: {
    band: 'KR_920_923',
    base: 915,
    channels: [
      [922.1, 0],
      [922.3, 0],
      [922.5, 0],
      [922.7, 0],
      [922.9, 1],
      [923.1, 1],
      [923.3, 1],
    ],
    rx2: [921.9, 0],
    maxEirp: 14,
    lbt: [-80, 128],
    radios: [922.4, 923.0],
    tx: [920.9, 923.3],
  },
  IN_865_867: {
    band: 'IN_865_867',
    base: 868,
    channels: [
      [865.0625, 0],
      [865.4025, 0],
      [865.985, 1],
      [865.2325, 0],
      [866.185, 1],
      [866.385, 1],
      [866.585, 1],
      [866.785, 1],
    ],
    rx2: [866.55, 2],
    maxEirp: 30,
    radios: [865.2, 866.385],
    tx: [865, 867],
  },
  IL_917_920_TTN: {
    band: 'AS_923_4',
    base: 915,
    channels: [...IL_CHANNELS_1_4, [919.3, 1], [919.5, 1], [919.7, 1], [919.9, 1]],
    subBands: [[917.3, 919.9, 0.01, 16]],
    rx2: [917.3, 2],
    maxEirp: 16,
    dwell: NO_DWELL,
    radios: [917.6, 919.6],
    tx: [915, 928],
  },
  IL_917_920_TTN_2: {
    band: 'AS_923_4',
    base: 915,
    channels: [...IL_CHANNELS_1_4, [918.1, 1], [918.3, 1], [918.5, 1], [918.9, 1]],
    subBands: [[917.3, 918.9, 0.01, 16]],
    rx2: [917.3, 2],
    maxEirp: 16,
    dwell: NO_DWELL,
    radios: [917.6, 918.5],
    tx: [915, 928],
  },
  SG_920_923_TTN: { ...AS_920_923, baseId: 'AS_920_923', subBands: [[922, 923.4, 0.1, 16]], dwell: NO_DWELL },
  UZ_923_1: {
    band: 'AS_923',
    base: 915,
    channels: [
      [926.4, 0],
      [926.6, 0],
      [926.8, 0],
    ],
    subBands: [[926.2, 926.8, 1, 16]],
    rx2: [926.2, 2],
    maxEirp: 16,
    radios: [926.6, 926.6],
    tx: [926.2, 927.8],
  },
  RU_864_870_TTN: {
    band: 'RU_864_870',
    base: 868,
    channels: [
      [868.9, 1],
      [869.1, 1],
      [864.1, 0],
      [864.3, 0],
      [864.5, 0],
      [864.7, 0],
      [864.9, 0],
    ],
    rx2: [869.1, 0],
    maxEirp: 16,
    radios: [864.5, 869.0],
    tx: [864, 870],
  },
};

/** Radio centres of the sub-band plans, from TTS's `US_902_928_FSB_<n>.yml` and `AU_915_928_FSB_<n>.yml`. */
const FSB_RADIOS = {
  US: [
    [902.7, 903.4],
    [904.3, 905.0],
    [905.9, 906.6],
    [907.5, 908.2],
    [909.1, 909.8],
    [910.7, 911.4],
    [912.3, 913.0],
    [913.9, 914.6],
  ],
  AU: [
    [915.6, 916.3],
    [917.2, 917.9],
    [918.8, 919.5],
    [920.4, 921.1],
    [922.0, 922.7],
    [923.6, 924.3],
    [925.2, 925.9],
    [926.8, 927.5],
  ],
};
const FSB = [1, 2, 3, 4, 5, 6, 7, 8];
const US_DOWNLINKS = [923.3, 923.9, 924.5, 925.1, 925.7, 926.3, 926.9, 927.5];

/** Sub-band n of US915 (first channel 902.3 MHz, wide channel 903.0 MHz) or AU915 (915.2, 915.9 MHz): the RP002 grid. */
function fsbExpected(region: 'US' | 'AU', n: number, brazil = false): Expected {
  const us = region === 'US';
  const first = (us ? 902.3 : 915.2) + 1.6 * (n - 1);
  const wide = (us ? 903.0 : 915.9) + 1.6 * (n - 1);
  const [radio0, radio1] = FSB_RADIOS[region][n - 1];
  return {
    band: us ? 'US_902_928' : 'AU_915_928',
    base: 915,
    channels: [...Array.from({ length: 8 }, (_, i): Channel => [first + 0.2 * i, i < 4 ? 0 : 1]), [wide, 0]],
    maxDr: us ? 3 : 5,
    rx2: [923.3, 8],
    maxEirp: 30,
    dwell: brazil ? NO_DWELL : us ? { uplinks: true, downlinks: false } : { downlinks: false },
    radios: [radio0, radio1],
    tx: us ? [923, 928] : [915, 928],
  };
}
for (const n of FSB) {
  EXPECTED[`US_902_928_FSB_${n}`] = fsbExpected('US', n);
  EXPECTED[`AU_915_928_FSB_${n}`] = fsbExpected('AU', n);
  EXPECTED[`AU_915_928_FSB_${n}_BR`] = fsbExpected('AU', n, true);
}
// The single-channel US plans: sub-band n's wide-channel frequency at DR0–DR3 on radio 1, 24.15 dBm.
for (const [n, id] of ['US_903_0', 'US_904_6', 'US_906_2', 'US_907_8', 'US_909_4', 'US_911_0', 'US_912_6', 'US_914_2'].entries()) {
  const fsb = fsbExpected('US', n + 1);
  EXPECTED[id] = { ...fsb, baseId: `US_902_928_FSB_${n + 1}`, channels: [[903.0 + 1.6 * n, 1]], maxEirp: 24.15 };
}

// CN470-510 sub-bands 1 and 11 (TTS CN_470_510_FSB_1.yml, _FSB_11.yml): channels 470.3 + 0.2·k MHz, DR0–DR5, SX1255 radios, RX2 505.3 MHz DR0, 19.15 dBm.
for (const [n, first, radios] of [
  [1, 470.3, [470.6, 471.4]],
  [11, 486.3, [486.6, 487.4]],
] as const) {
  EXPECTED[`CN_470_510_FSB_${n}`] = {
    band: 'CN_470_510',
    base: 470,
    channels: Array.from({ length: 8 }, (_, i): Channel => [first + 0.2 * i, i < 4 ? 0 : 1]),
    rx2: [505.3, 0],
    maxEirp: 19.15,
    radios: [radios[0], radios[1]],
    tx: [470, 510],
  };
}

/** RP002-1.0.4 frequency ranges of the bands (EU433: the ITU region 1 ISM band 433.05–434.79 MHz). */
const BAND_RANGE: Record<BandId, [number, number]> = {
  EU_863_870: [863, 870],
  US_902_928: [902, 928],
  AU_915_928: [915, 928],
  AS_923: [915, 928],
  AS_923_2: [915, 928],
  AS_923_3: [915, 928],
  AS_923_4: [915, 928],
  IN_865_867: [865, 867],
  KR_920_923: [920.9, 923.3],
  RU_864_870: [864, 870],
  EU_433: [433.05, 434.79],
  CN_779_787: [779, 787],
  CN_470_510: [470, 510],
  CN_470_510_20_A: [470, 510],
  CN_470_510_20_B: [470, 510],
  CN_470_510_26_A: [470, 510],
  CN_470_510_26_B: [470, 510],
};

describe('frequency plan catalogue', () => {
  it('ships every plan of TTS index except the 2.4 GHz and Morocco drafts, in the index order', () => {
    expect(FREQUENCY_PLAN_IDS).toHaveLength(Object.keys(EXPECTED).length);
    expect([...FREQUENCY_PLAN_IDS].sort()).toEqual(Object.keys(EXPECTED).sort());
    expect(FREQUENCY_PLAN_IDS.slice(0, 6)).toEqual(['EU_863_870', 'EU_863_870_TTN', 'EU_863_870_ROAMING_DRAFT', 'EU_868_1', 'EU_433', 'US_902_928_FSB_1']);
    expect(FREQUENCY_PLAN_IDS.at(-1)).toBe('RU_864_870_TTN');
    expect(listFrequencyPlans().map((p) => p.id)).toEqual(FREQUENCY_PLAN_IDS);
    expect(getFrequencyPlan('EU_868')).toBeUndefined();
  });

  describe.each(Object.entries(EXPECTED))('%s', (id, e) => {
    const p = plan(id);

    it('band, base frequency and base plan as TTS index has them', () => {
      expect([p.band_id, p.base_frequency, p.base_id]).toEqual([e.band, e.base, e.baseId]);
      expect(p.name.length).toBeGreaterThan(0);
      expect(p.description.length).toBeGreaterThan(0);
    });

    it('uplink channels, each on its radio', () => {
      const expected = e.channels.map(([f, radio], i) => {
        // The wide channel of a sub-band plan: DR4 (US915) or DR6 (AU915) only.
        const wide = e.maxDr !== undefined && i === 8;
        const dr = wide ? (e.band === 'US_902_928' ? 4 : 6) : undefined;
        return { frequency: MHz(f), min_data_rate_index: dr ?? 0, max_data_rate_index: dr ?? e.maxDr ?? 5, radio };
      });
      expect(p.uplink_channels).toEqual(expected);
    });

    it('RX2, max EIRP, dwell time and listen-before-talk', () => {
      expect(p.rx2).toEqual({ frequency: MHz(e.rx2[0]), data_rate_index: e.rx2[1] });
      expect(p.max_eirp).toBeCloseTo(e.maxEirp, 5);
      expect(p.dwell_time).toEqual(e.dwell);
      expect(p.listen_before_talk && [p.listen_before_talk.rssi_target, p.listen_before_talk.scan_time_us]).toEqual(e.lbt);
    });

    it("the plan's own sub-bands first, then the band's that overlap none of them", () => {
      const own = (e.subBands ?? []).map(([min, max, duty_cycle, max_eirp]) => ({ min_frequency: MHz(min), max_frequency: MHz(max), duty_cycle, max_eirp }));
      const overlapsOwn = (min: number, max: number) => (e.subBands ?? []).some(([a, b]) => min <= b && a <= max);
      const band = getBand(e.band).sub_bands.filter((s) => !overlapsOwn(mhz(s.min_frequency), mhz(s.max_frequency)));
      expect(p.sub_bands.map((s) => ({ ...s, max_eirp: Math.round(s.max_eirp * 100) / 100 }))).toEqual([...own, ...band]);
    });

    it('radios: two SX1257 (SX1255 at 433 and 470 MHz) centres, radio 0 transmitting, clocked by radio 1', () => {
      const [radio0, radio1] = e.radios;
      const sx1255 = e.base === 433 || e.base === 470;
      const rssi = sx1255 ? -176 : -166;
      const chip = sx1255 ? 'SX1255' : 'SX1257';
      expect(p.radios?.[0]).toEqual({
        enable: true,
        chip_type: chip,
        frequency: MHz(radio0),
        rssi_offset: rssi,
        tx: { min_frequency: MHz(e.tx[0]), max_frequency: MHz(e.tx[1]), ...(id === 'IN_865_867' ? { notch_frequency: 129_000 } : {}) },
      });
      expect(p.radios?.[1]).toEqual(radio1 === undefined ? undefined : { enable: true, chip_type: chip, frequency: MHz(radio1), rssi_offset: rssi });
      expect(p.clock_source).toBe(1);
    });
  });

  it('every channel and RX2 lie in the band and in one sub-band of the plan', () => {
    for (const p of listFrequencyPlans()) {
      const [min, max] = BAND_RANGE[p.band_id];
      const frequencies = [...p.uplink_channels, ...(p.downlink_channels ?? []), p.rx2].map((c) => mhz(c.frequency));
      for (const f of frequencies) {
        const inBand = f >= min && f <= max;
        const inSubBand = p.sub_bands.some((s) => mhz(s.min_frequency) <= f && f <= mhz(s.max_frequency));
        expect({ plan: p.id, f, inBand, inSubBand }).toEqual({ plan: p.id, f, inBand: true, inSubBand: true });
      }
      for (const c of [p.lora_standard_channel, p.fsk_channel].filter((c) => c !== undefined)) {
        expect({ plan: p.id, f: mhz(c.frequency), inBand: mhz(c.frequency) >= min && mhz(c.frequency) <= max }).toMatchObject({ inBand: true });
      }
    }
  });

  it("every channel a radio receives lies within 400 kHz of the radio's centre (TTS's rule for concentrator radios)", () => {
    for (const p of listFrequencyPlans()) {
      for (const c of [...p.uplink_channels, p.lora_standard_channel, p.fsk_channel].filter((c) => c !== undefined)) {
        const radio = c.radio === undefined ? undefined : p.radios?.[c.radio];
        const offsetKHz = radio ? Math.round(Math.abs(mhz(c.frequency) - mhz(radio.frequency)) * 1000) : undefined;
        expect({ plan: p.id, f: c.frequency, near: offsetKHz !== undefined && offsetKHz <= 400 }).toEqual({ plan: p.id, f: c.frequency, near: true });
      }
    }
  });

  it("radio 0 can transmit every downlink: RX1 channels and RX2 (JP_3 on its own can't reach RX2: it runs beside JP_1)", () => {
    for (const p of listFrequencyPlans()) {
      const tx = p.radios?.[0].tx;
      const downlinks = [...(p.downlink_channels ?? p.uplink_channels), ...(p.id.startsWith('AS_920_923_TTN_JP_3') ? [] : [p.rx2])];
      for (const c of downlinks) {
        const inside = !!tx && BigInt(tx.min_frequency) <= BigInt(c.frequency) && BigInt(c.frequency) <= BigInt(tx.max_frequency);
        expect({ plan: p.id, f: c.frequency, inside }).toEqual({ plan: p.id, f: c.frequency, inside: true });
      }
    }
    expect(mhz(plan('AS_920_923_TTN_JP_3').rx2.frequency)).toBeGreaterThan(mhz(plan('AS_920_923_TTN_JP_3').radios?.[0].tx?.max_frequency ?? '0'));
  });

  it('US915/AU915: the eight 500 kHz downlink channels; the wide uplink channel is also the LoRa standard channel of radio 0', () => {
    for (const p of listFrequencyPlans().filter((p) => p.band_id === 'US_902_928' || p.band_id === 'AU_915_928')) {
      expect(p.downlink_channels?.map((c) => mhz(c.frequency))).toEqual(US_DOWNLINKS);
      expect(p.downlink_channels?.every((c) => c.min_data_rate_index === 8 && c.max_data_rate_index === 13)).toBe(true);
      expect(p.ping_slot_frequency).toBeUndefined();
    }
    for (const n of FSB) {
      const us = plan(`US_902_928_FSB_${n}`);
      expect(us.lora_standard_channel).toEqual({ frequency: us.uplink_channels[8].frequency, data_rate_index: 4, radio: 0 });
      const au = plan(`AU_915_928_FSB_${n}`);
      expect(au.lora_standard_channel).toEqual({ frequency: au.uplink_channels[8].frequency, data_rate_index: 6, radio: 0 });
    }
  });

  it('EU-like plans carry no downlink channels (RX1 answers on the uplink frequency) but their class B frequencies', () => {
    for (const p of listFrequencyPlans().filter((p) => getBand(p.band_id).cf_list_type === 'FREQUENCIES')) {
      expect([p.id, p.downlink_channels]).toEqual([p.id, undefined]);
      expect(p.ping_slot_frequency).toBe(getBand(p.band_id).ping_slot_frequency);
    }
    expect(plan('EU_863_870')).toMatchObject({ rx1_delay: 1, ping_slot_frequency: '869525000', beacon_frequency: '869525000' });
    expect(plan('EU_863_870')).toMatchObject({ lora_standard_channel: { frequency: '868300000', data_rate_index: 6, radio: 1 } });
    expect(plan('EU_863_870').fsk_channel).toEqual({ frequency: '868800000', data_rate_index: 7, radio: 1 });
  });

  it('CN_470_510_FSB_1 and _FSB_11: the downlink channels their RX1 uses (uplink channel mod 48: 500.3 + 0.2·n MHz), no fixed class B frequency (they hop)', () => {
    const downlinks = (id: string) => plan(id).downlink_channels?.map((c) => mhz(c.frequency));
    expect(downlinks('CN_470_510_FSB_1')).toEqual([500.3, 500.5, 500.7, 500.9, 501.1, 501.3, 501.5, 501.7]);
    // Channels 80–87: 80 mod 48 = 32, 500.3 + 0.2·32 = 506.7 MHz.
    expect(downlinks('CN_470_510_FSB_11')).toEqual([506.7, 506.9, 507.1, 507.3, 507.5, 507.7, 507.9, 508.1]);
    const fsb11 = plan('CN_470_510_FSB_11');
    expect(fsb11.downlink_channels?.every((c) => c.min_data_rate_index === 0 && c.max_data_rate_index === 5)).toBe(true);
    expect(fsb11.rx1_delay).toBe(1);
    expect([fsb11.ping_slot_frequency, fsb11.beacon_frequency, fsb11.dwell_time]).toEqual([undefined, undefined, undefined]);
  });

  it('EU_863_870_TTN differs from EU_863_870 only by RX2 SF9 (DR3), its name and its base', () => {
    const { id: _a, name: _b, description: _c, base_id, rx2, ...ttn } = plan('EU_863_870_TTN');
    const { id: _d, name: _e, description: _f, rx2: euRx2, ...eu } = plan('EU_863_870');
    expect([base_id, rx2, euRx2]).toEqual(['EU_863_870', { frequency: '869525000', data_rate_index: 3 }, { frequency: '869525000', data_rate_index: 0 }]);
    expect(ttn).toEqual(eu);
  });

  it("EU868: 1 % in 868.0–868.6 MHz, 10 % and 27 dBm ERP in 869.4–869.65 MHz (the band's sub-bands)", () => {
    const eu = plan('EU_863_870');
    expect(eu.sub_bands.find((s) => s.min_frequency === '868000000')).toMatchObject({ max_frequency: '868600000', duty_cycle: 0.01 });
    expect(eu.sub_bands.find((s) => s.min_frequency === '869400000')).toMatchObject({ duty_cycle: 0.1, max_eirp: 29.15 });
  });

  it('is read-only', () => {
    const eu = plan('EU_863_870');
    expect(() => (eu.rx2 as { data_rate_index: number }).data_rate_index++).toThrow(TypeError);
    expect(() => (eu.radios?.[0] as { frequency: string }).frequency.concat('0')).not.toThrow();
    expect(() => ((eu.radios?.[0] as { frequency: string }).frequency = '0')).toThrow(TypeError);
    listFrequencyPlans().pop();
    expect(listFrequencyPlans()).toHaveLength(FREQUENCY_PLAN_IDS.length);
  });
});

describe('frequency plan descriptions (Configuration.ListFrequencyPlans)', () => {
  it('id, base_id where the plan has one, name, base frequency and band, in catalogue order', () => {
    const all = describeFrequencyPlans();
    expect(all.map((d) => d.id)).toEqual(FREQUENCY_PLAN_IDS);
    expect(all[0]).toEqual({ id: 'EU_863_870', name: 'Europe 863-870 MHz (SF12 for RX2)', base_frequency: 868, band_id: 'EU_863_870' });
    expect(all[1]).toEqual({
      id: 'EU_863_870_TTN',
      base_id: 'EU_863_870',
      name: 'Europe 863-870 MHz (SF9 for RX2 - recommended)',
      base_frequency: 868,
      band_id: 'EU_863_870',
    });
  });

  it('filters by base frequency and band', () => {
    const byBase = (base: number) =>
      Object.entries(EXPECTED)
        .filter(([, e]) => e.base === base)
        .map(([id]) => id);
    expect(
      describeFrequencyPlans({ base_frequency: 868 })
        .map((d) => d.id)
        .sort(),
    ).toEqual(byBase(868).sort());
    expect(describeFrequencyPlans({ base_frequency: 433 }).map((d) => d.id)).toEqual(['EU_433']);
    expect(
      describeFrequencyPlans({ base_frequency: 915 })
        .map((d) => d.id)
        .sort(),
    ).toEqual(byBase(915).sort());
    expect(describeFrequencyPlans({ band_id: 'AS_923_4' }).map((d) => d.id)).toEqual([
      'AS_923_4',
      'AS_923_4_NDT',
      'AS_923_4_DT',
      'IL_917_920_TTN',
      'IL_917_920_TTN_2',
    ]);
    expect(describeFrequencyPlans({ base_frequency: 868, band_id: 'AS_923' })).toEqual([]);
    expect(describeFrequencyPlans({ band_id: 'CN_470_510' }).map((d) => [d.id, d.base_frequency])).toEqual([
      ['CN_470_510_FSB_1', 470],
      ['CN_470_510_FSB_11', 470],
    ]);
    expect(describeFrequencyPlans({ band_id: 'CN_470_510', base_frequency: 915 })).toEqual([]);
  });
});
describe('bands', () => {
  it('US915 has 72 default channels whose RX1 answers on channel i mod 8', () => {
    const us = getBand('US_902_928');
    expect(us.default_channels).toHaveLength(72);
    expect(us.default_channels[0]).toEqual({ uplink_frequency: '902300000', downlink_frequency: '923300000', min_data_rate_index: 0, max_data_rate_index: 3 });
    expect(us.default_channels[15]).toMatchObject({ uplink_frequency: '905300000', downlink_frequency: '927500000' });
    expect(us.default_channels[65]).toEqual({ uplink_frequency: '904600000', downlink_frequency: '923900000', min_data_rate_index: 4, max_data_rate_index: 4 });
    expect(us.cf_list_type).toBe('CHANNEL_MASKS');
  });

  it('EU868 devices boot with three channels answered on the same frequency', () => {
    const eu = getBand('EU_863_870');
    expect(eu.default_channels.map((c) => [c.uplink_frequency, c.downlink_frequency])).toEqual([
      ['868100000', '868100000'],
      ['868300000', '868300000'],
      ['868500000', '868500000'],
    ]);
    expect(eu).toMatchObject({
      cf_list_type: 'FREQUENCIES',
      rx1_delay: 1,
      join_accept_delay_1: 5,
      join_accept_delay_2: 6,
      adr_ack_limit_exponent: 'ADR_ACK_LIMIT_64',
    });
  });
});

describe('combineFrequencyPlans (a gateway with several plans)', () => {
  it('one plan: the plan itself; none or an unknown one: undefined', () => {
    expect(combineFrequencyPlans(['EU_863_870'])).toBe(plan('EU_863_870'));
    expect(combineFrequencyPlans([])).toBeUndefined();
    expect(combineFrequencyPlans(['EU_863_870', 'NOPE'])).toBeUndefined();
  });

  it('plans of different bands: undefined', () => {
    expect(combineFrequencyPlans(['EU_863_870', 'US_902_928_FSB_2'])).toBeUndefined();
    expect(combineFrequencyPlans(['AS_923', 'AS_923_2'])).toBeUndefined();
  });

  it("JP_1 with JP_3 (a 16-channel Japanese gateway): JP_1's RX2 and radios, the 16 channels and every sub-band once", () => {
    const both = combineFrequencyPlans(['AS_920_923_TTN_JP_1', 'AS_920_923_TTN_JP_3']);
    expect(both).toMatchObject({ id: 'AS_920_923_TTN_JP_1', rx2: plan('AS_920_923_TTN_JP_1').rx2, radios: plan('AS_920_923_TTN_JP_1').radios });
    expect(both?.uplink_channels.map((c) => mhz(c.frequency)).sort()).toEqual(
      [920.6, 920.8, 921.0, 921.2, 921.4, 921.6, 921.8, 922.0, 922.2, 922.4, 922.6, 922.8, 923.0, 923.2, 923.4].sort(),
    );
    // 922.0 MHz is in both: JP_1's entry (radio 1) is kept.
    expect(both?.uplink_channels.find((c) => c.frequency === '922000000')?.radio).toBe(1);
    // Each plan's own sub-bands; the band's 923.0–923.5 MHz one, which JP_3 alone keeps (it says
    // nothing there), overlaps JP_1's own and gives way to it (a scheduler refuses overlapping ones).
    expect(both?.sub_bands.map((s) => [mhz(s.min_frequency), mhz(s.max_frequency), s.duty_cycle])).toEqual([
      [922.0, 923.4, 1],
      [920.6, 922.0, 1],
    ]);
    expect(combineFrequencyPlans(['AS_920_923_TTN_JP_1', 'AS_920_923_TTN_JP_3'])).toBe(both);
  });

  it('US915 FSB 1 and 2: sixteen 125 kHz channels and two 500 kHz ones', () => {
    const both = combineFrequencyPlans(['US_902_928_FSB_1', 'US_902_928_FSB_2']);
    expect(both?.uplink_channels).toHaveLength(18);
    expect(both?.sub_bands).toEqual(plan('US_902_928_FSB_1').sub_bands);
  });
});
