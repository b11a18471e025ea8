import { pingSlotFrequency } from '../class-b/ping-slots';
import { getBand } from './bands';
import { cfList } from './cf-list';
import { dataRate, dataRateIndexOf, maxFrmPayload, maxMacPayload, rx1DataRateIndex } from './data-rates';
import { applyLinkAdrChannelMasks, linkAdrChannelMasks } from './link-adr-masks';
import { classARxWindows, rx1FrequencyOf } from './rx-windows';
import type { BandId, FrequencyPlan } from './types';

/**
 * The regions added after EU868, US915, AU915, AS923-1 and IN865, each held against a transcription
 * of its RP002-1.0.4 tables (CN779-787: RP002-1.0.3) written here by hand: channel lists, data rate
 * tables with M with and without dwell time, RX1 data rate tables, defaults, TX power, class B
 * channels and sub-bands. CN470-510 (RP001-1.1revB §2.6, the 96-channel layout of TTS's
 * `CN_470_510`) has its own block below: fixed channels, a downlink channel set, ChMaskCntl 0–6. The implementation derives several bands from shared helpers; these
 * tables spell every band out, so a shared helper that is wrong for one band fails here.
 */

const MHz = (f: number) => String(Math.round(f * 1e6));

/** A data rate row: LoRa [SF, kHz] or 'FSK', then M without and with the 400 ms dwell-time limit (null: the band has no dwell-time table). */
type DrRow = [modulation: [number, number] | 'FSK', m: number, mDwellTime: number | null];

interface Region {
  id: BandId;
  defaultChannels: number[];
  dataRates: DrRow[];
  /** Row = uplink DR 0…, column = RX1DROffset 0…; the last valid offset is the row's length - 1. */
  rx1: number[][];
  /** AS923 only: the table under DownlinkDwellTime = 1. */
  rx1DwellTime?: number[][];
  rx2: [frequencyMHz: number, dataRate: number];
  maxEirp: number;
  maxTxPower: number;
  beacon: [frequencyMHz: number, dataRate: number];
  pingSlotMHz: number;
  subBands: Array<[minMHz: number, maxMHz: number, dutyCycle: number, maxEirp: number]>;
  txParamSetup: boolean;
}

/** SF12…SF7 at 125 kHz, M 59/59/59/123/250/250 (RP002 "maximum payload size", not repeater compatible). */
const SF12_TO_SF7: DrRow[] = [
  [[12, 125], 59, null],
  [[11, 125], 59, null],
  [[10, 125], 59, null],
  [[9, 125], 123, null],
  [[8, 125], 250, null],
  [[7, 125], 250, null],
];

/** RP002 "downlink RX1 data rate mapping" of KR920 (and RP001's of CN470-510): DR0–DR5 × RX1DROffset 0–5. */
const RX1_DR0_TO_DR5: number[][] = [
  [0, 0, 0, 0, 0, 0],
  [1, 0, 0, 0, 0, 0],
  [2, 1, 0, 0, 0, 0],
  [3, 2, 1, 0, 0, 0],
  [4, 3, 2, 1, 0, 0],
  [5, 4, 3, 2, 1, 0],
];

/** RP002 "downlink RX1 data rate mapping" of EU433, CN779 and RU864: DR0–DR7 × RX1DROffset 0–5. */
const RX1_DR0_TO_DR7: number[][] = [...RX1_DR0_TO_DR5, [6, 5, 4, 3, 2, 1], [7, 6, 5, 4, 3, 2]];

