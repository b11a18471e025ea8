import type { Device } from '@lorawan/registry';

type Json = Record<string, unknown>;

/**
 * An uplink as the device's own lists show it (`recent_uplinks`, `recent_adr_uplinks`): what the
 * MAC state keeps of it without what only the NS's downlinks use (uplink tokens) and the
 * correlation IDs.
 */
export function uplinkSummary(recent: Json): Json {
  const { correlation_ids: _ids, ...rest } = withoutUplinkTokens(recent);
  return rest;
}

/** A recent uplink without its uplink tokens (the MAC state keeps them on its latest uplink only). */
export function withoutUplinkTokens(recent: Json): Json {
  const metadata = recent.rx_metadata as Json[] | undefined;
  if (!metadata?.some((md) => 'uplink_token' in md)) return recent;
  return { ...recent, rx_metadata: metadata.map(({ uplink_token: _token, ...md }) => md) };
}

/**
 * The device as the NS registry shows it: its `recent_uplinks` are the MAC state's
 * (`NS_RECENT_UPLINKS` of them, from the session's start), summarized. The device is written on
 * every uplink, so the list is kept once; a list a client set is shown until the next uplink.
 */
export function presentNsDevice(device: Device): Device {
  const macState = device.mac_state as { recent_uplinks?: Json[] } | undefined;
  if (device.recent_uplinks !== undefined || !macState?.recent_uplinks?.length) return device;
  return { ...device, recent_uplinks: macState.recent_uplinks.map(uplinkSummary) };
}
