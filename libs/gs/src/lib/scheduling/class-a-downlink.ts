import type { TxRequest } from '@lorawan/api';
import { type DataRate, dataRateIndexOf, downlinkEirp, type FrequencyPlan } from '@lorawan/lorawan';
import { isStackError, type StackError } from '@lorawan/errors';
import { ErrDataRate, ErrFrequencyNotAllowed, ErrNoRxWindow, ErrTooLate } from '../errors';
import { toTxpk } from '../io/udp/txpk';
import type { UplinkToken } from './uplink-token';

/**
 * The receive window a class A downlink goes out in (TTS `pkg/gatewayserver/io` ScheduleDown for
 * class A): RX1 when there is still time to hand it to the gateway before the window opens, else
 * RX2; the concentrator time is the uplink's plus the window's delay (dataplane-notes §1.3). The
 * frequency must lie in one of the gateway's frequency plan's sub-bands, whose limit is the EIRP;
 * the data rate must be one of the band's downlink rates.
 */

/** A downlink must reach the gateway this long before its window opens (the forwarder's own scheduling lead and the network's delay). */
export const SCHEDULE_MARGIN_MS = 250;

export interface PlannedDownlink {
  window: 'rx1' | 'rx2';
  /** Seconds after the uplink. */
  delay: number;
  /** RFC 3339 UTC time the gateway transmits at, when sent at an absolute (GPS) time (class B). */
  time?: string;
  frequency: string;
  data_rate: DataRate;
  eirp: number;
  /** Unix ms the gateway transmits at. */
  transmit_at_ms: number;
  /** The concentrator time (µs) to transmit at (class A: the uplink's plus the window's delay, wrapping at 2^32); unset: at `time`, or now. */
  timestamp?: number;
  /** The PHYPayload. */
  payload: Buffer;
  /**
   * The same as a Semtech UDP forwarder takes it (PULL_RESP `txpk`), rendered here because the
   * plans are checked in that form; another frontend translates the fields above.
   */
  txpk: Record<string, unknown>;
}

/** Reads a `ttn.lorawan.v3.DataRate` as the API carries it. */
export function asDataRate(value: unknown): DataRate | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { lora, fsk } = value as { lora?: { spreading_factor?: unknown; bandwidth?: unknown }; fsk?: { bit_rate?: unknown } };
  if (lora && Number.isInteger(lora.spreading_factor) && Number.isInteger(lora.bandwidth))
    return { lora: { spreading_factor: lora.spreading_factor as number, bandwidth: lora.bandwidth as number } };
  if (fsk && Number.isInteger(fsk.bit_rate)) return { fsk: { bit_rate: fsk.bit_rate as number } };
  return undefined;
}

/**
 * The RX2 fields of a class B or C request (class B: the ping slot's channel), checked against the
 * gateway's plan: a downlink data rate of the band, a frequency in one of the plan's sub-bands,
 * whose limit is the power.
 */
export function rx2Channel(request: TxRequest, plan: FrequencyPlan): { frequency: string; rate: DataRate; eirp: number } | StackError {
  if (request.rx2_frequency === undefined || request.rx2_data_rate === undefined) return ErrNoRxWindow.with();
  const rate = asDataRate(request.rx2_data_rate);
  if (!rate || dataRateIndexOf(plan.band_id, rate, true) === undefined) return ErrDataRate.with({ band_id: plan.band_id });
  const frequency = request.rx2_frequency;
  const eirp = downlinkEirp(plan, frequency);
  if (eirp === undefined) return ErrFrequencyNotAllowed.with({ frequency, frequency_plan_id: plan.id });
  return { frequency, rate, eirp };
}

/**
 * A class B/C downlink sent now (TTS: `imme` when the request names no time): a class C device
 * listens on its RX2 channel whenever it is not transmitting. The request's RX2 frequency and data
 * rate; the sub-band's limit as power.
 */
export function planClassCDownlink(payload: Buffer, request: TxRequest, plan: FrequencyPlan, now = Date.now(), antennaGain = 0): PlannedDownlink | StackError {
  const channel = rx2Channel(request, plan);
  if (isStackError(channel)) return channel;
  const { frequency, rate, eirp } = channel;
  return {
    window: 'rx2',
    delay: 0,
    frequency,
    data_rate: rate,
    eirp,
    transmit_at_ms: now,
    payload,
    txpk: toTxpk({ payload, frequency, data_rate: rate, eirp, antenna_gain: antennaGain }),
  };
}

export function planClassADownlink(
  payload: Buffer,
  request: TxRequest,
  token: UplinkToken,
  plan: FrequencyPlan,
  now = Date.now(),
  antennaGain = 0,
): PlannedDownlink | StackError {
  const rx1Delay = request.rx1_delay || 1;
  const windows = [
    { window: 'rx1' as const, delay: rx1Delay, frequency: request.rx1_frequency, rate: request.rx1_data_rate },
    { window: 'rx2' as const, delay: rx1Delay + 1, frequency: request.rx2_frequency, rate: request.rx2_data_rate },
  ].filter((w) => w.frequency !== undefined && w.rate !== undefined);
  if (windows.length === 0) return ErrNoRxWindow.with();
  const reachable = windows.find((w) => token.received_ms + w.delay * 1000 - now >= SCHEDULE_MARGIN_MS);
  if (!reachable) return ErrTooLate.with({ delay_ms: token.received_ms + windows[windows.length - 1].delay * 1000 - now, min_ms: SCHEDULE_MARGIN_MS });
  const rate = asDataRate(reachable.rate);
  if (!rate || dataRateIndexOf(plan.band_id, rate, true) === undefined) return ErrDataRate.with({ band_id: plan.band_id });
  const frequency = reachable.frequency as string;
  const eirp = downlinkEirp(plan, frequency);
  if (eirp === undefined) return ErrFrequencyNotAllowed.with({ frequency, frequency_plan_id: plan.id });
  const timestamp = classATimestamp(token.timestamp, reachable.delay);
  return {
    window: reachable.window,
    delay: reachable.delay,
    frequency,
    data_rate: rate,
    eirp,
    transmit_at_ms: token.received_ms + reachable.delay * 1000,
    timestamp,
    payload,
    txpk: toTxpk({ payload, frequency, data_rate: rate, eirp, antenna_gain: antennaGain, timestamp }),
  };
}

/** The concentrator time of a class A receive window: the uplink's `tmst` plus `delaySeconds`, wrapping at 2^32 µs. */
export function classATimestamp(uplinkTimestamp: number, delaySeconds: number): number {
  return (uplinkTimestamp + Math.round(delaySeconds * 1_000_000)) >>> 0;
}