/** RP002-1.0.4 AS923 data rates and maximum payload sizes (DwellTime 0 and 1), identical in every group. */
const AS923_DATA_RATES: DrRow[] = [
  [[12, 125], 59, 0],
  [[11, 125], 59, 0],
  [[10, 125], 123, 19],
  [[9, 125], 123, 61],
  [[8, 125], 250, 133],
  [[7, 125], 250, 250],
  [[7, 250], 250, 250],
  ['FSK', 250, 250],
];
/** RP002-1.0.4 AS923 RX1 data rate, DownlinkDwellTime = 0: uplink DR0–DR7 × RX1DROffset 0–7. */
const AS923_RX1: number[][] = [
  [0, 0, 0, 0, 0, 0, 1, 2],
  [1, 0, 0, 0, 0, 0, 2, 3],
  [2, 1, 0, 0, 0, 0, 3, 4],
  [3, 2, 1, 0, 0, 0, 4, 5],
  [4, 3, 2, 1, 0, 0, 5, 6],
  [5, 4, 3, 2, 1, 0, 6, 7],
  [6, 5, 4, 3, 2, 1, 7, 7],
  [7, 6, 5, 4, 3, 2, 7, 7],
];
/** The same with DownlinkDwellTime = 1: nothing below DR2. */
const AS923_RX1_DWELL_TIME: number[][] = [
  [2, 2, 2, 2, 2, 2, 2, 2],
  [2, 2, 2, 2, 2, 2, 2, 3],
  [2, 2, 2, 2, 2, 2, 3, 4],
  [3, 2, 2, 2, 2, 2, 4, 5],
  [4, 3, 2, 2, 2, 2, 5, 6],
  [5, 4, 3, 2, 2, 2, 6, 7],
  [6, 5, 4, 3, 2, 2, 7, 7],
  [7, 6, 5, 4, 3, 2, 7, 7],
];

const REGIONS: Region[] = [
  {
    id: 'AS_923',
    defaultChannels: [923.2, 923.4],
    dataRates: AS923_DATA_RATES,
    rx1: AS923_RX1,
    rx1DwellTime: AS923_RX1_DWELL_TIME,
    rx2: [923.2, 2],
    maxEirp: 16,
    maxTxPower: 7,
    beacon: [923.4, 3],
    pingSlotMHz: 923.4,
    subBands: [[923.0, 923.5, 0.01, 16]],
    txParamSetup: true,
  },
  {
    // AS923_FREQ_OFFSET −1.80 MHz.
    id: 'AS_923_2',
    defaultChannels: [921.4, 921.6],
    dataRates: AS923_DATA_RATES,
    rx1: AS923_RX1,
    rx1DwellTime: AS923_RX1_DWELL_TIME,
    rx2: [921.4, 2],
    maxEirp: 16,
    maxTxPower: 7,
    beacon: [921.6, 3],
    pingSlotMHz: 921.6,
    subBands: [[921.4, 922.0, 0.01, 16]],
    txParamSetup: true,
  },
  {
    // AS923_FREQ_OFFSET −6.60 MHz.
    id: 'AS_923_3',
    defaultChannels: [916.6, 916.8],
    dataRates: AS923_DATA_RATES,
    rx1: AS923_RX1,
    rx1DwellTime: AS923_RX1_DWELL_TIME,
    rx2: [916.6, 2],
    maxEirp: 16,
    maxTxPower: 7,
    beacon: [916.8, 3],
    pingSlotMHz: 916.8,
    subBands: [[916.5, 917.0, 0.01, 16]],
    txParamSetup: true,
  },
  {
    // AS923_FREQ_OFFSET −5.90 MHz.
    id: 'AS_923_4',
    defaultChannels: [917.3, 917.5],
    dataRates: AS923_DATA_RATES,
    rx1: AS923_RX1,
    rx1DwellTime: AS923_RX1_DWELL_TIME,
    rx2: [917.3, 2],
    maxEirp: 16,
    maxTxPower: 7,
    beacon: [917.5, 3],
    pingSlotMHz: 917.5,
    subBands: [[917.3, 917.5, 0.01, 16]],
    txParamSetup: true,
  },
  {
    id: 'KR_920_923',
    defaultChannels: [922.1, 922.3, 922.5],
    dataRates: SF12_TO_SF7,
    rx1: RX1_DR0_TO_DR5,
    rx2: [921.9, 0],
    maxEirp: 14,
    maxTxPower: 7,
    beacon: [923.1, 3],
    pingSlotMHz: 923.1,
    subBands: [[920.9, 923.3, 1, 16.15]],
    txParamSetup: false,
  },
  {
    id: 'RU_864_870',
    defaultChannels: [868.9, 869.1],
    dataRates: [...SF12_TO_SF7, [[7, 250], 250, null], ['FSK', 250, null]],
    rx1: RX1_DR0_TO_DR7,
    rx2: [869.1, 0],
    maxEirp: 16,
    maxTxPower: 7,
    beacon: [869.1, 3],
    pingSlotMHz: 868.9,
    subBands: [[864.0, 870.0, 0.01, 22.15]],
    txParamSetup: false,
  },
  {
    id: 'EU_433',
    defaultChannels: [433.175, 433.375, 433.575],
    dataRates: [...SF12_TO_SF7, [[7, 250], 250, null], ['FSK', 250, null]],
    rx1: RX1_DR0_TO_DR7,
    rx2: [434.665, 0],
    maxEirp: 12.15,
    maxTxPower: 5,
    beacon: [434.665, 3],
    pingSlotMHz: 434.665,
    subBands: [[433.05, 434.79, 0.1, 12.15]],
    txParamSetup: false,
  },
  {
    id: 'CN_779_787',
    defaultChannels: [779.5, 779.7, 779.9],
    dataRates: [...SF12_TO_SF7, [[7, 250], 250, null], ['FSK', 250, null]],
    rx1: RX1_DR0_TO_DR7,
    rx2: [786.0, 0],
    maxEirp: 12.15,
    maxTxPower: 5,
    beacon: [785.0, 3],
    pingSlotMHz: 785.0,
    subBands: [[779.0, 787.0, 0.01, 12.15]],
    txParamSetup: false,
  },
];

