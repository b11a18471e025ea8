import { type BandId, dataRate, type FrequencyPlan, type FrequencyPlanFixedChannel, getBand, getFrequencyPlan } from '@lorawan/lorawan';
import type { Refused } from './json';

/**
 * `router_config`, the LNS's answer to `version` (`tcproto` "Router config message"; station
 * `s2e.c` handle_router_config and `sx130xconf.c`; TTS `pkg/pfconfig/lbslns` and
 * `pfconfig/shared` BuildSX1301Config): the gateway's region, hardware, transmit range, data
 * rates and concentrator configuration, generated from its frequency plan(s), one `sx1301_conf`
 * per plan (a concentrator each: `hwspec` `sx1301/<n>`).
 */

/** Station's region names (its common names; 2.0.6 refuses downlinks when it does not know the region). */
const REGIONS: Record<BandId, string> = {
  EU_863_870: 'EU868',
  US_902_928: 'US915',
  AU_915_928: 'AU915',
  AS_923: 'AS923-1',
  // Station knows neither group 2 nor 3 (it logs "Unrecognized region" and drops downlinks): the LoRa Alliance names.
  AS_923_2: 'AS923-2',
  AS_923_3: 'AS923-3',
  // Israel: station's name for it, as TTS maps AS923-4.
  AS_923_4: 'IL915',
  KR_920_923: 'KR920',
  // Not known to station 2.0.6 either: TTS's names (band ID's first two parts).
  IN_865_867: 'IN865',
  RU_864_870: 'RU864',
  EU_433: 'EU433',
  CN_779_787: 'CN779',
  CN_470_510: 'CN470',
  // RP002's CN470 plans: station has one CN470 region; the plan's channels and DRs tell them apart.
  CN_470_510_20_A: 'CN470',
  CN_470_510_20_B: 'CN470',
  CN_470_510_26_A: 'CN470',
  CN_470_510_26_B: 'CN470',
};

/** An SX1301 has eight multi-SF demodulators (`chan_multiSF_0` … `_7`). */
const MULTI_SF_CHANNELS = 8;

/** Class B beacon frame layouts (time offset, info descriptor offset, length) per beacon SF, LoRaWAN L2 1.0.4 (TTS `beaconLayouts`). */
const BEACON_LAYOUTS: Record<number, [number, number, number]> = {
  8: [1, 7, 19],
  9: [2, 8, 17],
  10: [3, 9, 19],
  11: [4, 10, 21],
  12: [5, 11, 23],
};

export interface RouterConfigOptions {
  /** NetIDs whose data uplinks the gateway forwards; null or absent: all. */
  net_ids?: readonly number[] | null;
  /** Inclusive JoinEUI ranges (16 hex digits each) whose join-requests the gateway forwards; null or absent: all. */
  join_eui_ranges?: ReadonlyArray<readonly [string, string]> | null;
  /**
   * Whether station is a production build (`version.features` has `prod`). A debug build is told to
   * leave listen-before-talk, duty cycle and dwell time to the server (`nocca`, `nodc`, `nodwell`),
   * as TTS does; production builds ignore these switches.
   */
  production: boolean;
  /** dBi of the gateway's antenna, given to each radio. */
  antenna_gain?: number;
  /** Server time of sending (Unix s), for the gateway's round-trip measurement. */
  mux_time: number;
}

type Json = Record<string, unknown>;

