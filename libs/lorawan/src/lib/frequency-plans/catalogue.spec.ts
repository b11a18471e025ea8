import { getBand } from './bands';
import { FREQUENCY_PLAN_IDS, getFrequencyPlan, listFrequencyPlans } from './catalogue';
import type { FrequencyPlan } from './types';

const plan = (id: string): FrequencyPlan => {
  const found = getFrequencyPlan(id);
  if (!found) throw new Error(`no plan ${id}`);
  return found;
};
const mhz = (hz: string) => Number(hz) / 1e6;

describe('frequency plan catalogue', () => {
  it('ships the seed plans, in a stable order', () => {
    expect(FREQUENCY_PLAN_IDS).toEqual([
      'EU_863_870',
      'EU_863_870_TTN',
      'US_902_928_FSB_2',
      'AU_915_928_FSB_2',
      'AS_923',
      'IN_865_867',
      'CN_470_510_FSB_1',
      'CN_470_510_FSB_11',
    ]);
    expect(listFrequencyPlans().map((p) => p.id)).toEqual(FREQUENCY_PLAN_IDS);
    expect(getFrequencyPlan('EU_868')).toBeUndefined();
  });

  it('EU_863_870: eight channels DR0-5, RX2 869.525 MHz SF12, 1 % sub-bands', () => {
    const eu = plan('EU_863_870');
    expect(eu.band_id).toBe('EU_863_870');
    expect(eu.uplink_channels.map((c) => mhz(c.frequency))).toEqual([868.1, 868.3, 868.5, 867.1, 867.3, 867.5, 867.7, 867.9]);
    expect(eu.uplink_channels.every((c) => c.min_data_rate_index === 0 && c.max_data_rate_index === 5)).toBe(true);
    expect(eu.downlink_channels).toBeUndefined();
    expect(eu.rx2).toEqual({ frequency: '869525000', data_rate_index: 0 });
    expect(eu).toMatchObject({ max_eirp: 16, rx1_delay: 1, ping_slot_frequency: '869525000', beacon_frequency: '869525000' });
    expect(eu.sub_bands.find((s) => s.min_frequency === '868000000')).toMatchObject({ max_frequency: '868600000', duty_cycle: 0.01 });
    expect(eu.sub_bands.find((s) => s.min_frequency === '869400000')).toMatchObject({ duty_cycle: 0.1, max_eirp: 29.15 });
  });

  it('EU_863_870_TTN differs from EU_863_870 only by RX2 SF9 (DR3) and its name', () => {
    const { id: _a, name: _b, description: _c, rx2, ...ttn } = plan('EU_863_870_TTN');
    const { id: _d, name: _e, description: _f, rx2: euRx2, ...eu } = plan('EU_863_870');
    expect(rx2).toEqual({ frequency: '869525000', data_rate_index: 3 });
    expect(euRx2.data_rate_index).toBe(0);
    expect(ttn).toEqual(eu);
  });

  it('US_902_928_FSB_2: channels 8-15 (903.9-905.3 MHz) and the 904.6 MHz 500 kHz channel; 500 kHz downlinks', () => {
    const us = plan('US_902_928_FSB_2');
    expect(us.uplink_channels).toEqual([
      ...[903.9, 904.1, 904.3, 904.5, 904.7, 904.9, 905.1, 905.3].map((f) => ({
        frequency: String(Math.round(f * 1e6)),
        min_data_rate_index: 0,
        max_data_rate_index: 3,
      })),
      { frequency: '904600000', min_data_rate_index: 4, max_data_rate_index: 4 },
    ]);
    expect(us.downlink_channels?.map((c) => mhz(c.frequency))).toEqual([923.3, 923.9, 924.5, 925.1, 925.7, 926.3, 926.9, 927.5]);
    expect(us.rx2).toEqual({ frequency: '923300000', data_rate_index: 8 });
    expect(us.max_eirp).toBe(30);
    // Beacons and ping slots hop over the eight downlink channels: no fixed frequency.
    expect(us.ping_slot_frequency).toBeUndefined();
    expect(us.beacon_frequency).toBeUndefined();
    expect(us.dwell_time).toEqual({ uplinks: true, downlinks: false });
  });

  it('AU_915_928_FSB_2: channels 8-15 (916.8-918.2 MHz) and 917.5 MHz at DR6', () => {
    const au = plan('AU_915_928_FSB_2');
    expect(au.uplink_channels.map((c) => mhz(c.frequency))).toEqual([916.8, 917, 917.2, 917.4, 917.6, 917.8, 918, 918.2, 917.5]);
    expect(au.uplink_channels[8]).toMatchObject({ min_data_rate_index: 6, max_data_rate_index: 6 });
    expect(au.rx2).toEqual({ frequency: '923300000', data_rate_index: 8 });
  });

  it('AS_923 and IN_865_867 carry their band defaults', () => {
    expect(plan('AS_923')).toMatchObject({ rx2: { frequency: '923200000', data_rate_index: 2 }, max_eirp: 16, ping_slot_frequency: '923400000' });
    expect(plan('AS_923').uplink_channels.map((c) => c.frequency)).toEqual(['923200000', '923400000']);
    expect(plan('IN_865_867')).toMatchObject({ rx2: { frequency: '866550000', data_rate_index: 2 }, max_eirp: 30, beacon_frequency: '866500000' });
    expect(plan('IN_865_867').uplink_channels).toHaveLength(8);
  });

  it('CN_470_510_FSB_1 and _FSB_11: eight channels each and the downlink channels their RX1 uses (TTS lorawan-frequency-plans)', () => {
    const mhzOf = (p: FrequencyPlan) => [p.uplink_channels.map((c) => mhz(c.frequency)), p.downlink_channels?.map((c) => mhz(c.frequency))];
    expect(mhzOf(plan('CN_470_510_FSB_1'))).toEqual([
      [470.3, 470.5, 470.7, 470.9, 471.1, 471.3, 471.5, 471.7],
      [500.3, 500.5, 500.7, 500.9, 501.1, 501.3, 501.5, 501.7],
    ]);
    expect(mhzOf(plan('CN_470_510_FSB_11'))).toEqual([
      [486.3, 486.5, 486.7, 486.9, 487.1, 487.3, 487.5, 487.7],
      [506.7, 506.9, 507.1, 507.3, 507.5, 507.7, 507.9, 508.1],
    ]);
    const fsb11 = plan('CN_470_510_FSB_11');
    expect([...fsb11.uplink_channels, ...(fsb11.downlink_channels ?? [])].every((c) => c.min_data_rate_index === 0 && c.max_data_rate_index === 5)).toBe(true);
    expect(fsb11).toMatchObject({ band_id: 'CN_470_510', rx2: { frequency: '505300000', data_rate_index: 0 }, max_eirp: 19.15, rx1_delay: 1 });
    // Beacons and ping slots hop over eight channels: no fixed frequency.
    expect([fsb11.ping_slot_frequency, fsb11.beacon_frequency, fsb11.dwell_time]).toEqual([undefined, undefined, undefined]);
  });

  it('every plan channel lies in a regulatory sub-band of its band', () => {
    for (const p of listFrequencyPlans()) {
      for (const c of [...p.uplink_channels, ...(p.downlink_channels ?? [])]) {
        const inside = p.sub_bands.some((s) => BigInt(s.min_frequency) <= BigInt(c.frequency) && BigInt(c.frequency) <= BigInt(s.max_frequency));
        expect({ plan: p.id, frequency: c.frequency, inside }).toEqual({ plan: p.id, frequency: c.frequency, inside: true });
      }
    }
  });

  it('is read-only', () => {
    const eu = plan('EU_863_870');
    expect(() => (eu.rx2 as { data_rate_index: number }).data_rate_index++).toThrow(TypeError);
    listFrequencyPlans().pop();
    expect(listFrequencyPlans()).toHaveLength(FREQUENCY_PLAN_IDS.length);
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
