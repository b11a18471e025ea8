import { getFrequencyPlan, listFrequencyPlans } from './catalogue';
import { cfList, cfListBytes } from './cf-list';
import { dataRate, dataRateIndexOf, rx1DataRateIndex } from './data-rates';
import { classARxWindows, downlinkEirp } from './rx-windows';
import type { FrequencyPlan } from './types';

const plan = (id: string): FrequencyPlan => {
  const p = getFrequencyPlan(id);
  if (!p) throw new Error(`no plan ${id}`);
  return p;
};

describe('data rates (RP002, dataplane-notes §8.3)', () => {
  it('EU868: DR0 SF12/125 … DR5 SF7/125, DR6 SF7/250, DR7 FSK; M 59/59/59/123/250…', () => {
    expect([0, 1, 2, 3, 4, 5, 6].map((i) => dataRate('EU_863_870', i)?.rate)).toEqual([
      ...[12, 11, 10, 9, 8, 7].map((sf) => ({ lora: { spreading_factor: sf, bandwidth: 125000 } })),
      { lora: { spreading_factor: 7, bandwidth: 250000 } },
    ]);
    expect(dataRate('EU_863_870', 7)?.rate).toEqual({ fsk: { bit_rate: 50000 } });
    expect([0, 1, 2, 3, 4, 5, 6, 7].map((i) => dataRate('EU_863_870', i)?.max_mac_payload)).toEqual([59, 59, 59, 123, 250, 250, 250, 250]);
    expect(dataRate('EU_863_870', 8)).toBeUndefined();
  });

  it('US915: uplink DR0–DR4, downlink DR8–DR13 (SF12–SF7 at 500 kHz), M 19/61/133/250/250 and 61/137/250…', () => {
    expect([0, 1, 2, 3, 4].map((i) => dataRate('US_902_928', i)?.max_mac_payload)).toEqual([19, 61, 133, 250, 250]);
    expect([8, 9, 10, 11, 12, 13].map((i) => dataRate('US_902_928', i)?.max_mac_payload)).toEqual([61, 137, 250, 250, 250, 250]);
    expect(dataRate('US_902_928', 8)?.rate).toEqual({ lora: { spreading_factor: 12, bandwidth: 500000 } });
    expect([5, 6, 7, 14].map((i) => dataRate('US_902_928', i))).toEqual([undefined, undefined, undefined, undefined]);
    // SF8/500 is DR4 up and DR12 down.
    const sf8w = { lora: { spreading_factor: 8, bandwidth: 500000 } };
    expect([dataRateIndexOf('US_902_928', sf8w), dataRateIndexOf('US_902_928', sf8w, true)]).toEqual([4, 12]);
  });

  it('RX1 data rate per band, uplink DR and RX1DROffset', () => {
    expect([0, 1, 2, 3, 4, 5].map((o) => rx1DataRateIndex('EU_863_870', 5, o))).toEqual([5, 4, 3, 2, 1, 0]);
    expect(rx1DataRateIndex('EU_863_870', 1, 3)).toBe(0);
    expect(rx1DataRateIndex('EU_863_870', 5, 6)).toBeUndefined();
    expect([0, 1, 2, 3, 4].map((dr) => [0, 1, 2, 3].map((o) => rx1DataRateIndex('US_902_928', dr, o)))).toEqual([
      [10, 9, 8, 8],
      [11, 10, 9, 8],
      [12, 11, 10, 9],
      [13, 12, 11, 10],
      [13, 13, 12, 11],
    ]);
    expect(rx1DataRateIndex('US_902_928', 0, 4)).toBeUndefined();
    expect(rx1DataRateIndex('AU_915_928', 6, 0)).toBe(13);
    expect(rx1DataRateIndex('AU_915_928', 2, 5)).toBe(8);
    // AS923 and IN865: offsets 6 and 7 raise the rate; AS923 stays within DR0/DR2 (dwell) … DR7, IN865 within DR0 … DR5.
    expect([0, 1, 2, 3, 4, 5, 6, 7].map((o) => rx1DataRateIndex('AS_923', 3, o))).toEqual([3, 2, 1, 0, 0, 0, 4, 5]);
    expect(rx1DataRateIndex('AS_923', 3, 3, true)).toBe(2);
    expect(rx1DataRateIndex('AS_923', 5, 7)).toBe(7);
    expect(rx1DataRateIndex('IN_865_867', 5, 7)).toBe(5);
    expect(rx1DataRateIndex('IN_865_867', 6, 0)).toBeUndefined();
  });
});

