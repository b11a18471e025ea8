import { EU868_DRS, EU868_SX1301, UNDEFINED_DR, US915_DRS, US915_FSB2_SX1301 } from '@lorawan/testing';
import { parseStationJson, stringifyStationJson } from './json';
import { dataRateTable, routerConfig } from './router-config';

/**
 * Expected values transcribed from public references, not from the code under test (the
 * `router_config` references of `@lorawan/testing`, shared with the e2e suite), and for `bcning`:
 * TTS's `ws_test.go` / `lbslbs_test.go` (EU: DR3, layout 2/8/17, 869.525 MHz; US: DR8, layout
 * 5/11/23, 923.3 … 927.5 MHz).
 */

const MUX_TIME = 1_764_320_000.123;

describe('router_config (tcproto "Router config message", TTS pfconfig/lbslns)', () => {
  it('EU868 (EU_863_870): region, hardware, TX range, DRs, both radios, 8 multi-SF, LoRa std and FSK, beaconing', () => {
    expect(routerConfig(['EU_863_870'], { production: true, mux_time: MUX_TIME })).toEqual({
      msgtype: 'router_config',
      NetID: null,
      JoinEui: null,
      region: 'EU868',
      hwspec: 'sx1301/1',
      freq_range: [863000000, 870000000],
      DRs: EU868_DRS,
      sx1301_conf: [EU868_SX1301],
      MuxTime: MUX_TIME,
      bcning: { DR: 3, layout: [2, 8, 17], freqs: [869525000] },
    });
  });

  it('US915 FSB 2: the 500 kHz channel is the LoRa standard channel, not a ninth multi-SF one; DR8–13 downlink only; eight beacon channels', () => {
    expect(routerConfig(['US_902_928_FSB_2'], { production: true, mux_time: MUX_TIME })).toEqual({
      msgtype: 'router_config',
      NetID: null,
      JoinEui: null,
      region: 'US915',
      hwspec: 'sx1301/1',
      freq_range: [923000000, 928000000],
      DRs: US915_DRS,
      sx1301_conf: [US915_FSB2_SX1301],
      MuxTime: MUX_TIME,
      bcning: { DR: 8, layout: [5, 11, 23], freqs: [923300000, 923900000, 924500000, 925100000, 925700000, 926300000, 926900000, 927500000] },
    });
  });

  it('a debug station is told to leave LBT, duty cycle and dwell time to the server (TTS: features without `prod`)', () => {
    const config = routerConfig(['EU_863_870'], { production: false, mux_time: MUX_TIME });
    expect(config).toMatchObject({ nocca: true, nodc: true, nodwell: true });
    expect(routerConfig(['EU_863_870'], { production: true, mux_time: MUX_TIME })).not.toHaveProperty('nocca');
  });

  it('NetID and JoinEUI filters, antenna gain on every radio', () => {
    const config = routerConfig(['EU_863_870'], {
      production: true,
      mux_time: MUX_TIME,
      net_ids: [0x000013, 0x60002d],
      join_eui_ranges: [['70B3D57ED0000000', '70B3D57ED0FFFFFF']],
      antenna_gain: 3,
    });
    expect(config).toMatchObject({
      NetID: [0x13, 0x60002d],
      JoinEui: [[0x70b3d57ed0000000n, 0x70b3d57ed0ffffffn]],
      sx1301_conf: [{ radio_0: { enable: true, freq: 867500000, antenna_gain: 3 }, radio_1: { enable: true, freq: 868500000, antenna_gain: 3 } }],
    });
    // Written for station: the 64-bit JoinEUIs as plain integers, which read back exactly.
    const text = stringifyStationJson(config);
    expect(text).toContain('"JoinEui":[[8121069293711392768,8121069293728169983]]');
    expect(parseStationJson(text)).toEqual({ value: config });
  });

  it('listen-before-talk where the plan has it: the first eight downlink channels, the plan`s RSSI target, offset and scan time', () => {
    const config = routerConfig(['AS_920_923_LBT'], { production: true, mux_time: MUX_TIME });
    // As in TTN's AS923 LBT concentrator configuration (chan_cfg in channel order, 128 µs, -80 dBm, offset -4).
    expect(config).toMatchObject({
      region: 'AS923-1',
      sx1301_conf: [
        {
          lbt_cfg: {
            enable: true,
            rssi_target: -80,
            chan_cfg: [923200000, 923400000, 922200000, 922400000, 922600000, 922800000, 923000000, 922000000].map((freq_hz) => ({
              freq_hz,
              scan_time_us: 128,
            })),
            sx127x_rssi_offset: -4,
          },
        },
      ],
    });
  });

  it('one sx1301_conf per plan of a multi-concentrator gateway, the TX range spanning them', () => {
    const config = routerConfig(['US_902_928_FSB_1', 'US_902_928_FSB_2'], { production: true, mux_time: MUX_TIME });
    expect(config).toMatchObject({ hwspec: 'sx1301/2', freq_range: [923000000, 928000000] });
    expect((config as { sx1301_conf: unknown[] }).sx1301_conf).toHaveLength(2);
    expect((config as { sx1301_conf: Array<{ radio_0: unknown }> }).sx1301_conf[0].radio_0).toEqual({ enable: true, freq: 902700000 });
  });

  it('a plan with fewer channels disables the other demodulators', () => {
    const config = routerConfig(['EU_868_1'], { production: true, mux_time: MUX_TIME }) as { sx1301_conf: Array<Record<string, unknown>> };
    expect(config.sx1301_conf[0].chan_multiSF_0).toEqual({ enable: true, radio: 1, if: -400000 });
    for (let i = 1; i < 8; i++) expect(config.sx1301_conf[0][`chan_multiSF_${i}`]).toEqual({ enable: false });
  });

  it('refuses what it cannot configure, with the reason', () => {
    expect(routerConfig([], { production: true, mux_time: 0 })).toEqual({ error: 'the gateway has no frequency plan' });
    expect(routerConfig(['NOPE'], { production: true, mux_time: 0 })).toEqual({ error: 'unknown frequency plan NOPE' });
    expect(routerConfig(['EU_863_870', 'US_902_928_FSB_2'], { production: true, mux_time: 0 })).toEqual({
      error: 'the frequency plans are of different bands',
    });
    const rangeError = { error: 'a JoinEUI range is two EUIs of 16 hex digits, the first not above the second' };
    expect(routerConfig(['EU_863_870'], { production: true, mux_time: 0, join_eui_ranges: [['70B3D57ED0000000', 'zz']] })).toEqual(rangeError);
    expect(routerConfig(['EU_863_870'], { production: true, mux_time: 0, join_eui_ranges: [['0000000000000002', '0000000000000001']] })).toEqual(rangeError);
    expect(routerConfig(['EU_863_870'], { production: true, mux_time: 0, net_ids: [0x1000000] })).toEqual({ error: 'a NetID is a 24-bit integer' });
  });

  it('DRs of the other bands: AU915 DR8–13 downlink only, KR920 LoRa 125 kHz only', () => {
    const au = dataRateTable('AU_915_928');
    expect(au.slice(0, 7)).toEqual([
      [12, 125, 0],
      [11, 125, 0],
      [10, 125, 0],
      [9, 125, 0],
      [8, 125, 0],
      [7, 125, 0],
      [8, 500, 0],
    ]);
    expect(au.slice(8, 14).every(([, bw, dnonly]) => bw === 500 && dnonly === 1)).toBe(true);
    expect(dataRateTable('KR_920_923').slice(5, 8)).toEqual([[7, 125, 0], UNDEFINED_DR, UNDEFINED_DR]);
  });

  it('CN470 (RP001 plans): region CN470, beacons hopping over 508.3–509.7 MHz at DR2 (TTS cn470510BeaconFrequencies)', () => {
    expect(routerConfig(['CN_470_510_FSB_1'], { production: true, mux_time: MUX_TIME })).toMatchObject({
      region: 'CN470',
      bcning: { DR: 2, layout: [3, 9, 19], freqs: [508300000, 508500000, 508700000, 508900000, 509100000, 509300000, 509500000, 509700000] },
    });
  });

  it('DRs of RP002`s CN470 plans: no DR0, DR1–DR5 SF11–SF7, DR6 SF7/500 kHz past the channels` DR5 (downlink only), DR7 FSK', () => {
    for (const band of ['CN_470_510_20_A', 'CN_470_510_20_B', 'CN_470_510_26_A', 'CN_470_510_26_B'] as const) {
      expect([band, dataRateTable(band)]).toEqual([
        band,
        [UNDEFINED_DR, [11, 125, 0], [10, 125, 0], [9, 125, 0], [8, 125, 0], [7, 125, 0], [7, 500, 1], [0, 0, 0], ...Array(8).fill(UNDEFINED_DR)],
      ]);
    }
  });
});
