import type { UplinkMessage } from '@lorawan/api';
import type { NsDevice } from '../model';

/**
 * An uplink as the device's own lists show it (`recent_uplinks`, `recent_adr_uplinks`), and as the
 * MAC state keeps its earlier uplinks (TTS `appendRecentUplink`): without what only the latest
 * uplink needs, its uplink tokens (the downlink paths of a class C downlink) and its correlation IDs.
 */
export function uplinkSummary(recent: UplinkMessage): UplinkMessage {
  const metadata = recent.rx_metadata;
  const tokens = metadata?.some((md) => 'uplink_token' in md);
  if (!tokens && !('correlation_ids' in recent)) return recent;
  const { correlation_ids: _ids, ...rest } = recent;
  return tokens ? { ...rest, rx_metadata: metadata?.map(({ uplink_token: _token, ...md }) => md) } : rest;
}

/**
 * The device as the NS registry shows it: its `recent_uplinks` are the MAC state's
 * (`NS_RECENT_UPLINKS` of them, from the session's start), summarized. The device is written on
 * every uplink, so the list is kept once; a list a client set is shown until the next uplink.
 */
export function presentNsDevice(device: NsDevice): NsDevice {
  const macState = device.mac_state;
  if (device.recent_uplinks !== undefined || !macState?.recent_uplinks?.length) return device;
  return { ...device, recent_uplinks: macState.recent_uplinks.map(uplinkSummary) };
}