/** A plan with the band's defaults plus `extraMHz`, as the catalogue would build it (no such plan ships yet). */
function planOf(id: BandId, extraMHz: number[] = []): FrequencyPlan {
  const band = getBand(id);
  return {
    id: `TEST_${id}`,
    name: id,
    description: '',
    band_id: id,
    // Not read by the RX window and CFList rules these tests exercise.
    base_frequency: 868,
    uplink_channels: [...band.default_channels.map((c) => c.uplink_frequency), ...extraMHz.map(MHz)].map((frequency) => ({
      frequency,
      min_data_rate_index: 0,
      max_data_rate_index: 5,
    })),
    rx2: band.default_rx2,
    max_eirp: band.default_max_eirp,
    rx1_delay: band.rx1_delay,
    sub_bands: band.sub_bands,
  };
}

describe.each(REGIONS)('$id (RP002 tables)', (region) => {
  const band = getBand(region.id);

  it('default channels: RX1 on the uplink frequency, DR0–DR5', () => {
    expect(band.id).toBe(region.id);
    expect(band.default_channels).toEqual(
      region.defaultChannels.map((f) => ({ uplink_frequency: MHz(f), downlink_frequency: MHz(f), min_data_rate_index: 0, max_data_rate_index: 5 })),
    );
    expect(band.max_adr_data_rate_index).toBe(5);
    expect(band.cf_list_type).toBe('FREQUENCIES');
  });

  it('data rates with M without and with the dwell-time limit', () => {
    region.dataRates.forEach(([modulation, m, mDwellTime], index) => {
      const rate = modulation === 'FSK' ? { fsk: { bit_rate: 50000 } } : { lora: { spreading_factor: modulation[0], bandwidth: modulation[1] * 1000 } };
      expect([index, dataRate(region.id, index)?.rate]).toEqual([index, rate]);
      expect([index, maxMacPayload(region.id, index), maxMacPayload(region.id, index, true)]).toEqual([index, m, mDwellTime ?? m]);
      expect(dataRate(region.id, index)?.max_mac_payload_dwell_time).toBe(mDwellTime ?? undefined);
      expect(dataRateIndexOf(region.id, rate)).toBe(index);
    });
    expect(dataRate(region.id, region.dataRates.length)).toBeUndefined();
    expect(maxFrmPayload(region.id, 0)).toBe(51);
  });

  it('RX1 data rate for every uplink data rate and RX1DROffset; none beyond the table', () => {
    const offsets = region.rx1[0].length;
    const table = (dwellTime: boolean) =>
      region.rx1.map((_row, uplink) => Array.from({ length: offsets }, (_, offset) => rx1DataRateIndex(region.id, uplink, offset, dwellTime)));
    expect(table(false)).toEqual(region.rx1);
    expect(table(true)).toEqual(region.rx1DwellTime ?? region.rx1);
    expect(rx1DataRateIndex(region.id, 0, offsets)).toBeUndefined();
    expect(rx1DataRateIndex(region.id, region.rx1.length, 0)).toBeUndefined();
  });

  it('RX2, delays, max EIRP, TX power steps, TxParamSetupReq', () => {
    expect(band.default_rx2).toEqual({ frequency: MHz(region.rx2[0]), data_rate_index: region.rx2[1] });
    expect([band.rx1_delay, band.join_accept_delay_1, band.join_accept_delay_2]).toEqual([1, 5, 6]);
    expect(band.default_max_eirp).toBe(region.maxEirp);
    expect(band.tx_power_offsets).toEqual(Array.from({ length: region.maxTxPower + 1 }, (_, i) => -2 * i + 0));
    expect(band.tx_param_setup_req_support).toBe(region.txParamSetup);
  });

  it('class B: beacon and ping slot channel and data rate', () => {
    expect([band.beacon_frequency, band.beacon_data_rate_index]).toEqual([MHz(region.beacon[0]), region.beacon[1]]);
    expect(band.ping_slot_frequency).toBe(MHz(region.pingSlotMHz));
    expect(pingSlotFrequency(region.id, '01020304', 1_000_000)).toBe(MHz(region.pingSlotMHz));
  });

  it('sub-bands with duty cycle and max EIRP', () => {
    expect(band.sub_bands).toEqual(
      region.subBands.map(([min, max, dutyCycle, maxEirp]) => ({ min_frequency: MHz(min), max_frequency: MHz(max), duty_cycle: dutyCycle, max_eirp: maxEirp })),
    );
  });

  it('class A windows: RX1 on the uplink frequency, RX2 on the default channel, within a sub-band', () => {
    const plan = planOf(region.id);
    const uplink = MHz(region.defaultChannels[0]);
    const join = classARxWindows(plan, { frequency: uplink, data_rate_index: 5 }, { join: true });
    expect(join.rx1).toMatchObject({ frequency: uplink, data_rate_index: region.rx1[5][0], delay: 5, eirp: region.subBands[0][3] });
    expect(join.rx2).toMatchObject({ frequency: MHz(region.rx2[0]), data_rate_index: region.rx2[1], delay: 6 });
    const data = classARxWindows(plan, { frequency: uplink, data_rate_index: 3 }, { rx1DataRateOffset: 2 });
    expect([data.rx1?.data_rate_index, data.rx1?.delay, data.rx2?.delay]).toEqual([region.rx1[3][2], 1, 2]);
  });

  it('CFList type 0: the frequencies beyond the defaults in 100 Hz units', () => {
    expect(cfList(planOf(region.id))).toBeUndefined();
    const extra = region.defaultChannels[0] + 0.8;
    const bytes = cfList(planOf(region.id, [extra]));
    expect(bytes?.readUIntLE(0, 3)).toBe(Math.round(extra * 1e4));
    expect(bytes?.[15]).toBe(0);
  });

  it('LinkADRReq: ChMaskCntl 0 masks channels 0–15, 6 enables every defined channel, the rest are RFU', () => {
    const count = region.defaultChannels.length + 2;
    const desired = Array.from({ length: count }, (_, i) => i !== 1);
    const blocks = linkAdrChannelMasks(region.id, desired);
    expect(blocks.map((b) => b.channel_mask_control)).toEqual([0]);
    expect(applyLinkAdrChannelMasks(region.id, new Array<boolean>(count).fill(true), blocks)).toEqual(desired);
    expect(applyLinkAdrChannelMasks(region.id, desired, [{ channel_mask: [], channel_mask_control: 6 }])).toEqual(new Array<boolean>(count).fill(true));
    for (const cntl of [1, 2, 3, 4, 5, 7])
      expect(applyLinkAdrChannelMasks(region.id, desired, [{ channel_mask: [true], channel_mask_control: cntl }])).toBeUndefined();
  });
});

