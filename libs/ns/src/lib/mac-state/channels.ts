import type { MACParametersChannel } from '@lorawan/api';
import type { Band, FrequencyPlan } from '@lorawan/lorawan';

/**
 * The channels a device has after boot: the band's defaults, in channel-index order. Factory-preset
 * frequencies (ABP devices programmed with a channel set) enable only those channels; in bands
 * whose CFList lists frequencies, a preset outside the defaults is an extra channel.
 */
export function bootChannels(band: Band, factoryPresets: readonly string[] = []): MACParametersChannel[] {
  const channels = band.default_channels.map((c) => ({
    uplink_frequency: c.uplink_frequency,
    downlink_frequency: c.downlink_frequency,
    min_data_rate_index: c.min_data_rate_index,
    max_data_rate_index: c.max_data_rate_index,
    enable_uplink: factoryPresets.length === 0,
  }));
  for (const frequency of factoryPresets) {
    const channel = channels.find((c) => c.uplink_frequency === frequency);
    if (channel) channel.enable_uplink = true;
    else if (band.cf_list_type === 'FREQUENCIES') {
      channels.push({
        uplink_frequency: frequency,
        downlink_frequency: frequency,
        min_data_rate_index: 0,
        max_data_rate_index: band.max_adr_data_rate_index,
        enable_uplink: true,
      });
    }
  }
  return channels;
}

/**
 * The channels the network wants: the boot channels (so channel indexes stay the device's), with
 * only the plan's channels enabled. Frequency-list bands (EU-like) take the plan's data-rate ranges
 * and append its extra channels; channel-mask bands (US, AU) can only switch channels on and off.
 */
export function planChannels(band: Band, plan: FrequencyPlan, boot: readonly MACParametersChannel[]): MACParametersChannel[] {
  const channels = boot.map((c) => ({ ...c, enable_uplink: false }));
  plan.uplink_channels.forEach((planChannel, i) => {
    const channel = channels.find((c) => c.uplink_frequency === planChannel.frequency);
    if (channel) {
      channel.enable_uplink = true;
      if (band.cf_list_type === 'FREQUENCIES') {
        channel.min_data_rate_index = planChannel.min_data_rate_index;
        channel.max_data_rate_index = planChannel.max_data_rate_index;
      }
    } else if (band.cf_list_type === 'FREQUENCIES') {
      channels.push({
        uplink_frequency: planChannel.frequency,
        downlink_frequency: plan.downlink_channels?.[i]?.frequency ?? planChannel.frequency,
        min_data_rate_index: planChannel.min_data_rate_index,
        max_data_rate_index: planChannel.max_data_rate_index,
        enable_uplink: true,
      });
    }
  });
  return channels;
}
