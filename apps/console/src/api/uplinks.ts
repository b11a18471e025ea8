import type { StackEvent } from './events';

export interface Uplink {
  time: string;
  device_id: string;
  f_port?: number;
  f_cnt?: number;
  frm_payload?: string;
  decoded_payload?: unknown;
  rssi?: number;
  snr?: number;
}

interface ApplicationUp {
  end_device_ids?: { device_id?: string };
  received_at?: string;
  uplink_message?: { f_port?: number; f_cnt?: number; frm_payload?: string; decoded_payload?: unknown; rx_metadata?: Array<{ rssi?: number; snr?: number }> };
}

/** An `as.up.data.forward` event's ApplicationUp as one row: best RSSI/SNR of its gateways. */
export function uplinkOf(event: StackEvent): Uplink | undefined {
  const up = event.data as ApplicationUp | undefined;
  const msg = up?.uplink_message;
  if (!msg) return undefined;
  const best = [...(msg.rx_metadata ?? [])].sort((a, b) => (b.rssi ?? -999) - (a.rssi ?? -999))[0];
  return {
    time: up.received_at ?? event.time,
    device_id: up.end_device_ids?.device_id ?? '',
    f_port: msg.f_port,
    f_cnt: msg.f_cnt,
    frm_payload: msg.frm_payload,
    decoded_payload: msg.decoded_payload,
    rssi: best?.rssi,
    snr: best?.snr,
  };
}

/** Uplinks per minute (oldest first, minutes without uplinks included) for a bar chart. */
export function perMinute(uplinks: Uplink[]): Array<{ minute: string; uplinks: number }> {
  if (uplinks.length === 0) return [];
  const counts = new Map<number, number>();
  for (const u of uplinks) {
    const m = Math.floor(Date.parse(u.time) / 60000);
    counts.set(m, (counts.get(m) ?? 0) + 1);
  }
  const minutes = [...counts.keys()];
  const out: Array<{ minute: string; uplinks: number }> = [];
  for (let m = Math.min(...minutes); m <= Math.max(...minutes); m++) {
    out.push({ minute: new Date(m * 60000).toISOString().slice(11, 16), uplinks: counts.get(m) ?? 0 });
  }
  return out;
}