describe('AS923 groups', () => {
  it('groups 2–4 are group 1 moved by AS923_FREQ_OFFSET, except the sub-band', () => {
    const offsets: Array<[BandId, number]> = [
      ['AS_923_2', -1_800_000],
      ['AS_923_3', -6_600_000],
      ['AS_923_4', -5_900_000],
    ];
    const group1 = getBand('AS_923');
    const shift = (f: string | undefined, by: number) => String(Number(f) + by);
    for (const [id, by] of offsets) {
      const group = getBand(id);
      expect(group.default_channels.map((c) => c.uplink_frequency)).toEqual(group1.default_channels.map((c) => shift(c.uplink_frequency, by)));
      expect(group.default_rx2.frequency).toBe(shift(group1.default_rx2.frequency, by));
      expect(group.beacon_frequency).toBe(shift(group1.beacon_frequency, by));
    }
  });
});

/** RP001-1.1revB §2.6.2: the 96 CN470 uplink channels, MHz, in rows of 16 (one ChMask each). */
const CN470_UPLINK_MHZ: number[][] = [
  [470.3, 470.5, 470.7, 470.9, 471.1, 471.3, 471.5, 471.7, 471.9, 472.1, 472.3, 472.5, 472.7, 472.9, 473.1, 473.3],
  [473.5, 473.7, 473.9, 474.1, 474.3, 474.5, 474.7, 474.9, 475.1, 475.3, 475.5, 475.7, 475.9, 476.1, 476.3, 476.5],
  [476.7, 476.9, 477.1, 477.3, 477.5, 477.7, 477.9, 478.1, 478.3, 478.5, 478.7, 478.9, 479.1, 479.3, 479.5, 479.7],
  [479.9, 480.1, 480.3, 480.5, 480.7, 480.9, 481.1, 481.3, 481.5, 481.7, 481.9, 482.1, 482.3, 482.5, 482.7, 482.9],
  [483.1, 483.3, 483.5, 483.7, 483.9, 484.1, 484.3, 484.5, 484.7, 484.9, 485.1, 485.3, 485.5, 485.7, 485.9, 486.1],
  [486.3, 486.5, 486.7, 486.9, 487.1, 487.3, 487.5, 487.7, 487.9, 488.1, 488.3, 488.5, 488.7, 488.9, 489.1, 489.3],
];
/** The 48 downlink channels, MHz; RX1 of uplink channel n answers on downlink channel n mod 48. */
const CN470_DOWNLINK_MHZ: number[][] = [
  [500.3, 500.5, 500.7, 500.9, 501.1, 501.3, 501.5, 501.7, 501.9, 502.1, 502.3, 502.5, 502.7, 502.9, 503.1, 503.3],
  [503.5, 503.7, 503.9, 504.1, 504.3, 504.5, 504.7, 504.9, 505.1, 505.3, 505.5, 505.7, 505.9, 506.1, 506.3, 506.5],
  [506.7, 506.9, 507.1, 507.3, 507.5, 507.7, 507.9, 508.1, 508.3, 508.5, 508.7, 508.9, 509.1, 509.3, 509.5, 509.7],
];
/** CN470 data rates and M (RP001-1.1revB §2.6.6, not repeater compatible) and RX1 data rates (§2.6.7) are KR920's tables. */
const CN470_DATA_RATES = SF12_TO_SF7;
const CN470_RX1 = RX1_DR0_TO_DR5;
/** Class B (RP001-1.1revB §2.6.8 and the class B chapter): beacons and ping slots hop over these, at DR2. */
const CN470_BEACON_MHZ = [508.3, 508.5, 508.7, 508.9, 509.1, 509.3, 509.5, 509.7];

