import type { BandId } from '@lorawan/lorawan';
import type { PlannedDownlink } from '../../scheduling/class-a-downlink';
import { type DownlinkRequest, type DownlinkTiming, toDnmsg } from './downlink';
import type { Refused } from './json';
import { gpsTimeOfRfc3339, xtimeOfTimestamp } from './time';

/**
 * A downlink the core planned (the same plan the UDP frontend renders as `txpk`) → `dnmsg`. The
 * plan says when the gateway transmits: at a GPS time (class B), at a concentrator timestamp
 * (class A, or class C when the NS asked for a time), or now. A timestamp is made an xtime in the
 * gateway's current session (the latest xtime it sent), and sent as TTS does: as a class A
 * `dnmsg` whose "uplink" was one second earlier, RxDelay 1, the planned channel as RX1, so
 * station transmits at that exact time.
 */

export interface PlannedDnmsgContext {
  /** The device class of the downlink (`dC`). */
  device_class: 'A' | 'B' | 'C';
  diid: number;
  /** The latest xtime the gateway sent (its session); needed for a downlink at a timestamp. */
  session_xtime?: bigint;
  dev_eui?: string;
  /** The radio unit (the uplink's `rctx` for class A). */
  rctx?: number;
  priority?: number;
  mux_time: number;
}

const SECOND_US = 1_000_000n;

export function dnmsgOfPlanned(planned: PlannedDownlink, context: PlannedDnmsgContext, band: BandId): Record<string, unknown> | Refused {
  const timing = timingOf(planned, context);
  if ('error' in timing) return timing;
  const request: DownlinkRequest = {
    diid: context.diid,
    payload: planned.payload,
    timing,
    dev_eui: context.dev_eui,
    rctx: context.rctx,
    priority: context.priority,
    mux_time: context.mux_time,
  };
  return toDnmsg(request, band);
}

function timingOf(planned: PlannedDownlink, context: PlannedDnmsgContext): DownlinkTiming | Refused {
  const channel = { data_rate: planned.data_rate, frequency: planned.frequency };
  if (planned.time !== undefined) {
    const gpstime = gpsTimeOfRfc3339(planned.time);
    return gpstime === undefined ? { error: `the planned time ${planned.time} is not an RFC 3339 UTC time` } : { class: 'B', gpstime, channel };
  }
  if (planned.timestamp === undefined) {
    if (context.device_class !== 'C') return { error: `a class ${context.device_class} downlink needs a time to be sent at` };
    return { class: 'C', channel };
  }
  if (context.session_xtime === undefined) return { error: 'no xtime from the gateway yet: its concentrator session is unknown' };
  const xtime = xtimeOfTimestamp(context.session_xtime, planned.timestamp);
  if (context.device_class === 'C') return { class: 'C', xtime, channel };
  if ((xtime & ((1n << 48n) - 1n)) < SECOND_US) return { error: 'the planned timestamp is within the concentrator`s first second' };
  return { class: 'A', xtime: xtime - SECOND_US, rx_delay: 1, rx1: channel };
}