/** The `router_config` of a gateway with these frequency plans (all of one band), or why there is none. */
export function routerConfig(planIds: readonly string[], options: RouterConfigOptions): Json | Refused {
  if (planIds.length === 0) return { error: 'the gateway has no frequency plan' };
  const plans: FrequencyPlan[] = [];
  for (const id of planIds) {
    const plan = getFrequencyPlan(id);
    if (!plan) return { error: `unknown frequency plan ${id}` };
    plans.push(plan);
  }
  const band = plans[0].band_id;
  if (plans.some((p) => p.band_id !== band)) return { error: 'the frequency plans are of different bands' };
  const concentrators: Json[] = [];
  let minTx = Infinity;
  let maxTx = -Infinity;
  for (const plan of plans) {
    const conf = sx1301Conf(plan, options.antenna_gain ?? 0);
    if ('error' in conf) return conf;
    concentrators.push(conf);
    const tx = plan.radios?.find((r) => r.tx)?.tx;
    if (!tx) return { error: `frequency plan ${plan.id} has no transmitting radio` };
    minTx = Math.min(minTx, Number(tx.min_frequency));
    maxTx = Math.max(maxTx, Number(tx.max_frequency));
  }
  const filters = filtersOf(options);
  if ('error' in filters) return filters;
  return {
    msgtype: 'router_config',
    NetID: filters.netIds,
    JoinEui: filters.joinEuis,
    region: REGIONS[band],
    hwspec: `sx1301/${plans.length}`,
    freq_range: [minTx, maxTx],
    DRs: dataRateTable(band),
    sx1301_conf: concentrators,
    ...(options.production ? {} : { nocca: true, nodc: true, nodwell: true }),
    MuxTime: options.mux_time,
    bcning: beaconing(band),
  };
}

const EUI = /^[0-9A-Fa-f]{16}$/;

/** The NetID filter (24-bit NetIDs) and JoinEUI ranges (unsigned 64-bit, low ≤ high) as station reads them; null: no filter. */
function filtersOf(options: RouterConfigOptions): { netIds: number[] | null; joinEuis: Array<[bigint, bigint]> | null } | Refused {
  const netIds = options.net_ids ? [...options.net_ids] : null;
  if (netIds?.some((id) => !Number.isInteger(id) || id < 0 || id > 0xffffff)) return { error: 'a NetID is a 24-bit integer' };
  const ranges = options.join_eui_ranges ?? null;
  if (ranges?.some(([from, to]) => !EUI.test(from) || !EUI.test(to) || BigInt(`0x${from}`) > BigInt(`0x${to}`)))
    return { error: 'a JoinEUI range is two EUIs of 16 hex digits, the first not above the second' };
  return { netIds, joinEuis: ranges?.map(([from, to]): [bigint, bigint] => [BigInt(`0x${from}`), BigInt(`0x${to}`)]) ?? null };
}

/**
 * `DRs`: the band's 16 data rate indices as [SF, bandwidth kHz, downlink only]; FSK is [0, 0, 0],
 * an index the band does not define [-1, 0, 0]. In US915 and AU915 the rates past the highest of
 * the default uplink channels (DR8–DR13) are downlink only.
 */
export function dataRateTable(band: BandId): Array<[number, number, number]> {
  const b = getBand(band);
  const maxUplink = b.cf_list_type === 'CHANNEL_MASKS' ? Math.max(...b.default_channels.map((c) => c.max_data_rate_index)) : 15;
  return Array.from({ length: 16 }, (_, index): [number, number, number] => {
    const rate = dataRate(band, index)?.rate;
    if (!rate) return [-1, 0, 0];
    if ('fsk' in rate) return [0, 0, 0];
    return [rate.lora.spreading_factor, rate.lora.bandwidth / 1000, index > maxUplink ? 1 : 0];
  });
}