describe('class A receive windows', () => {
  it('EU868 TTN join-accept: RX1 on the uplink frequency at its DR after 5 s, RX2 869.525 MHz SF9 after 6 s; 14 dBm ERP on 868.x, 27 dBm ERP in the 10 % sub-band', () => {
    expect(classARxWindows(plan('EU_863_870_TTN'), { frequency: '868100000', data_rate_index: 5 }, { join: true })).toEqual({
      rx1: { frequency: '868100000', data_rate_index: 5, data_rate: { lora: { spreading_factor: 7, bandwidth: 125000 } }, delay: 5, eirp: 16.15 },
      rx2: { frequency: '869525000', data_rate_index: 3, data_rate: { lora: { spreading_factor: 9, bandwidth: 125000 } }, delay: 6, eirp: 29.15 },
    });
  });

  it('EU868 data downlink: RX1Delay and RX1DROffset from the MAC state, a device-specific RX2', () => {
    const w = classARxWindows(
      plan('EU_863_870'),
      { frequency: 867_500_000, data_rate_index: 4 },
      { rx1Delay: 2, rx1DataRateOffset: 2, rx2: { frequency: '869525000', data_rate_index: 0 } },
    );
    expect([w.rx1?.frequency, w.rx1?.data_rate_index, w.rx1?.delay, w.rx2?.data_rate_index, w.rx2?.delay]).toEqual(['867500000', 2, 2, 0, 3]);
  });

  it('US915 FSB2: RX1 on 923.3 + 0.6 × (channel mod 8) MHz at the table DR, RX2 923.3 MHz DR8', () => {
    const p = plan('US_902_928_FSB_2');
    // Channel 8 (903.9 MHz) → 923.3 MHz; channel 13 (904.9 MHz) → 926.3 MHz; channel 65 (904.6 MHz, DR4) → 923.9 MHz.
    expect(classARxWindows(p, { frequency: '903900000', data_rate_index: 0 }, { join: true }).rx1).toMatchObject({
      frequency: '923300000',
      data_rate_index: 10,
      delay: 5,
    });
    expect(classARxWindows(p, { frequency: '904900000', data_rate_index: 3 }, { join: true }).rx1).toMatchObject({
      frequency: '926300000',
      data_rate_index: 13,
    });
    expect(classARxWindows(p, { frequency: '904600000', data_rate_index: 4 }, { join: true }).rx1).toMatchObject({
      frequency: '923900000',
      data_rate_index: 13,
    });
    expect(classARxWindows(p, { frequency: '903900000', data_rate_index: 0 }, { join: true }).rx2).toMatchObject({
      frequency: '923300000',
      data_rate_index: 8,
      delay: 6,
    });
    // 26 dBm ERP on the downlink channels.
    expect(downlinkEirp(p, '923300000')).toBe(28.15);
    // Off the band's channels: no RX1.
    expect(classARxWindows(p, { frequency: '868100000', data_rate_index: 0 }, { join: true }).rx1).toBeUndefined();
  });

  it('has RX1 and RX2 for an uplink on every channel of every plan of the catalogue, at every uplink DR', () => {
    let windows = 0;
    for (const p of listFrequencyPlans()) {
      for (const channel of p.uplink_channels) {
        for (let dr = channel.min_data_rate_index; dr <= channel.max_data_rate_index; dr++) {
          const w = classARxWindows(p, { frequency: channel.frequency, data_rate_index: dr }, { join: true });
          expect([p.id, channel.frequency, dr, !!w.rx1, !!w.rx2]).toEqual([p.id, channel.frequency, dr, true, true]);
          windows++;
        }
      }
    }
    expect(windows).toBeGreaterThan(40);
  });
});

describe('CFList', () => {
  it('EU868: the five extra channels 867.1–867.9 MHz, type 0 (the CFList TTN devices receive)', () => {
    expect(cfList(plan('EU_863_870_TTN'))?.toString('hex').toUpperCase()).toBe('184F84E85684B85E84886684586E8400');
  });

  it('US915/AU915 sub-band 2: channels 8–15 and 65 in the masks, type 1', () => {
    expect(cfList(plan('US_902_928_FSB_2'))?.toString('hex').toUpperCase()).toBe('00FF0000000000000200000000000001');
    expect(cfList(plan('AU_915_928_FSB_2'))?.toString('hex').toUpperCase()).toBe('00FF0000000000000200000000000001');
  });

  it('none where the plan only has the band defaults (AS923 default channels)', () => {
    expect(cfList(plan('AS_923'))).toBeUndefined();
    expect(cfList(plan('IN_865_867'))?.subarray(0, 3).readUIntLE(0, 3)).toBe(8652325);
  });
});

describe('CFList bytes of the structured CFList (TTS)', () => {
  it('frequencies in 100 Hz units (type 0) and channel masks (type 1), as the plans give them', () => {
    expect(cfListBytes({ type: 'FREQUENCIES', freq: [8671000, 8673000, 8675000, 8677000, 8679000] })).toEqual(cfList(plan('EU_863_870_TTN')));
    const masks = Array.from({ length: 72 }, (_, i) => (i >= 8 && i < 16) || i === 65);
    expect(cfListBytes({ type: 'CHANNEL_MASKS', ch_masks: masks })).toEqual(cfList(plan('US_902_928_FSB_2')));
    expect(cfListBytes(undefined)).toBeUndefined();
    expect(cfListBytes({ type: 'FREQUENCIES', freq: [] })).toBeUndefined();
  });
});
