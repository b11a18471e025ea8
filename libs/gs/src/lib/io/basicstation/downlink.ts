import { type BandId, type DataRate, dataRateIndexOf, formatDashedEui } from '@lorawan/lorawan';
import type { TxAckResult } from '../messages';
import { type Refused, withoutUndefined } from './json';
import type { TxConfirmationMessage } from './messages';

/**
 * A planned downlink → `dnmsg` (`tcproto` "Downlink messages"; station `s2e.c` handle_dnmsg; TTS
 * `lbslns/downstream.go`), and `dntxed` → the TX acknowledgment.
 *
 * - Class A (`dC` 0): the uplink's `xtime` and `rctx`, `RxDelay` (s), and RX1 (`RX1DR`/`RX1Freq`)
 *   and/or RX2 (`RX2DR`/`RX2Freq`): station sends at xtime + RxDelay on RX1, else one second later
 *   on RX2.
 * - Class B (`dC` 1): `DR`/`Freq` at an absolute `gpstime` (µs), a ping slot.
 * - Class C (`dC` 2): `DR`/`Freq` at an `xtime` (station sends at it exactly: `DR` implies
 *   RxDelay 0), or with no time at all `RX2DR`/`RX2Freq`, which station sends as soon as it can.
 *
 * Station requires `DevEui`, `dC`, `diid` and `pdu` on every `dnmsg`, and reports `dntxed` only for
 * a non-zero `DevEui`; where the device's EUI is not known TTS sends `00-00-00-00-00-00-00-01`.
 */

/** A transmission's channel: the stack's data rate (LoRa SF/BW or FSK) and the frequency in Hz. */
export interface DownlinkChannel {
  data_rate: DataRate;
  frequency: number | string;
}

export type DownlinkTiming =
  | {
      class: 'A';
      /** The uplink's xtime. */ xtime: bigint;
      /** Seconds after the uplink RX1 opens (1–15). */ rx_delay: number;
      rx1?: DownlinkChannel;
      rx2?: DownlinkChannel;
    }
  | { class: 'B'; /** GPS µs of the ping slot. */ gpstime: bigint; channel: DownlinkChannel }
  | { class: 'C'; /** The xtime to send at; none: as soon as possible. */ xtime?: bigint; channel: DownlinkChannel };

export interface DownlinkRequest {
  /** The downlink's id on this connection, echoed in `dntxed`. */
  diid: number;
  payload: Buffer;
  timing: DownlinkTiming;
  /** The device's EUI (16 hex digits), when known. */
  dev_eui?: string;
  /** Radio unit to send with (the uplink's `rctx` for class A); default 0. */
  rctx?: number;
  /** 0–255, higher first when station must choose (TTS: 25). */
  priority?: number;
  /** Server time of sending (Unix s), for the gateway's round-trip measurement. */
  mux_time: number;
}

/** TTS's DevEui when the device is unknown: non-zero, so that station reports `dntxed`. */
export const UNKNOWN_DEV_EUI = '0000000000000001';
export const DEFAULT_PRIORITY = 25;

/** The `dnmsg` of a downlink (to be written with `stringifyStationJson`), or why there is none. */
export function toDnmsg(request: DownlinkRequest, band: BandId): Record<string, unknown> | Refused {
  const { payload, timing } = request;
  if (payload.length === 0 || payload.length > 255) return { error: 'a downlink PHYPayload is 1 to 255 bytes' };
  if (!Number.isSafeInteger(request.diid) || request.diid < 0) return { error: '`diid` must be a non-negative integer' };
  const priority = request.priority ?? DEFAULT_PRIORITY;
  if (!Number.isInteger(priority) || priority < 0 || priority > 255) return { error: 'priority must be an integer in [0, 255]' };
  if (request.dev_eui !== undefined && !/^[0-9A-Fa-f]{16}$/.test(request.dev_eui)) return { error: 'a DevEUI is 16 hex digits' };
  const rctx = request.rctx ?? 0;
  if (!Number.isInteger(rctx) || rctx < 0 || rctx > 255) return { error: '`rctx` must be an integer in [0, 255]' };
  const common = {
    msgtype: 'dnmsg',
    DevEui: formatDashedEui((request.dev_eui ?? UNKNOWN_DEV_EUI).toUpperCase()),
    dC: { A: 0, B: 1, C: 2 }[timing.class],
    diid: request.diid,
    pdu: payload.toString('hex').toUpperCase(),
    priority,
    rctx,
    MuxTime: request.mux_time,
  };
  try {
    switch (timing.class) {
      case 'A': {
        if (!timing.rx1 && !timing.rx2) return { error: 'a class A downlink needs RX1 or RX2' };
        if (!Number.isInteger(timing.rx_delay) || timing.rx_delay < 1 || timing.rx_delay > 15) return { error: 'RxDelay must be 1 to 15 s' };
        const rx1 = timing.rx1 && channelOf(timing.rx1, band);
        const rx2 = timing.rx2 && channelOf(timing.rx2, band);
        return withoutUndefined({
          ...common,
          xtime: positive(timing.xtime, 'xtime'),
          RxDelay: timing.rx_delay,
          RX1DR: rx1?.dr,
          RX1Freq: rx1?.freq,
          RX2DR: rx2?.dr,
          RX2Freq: rx2?.freq,
        });
      }
      case 'B': {
        const { dr, freq } = channelOf(timing.channel, band);
        return { ...common, DR: dr, Freq: freq, gpstime: positive(timing.gpstime, 'gpstime') };
      }
      case 'C': {
        const { dr, freq } = channelOf(timing.channel, band);
        if (timing.xtime === undefined) return { ...common, RxDelay: 1, RX2DR: dr, RX2Freq: freq };
        return { ...common, DR: dr, Freq: freq, xtime: positive(timing.xtime, 'xtime') };
      }
    }
  } catch (err) {
    if (err instanceof InvalidDownlink) return { error: err.message };
    throw err;
  }
}

class InvalidDownlink extends Error {}

function positive(value: bigint, name: string): bigint {
  if (value <= 0n || value >= 1n << 63n) throw new InvalidDownlink(`\`${name}\` must be a positive 63-bit integer`);
  return value;
}

/** The region's downlink DR index of a data rate (US/AU SF8/500 kHz is DR12 down) and the integer frequency. */
function channelOf(channel: DownlinkChannel, band: BandId): { dr: number; freq: number } {
  const dr = dataRateIndexOf(band, channel.data_rate, true);
  if (dr === undefined) throw new InvalidDownlink(`the data rate ${JSON.stringify(channel.data_rate)} is not one of ${band}`);
  const freq = Number(channel.frequency);
  if (!Number.isSafeInteger(freq) || freq <= 0) throw new InvalidDownlink('a downlink frequency is a positive integer (Hz)');
  return { dr, freq };
}

/** What a `dntxed` tells the core: which downlink went out (by `diid`), and when by the gateway's clocks. */
export interface TxConfirmation {
  diid: number;
  /** Station reports only successful transmissions. */
  result: TxAckResult;
  xtime?: bigint;
  gpstime?: bigint;
}

export function toTxConfirmation(msg: TxConfirmationMessage): TxConfirmation {
  return withoutUndefined({ diid: msg.diid, result: 'SUCCESS' as const, xtime: msg.xtime, gpstime: msg.gpstime });
}