describe('CN_470_510 (RP001-1.1revB tables, the layout of TTS CN_470_510)', () => {
  const id: BandId = 'CN_470_510';
  const band = getBand(id);
  const uplinks = CN470_UPLINK_MHZ.flat();
  const downlinks = CN470_DOWNLINK_MHZ.flat();
  const plan = (enabled: (channel: number) => boolean): FrequencyPlan => ({
    id: 'TEST_CN_470_510',
    name: id,
    description: '',
    band_id: id,
    base_frequency: 470,
    uplink_channels: uplinks.filter((_, n) => enabled(n)).map((f) => ({ frequency: MHz(f), min_data_rate_index: 0, max_data_rate_index: 5 })),
    rx2: band.default_rx2,
    max_eirp: band.default_max_eirp,
    rx1_delay: band.rx1_delay,
    sub_bands: band.sub_bands,
  });

  it('96 uplink channels DR0–DR5, 48 downlink channels, RX1 on downlink channel n mod 48', () => {
    expect(uplinks).toHaveLength(96);
    expect(band.default_channels).toEqual(
      uplinks.map((f, n) => ({ uplink_frequency: MHz(f), downlink_frequency: MHz(downlinks[n % 48]), min_data_rate_index: 0, max_data_rate_index: 5 })),
    );
    expect(band.downlink_channels).toEqual(downlinks.map((f) => ({ frequency: MHz(f), min_data_rate_index: 0, max_data_rate_index: 5 })));
    const all = plan(() => true);
    uplinks.forEach((f, n) => expect([n, rx1FrequencyOf(all, MHz(f))]).toEqual([n, MHz(downlinks[n % 48])]));
    // ChirpStack's test vectors: channel 0 → 500.3 MHz, channel 95 (489.3 MHz) → 509.7 MHz.
    expect(rx1FrequencyOf(all, MHz(470.3))).toBe(MHz(500.3));
    expect(rx1FrequencyOf(all, MHz(489.3))).toBe(MHz(509.7));
    expect(rx1FrequencyOf(all, MHz(489.5))).toBeUndefined();
    expect([band.cf_list_type, band.max_adr_data_rate_index]).toEqual(['CHANNEL_MASKS', 5]);
  });

  it('data rates and M; nothing beyond DR5, no dwell-time table', () => {
    CN470_DATA_RATES.forEach(([modulation, m], index) => {
      const rate = { lora: { spreading_factor: (modulation as [number, number])[0], bandwidth: (modulation as [number, number])[1] * 1000 } };
      expect([index, dataRate(id, index)?.rate]).toEqual([index, rate]);
      expect([index, maxMacPayload(id, index), maxMacPayload(id, index, true)]).toEqual([index, m, m]);
      expect(dataRate(id, index)?.max_mac_payload_dwell_time).toBeUndefined();
      expect(dataRateIndexOf(id, rate)).toBe(index);
    });
    expect(dataRate(id, 6)).toBeUndefined();
    expect(maxFrmPayload(id, 0)).toBe(51);
  });

  it('RX1 data rate for every uplink data rate and RX1DROffset; none beyond the table', () => {
    const table = CN470_RX1.map((_row, uplink) => Array.from({ length: 6 }, (_, offset) => rx1DataRateIndex(id, uplink, offset)));
    expect(table).toEqual(CN470_RX1);
    expect(rx1DataRateIndex(id, 3, 6)).toBeUndefined();
    expect(rx1DataRateIndex(id, 6, 0)).toBeUndefined();
  });

  it('RX2 505.3 MHz DR0, delays, 19.15 dBm EIRP (17 dBm ERP), TXPower 0–7, no TxParamSetupReq, one sub-band without duty cycle', () => {
    expect(band.default_rx2).toEqual({ frequency: MHz(505.3), data_rate_index: 0 });
    expect([band.rx1_delay, band.join_accept_delay_1, band.join_accept_delay_2]).toEqual([1, 5, 6]);
    expect(band.default_max_eirp).toBe(19.15);
    expect(band.tx_power_offsets).toEqual([0, -2, -4, -6, -8, -10, -12, -14]);
    expect(band.tx_param_setup_req_support).toBe(false);
    expect(band.sub_bands).toEqual([{ min_frequency: MHz(470), max_frequency: MHz(510), duty_cycle: 1, max_eirp: 19.15 }]);
  });

  it('class B: beacon DR2, beacons and ping slots hop over eight channels by (DevAddr + beacon period) mod 8', () => {
    expect(band.beacon_data_rate_index).toBe(2);
    expect(band.beacon_frequencies).toEqual(CN470_BEACON_MHZ.map(MHz));
    expect([band.beacon_frequency, band.ping_slot_frequency]).toEqual([undefined, undefined]);
    // ChirpStack's test vector: DevAddr 03 14 cf 36, beacon time 334382 h 52 min 44 s → 509.1 MHz.
    expect(pingSlotFrequency(id, '0314cf36', 334382 * 3600 + 52 * 60 + 44)).toBe(MHz(509.1));
    for (let period = 0; period < 8; period++) expect(pingSlotFrequency(id, '00000003', period * 128)).toBe(MHz(CN470_BEACON_MHZ[(3 + period) % 8]));
    expect(pingSlotFrequency(id, '00000003', 0, MHz(505.3))).toBe(MHz(505.3));
  });

  it('class A windows: RX1 on the downlink channel, RX2 on 505.3 MHz', () => {
    const fsb11 = plan((n) => n >= 80 && n < 88);
    const join = classARxWindows(fsb11, { frequency: MHz(486.3), data_rate_index: 5 }, { join: true });
    expect(join.rx1).toMatchObject({ frequency: MHz(506.7), data_rate_index: 5, delay: 5, eirp: 19.15 });
    expect(join.rx2).toMatchObject({ frequency: MHz(505.3), data_rate_index: 0, delay: 6 });
    const data = classARxWindows(fsb11, { frequency: MHz(487.7), data_rate_index: 3 }, { rx1DataRateOffset: 2 });
    expect([data.rx1?.frequency, data.rx1?.data_rate_index, data.rx1?.delay, data.rx2?.delay]).toEqual([MHz(508.1), CN470_RX1[3][2], 1, 2]);
  });

  it('CFList type 1: ChMask0–ChMask5 of the plan channels, RFU zeros, type 1', () => {
    const bytes = cfList(plan((n) => (n >= 80 && n < 88) || n === 0 || n === 95));
    // Six little-endian 16-bit ChMasks: channel n is bit n mod 16 of ChMask floor(n / 16).
    expect(bytes?.toString('hex')).toBe(['0100', '0000', '0000', '0000', '0000', 'ff80'].join('') + '000000' + '01');
  });

  it('LinkADRReq: ChMaskCntl 0–5 mask 16 channels each, 6 switches all 96 on, 7 is RFU', () => {
    const allOn = new Array<boolean>(96).fill(true);
    const fsb11 = uplinks.map((_, n) => n >= 80 && n < 88);
    for (let cntl = 0; cntl <= 5; cntl++) {
      const mask = Array.from({ length: 16 }, (_, i) => i % 3 === 0);
      const after = applyLinkAdrChannelMasks(id, allOn, [{ channel_mask: mask, channel_mask_control: cntl }]);
      expect(after).toEqual(allOn.map((_, n) => (n >= 16 * cntl && n < 16 * (cntl + 1) ? (n - 16 * cntl) % 3 === 0 : true)));
    }
    expect(applyLinkAdrChannelMasks(id, fsb11, [{ channel_mask: [], channel_mask_control: 6 }])).toEqual(allOn);
    expect(applyLinkAdrChannelMasks(id, fsb11, [{ channel_mask: [true], channel_mask_control: 7 }])).toBeUndefined();
    // No channel left: ChannelMaskACK = 0.
    expect(applyLinkAdrChannelMasks(id, fsb11, [{ channel_mask: [], channel_mask_control: 5 }])).toBeUndefined();
  });

  it('LinkADRReq blocks: the shortest sequence, as TTS (the ChirpStack case: 6, 38 and 45 off from all on)', () => {
    const allOn = new Array<boolean>(96).fill(true);
    const desired = allOn.map((_, n) => ![6, 38, 45].includes(n));
    const blocks = linkAdrChannelMasks(id, desired, { current: allOn });
    expect(blocks).toEqual([
      { channel_mask: Array.from({ length: 16 }, (_, i) => i !== 6), channel_mask_control: 0 },
      { channel_mask: Array.from({ length: 16 }, (_, i) => i !== 6 && i !== 13), channel_mask_control: 2 },
    ]);
    expect(applyLinkAdrChannelMasks(id, allOn, blocks)).toEqual(desired);
    // From FSB 11 to everything but channel 0: ChMaskCntl 6, then ChMaskCntl 0.
    const fsb11 = uplinks.map((_, n) => n >= 80 && n < 88);
    const most = allOn.map((_, n) => n !== 0);
    const fewer = linkAdrChannelMasks(id, most, { current: fsb11 });
    expect(fewer.map((b) => b.channel_mask_control)).toEqual([6, 0]);
    expect(applyLinkAdrChannelMasks(id, fsb11, fewer)).toEqual(most);
    // Unknown current channels: every group spelt out; all on: one ChMaskCntl 6; unchanged: one no-op block.
    const spelt = linkAdrChannelMasks(id, fsb11);
    expect(spelt.map((b) => b.channel_mask_control)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(applyLinkAdrChannelMasks(id, allOn, spelt)).toEqual(fsb11);
    expect(linkAdrChannelMasks(id, allOn).map((b) => b.channel_mask_control)).toEqual([6]);
    expect(linkAdrChannelMasks(id, fsb11, { current: fsb11 })).toEqual([{ channel_mask: fsb11.slice(0, 16), channel_mask_control: 0 }]);
  });
});