/** One concentrator's `sx1301_conf` from a plan's radios and channels. */
function sx1301Conf(plan: FrequencyPlan, antennaGain: number): Json | Refused {
  const radios = plan.radios ?? [];
  if (radios.length === 0) return { error: `frequency plan ${plan.id} has no radio configuration` };
  const conf: Json = {};
  if (plan.listen_before_talk) {
    const lbt = plan.listen_before_talk;
    conf.lbt_cfg = {
      enable: true,
      rssi_target: lbt.rssi_target,
      chan_cfg: (plan.downlink_channels ?? plan.uplink_channels).slice(0, 8).map((c) => ({ freq_hz: Number(c.frequency), scan_time_us: lbt.scan_time_us })),
      sx127x_rssi_offset: lbt.rssi_offset,
    };
  }
  radios.forEach((radio, i) => {
    conf[`radio_${i}`] = { enable: radio.enable, freq: Number(radio.frequency), ...(antennaGain ? { antenna_gain: antennaGain } : {}) };
  });
  const ifOf = (frequency: string, radio: number): number | Refused => {
    const r = radios[radio];
    return r ? Number(frequency) - Number(r.frequency) : { error: `frequency plan ${plan.id} puts a channel on radio ${radio}, which it does not have` };
  };
  // The multi-SF channels: the uplink channels but those the LoRa standard or FSK channel receives.
  const single = [plan.lora_standard_channel, plan.fsk_channel].filter((c): c is FrequencyPlanFixedChannel => c !== undefined);
  const multiSf = plan.uplink_channels.filter(
    (c) => !single.some((s) => s.frequency === c.frequency && c.min_data_rate_index === s.data_rate_index && c.max_data_rate_index === s.data_rate_index),
  );
  if (multiSf.length > MULTI_SF_CHANNELS)
    return { error: `frequency plan ${plan.id} has ${multiSf.length} multi-SF channels, a concentrator ${MULTI_SF_CHANNELS}` };
  for (let i = 0; i < MULTI_SF_CHANNELS; i++) {
    const channel = multiSf[i];
    if (!channel) {
      conf[`chan_multiSF_${i}`] = { enable: false };
      continue;
    }
    if (channel.radio === undefined) return { error: `frequency plan ${plan.id} does not say which radio receives ${channel.frequency} Hz` };
    const offset = ifOf(channel.frequency, channel.radio);
    if (typeof offset !== 'number') return offset;
    conf[`chan_multiSF_${i}`] = { enable: true, radio: channel.radio, if: offset };
  }
  const loraStd = plan.lora_standard_channel && fixedChannel(plan, plan.lora_standard_channel, ifOf);
  if (loraStd && 'error' in loraStd) return loraStd;
  conf.chan_Lora_std = loraStd ?? { enable: false };
  const fsk = plan.fsk_channel && fixedChannel(plan, plan.fsk_channel, ifOf);
  if (fsk && 'error' in fsk) return fsk;
  conf.chan_FSK = fsk ?? { enable: false };
  return conf;
}

/**
 * The LoRa standard channel (`bandwidth`, `spread_factor`) or the FSK channel (`datarate` only: the
 * specification's SX1301CONF gives the FSK channel no bandwidth, and TTS leaves it out).
 */
function fixedChannel(plan: FrequencyPlan, channel: FrequencyPlanFixedChannel, ifOf: (frequency: string, radio: number) => number | Refused): Json | Refused {
  const rate = dataRate(plan.band_id, channel.data_rate_index)?.rate;
  if (!rate) return { error: `frequency plan ${plan.id}: DR${channel.data_rate_index} is not a data rate of ${plan.band_id}` };
  const offset = ifOf(channel.frequency, channel.radio);
  if (typeof offset !== 'number') return offset;
  const base = { enable: true, radio: channel.radio, if: offset };
  return 'lora' in rate ? { ...base, bandwidth: rate.lora.bandwidth, spread_factor: rate.lora.spreading_factor } : { ...base, datarate: rate.fsk.bit_rate };
}

/** `bcning`: where and how the gateway sends class B beacons (the band's beacon DR and channel(s)); null where the band has none. */
function beaconing(band: BandId): Json | null {
  const b = getBand(band);
  const rate = dataRate(band, b.beacon_data_rate_index)?.rate;
  if (!rate || !('lora' in rate)) return null;
  // The band's channel, or those its beacons hop over (US915/AU915, CN470 RP001); none in RP002's CN470 20 MHz plans.
  const freqs = b.beacon_frequency ? [Number(b.beacon_frequency)] : (b.beacon_frequencies ?? []).map(Number);
  if (freqs.length === 0) return null;
  return { DR: b.beacon_data_rate_index, layout: BEACON_LAYOUTS[rate.lora.spreading_factor], freqs };
}
