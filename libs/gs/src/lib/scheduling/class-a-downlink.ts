import type { TxRequest } from '@lorawan/api';
import { type DataRate, dataRateIndexOf, downlinkEirp, type FrequencyPlan } from '@lorawan/lorawan';
import { isStackError, type StackError } from '@lorawan/errors';
import { ErrDataRate, ErrFrequencyNotAllowed, ErrNoRxWindow, ErrTxSchedule } from '../errors';
import { toTxpk } from '../io/udp/txpk';
import { type GatewayScheduler, type ScheduledEmission, schedulePriorityOf } from './scheduler';
import type { UplinkToken } from './uplink-token';

/**
 * The receive window a class A downlink goes out in (TTS `pkg/gatewayserver/io` ScheduleDown for
 * class A): RX1 if the gateway's scheduler can book it there (in time for the path to the gateway,
 * free on its antenna, within its sub-band's duty cycle), else RX2; else it is refused with each
 * window's reason (`tx_schedule`), so the NS tries the next gateway. The concentrator time is the
 * uplink's plus the window's delay (dataplane-notes §1.3). The frequency must lie in one of the
 * gateway's frequency plan's sub-bands, whose limit is the EIRP; the data rate must be one of the
 * band's downlink rates.
 */

export interface PlannedDownlink {
  window: 'rx1' | 'rx2';
  /** The device class it was planned for (`planDownlink` sets it; a frontend that names it, Basics Station's `dC`, reads it). */
  device_class?: 'A' | 'B' | 'C';
  /** Seconds after the uplink (class A). */
  delay: number;
  /** RFC 3339 UTC time the gateway transmits at, when sent at an absolute (GPS) time (class B). */
  time?: string;
  frequency: string;
  data_rate: DataRate;
  eirp: number;
  /** Unix ms the gateway transmits at (estimated). */
  transmit_at_ms: number;
  /** The concentrator time (µs) to transmit at, wrapping at 2^32; unset: at `time`, or now. */
  timestamp?: number;
  /** The PHYPayload. */
  payload: Buffer;
  /** Its booking in the gateway's scheduler (taken back when the gateway refuses it). */
  emission: ScheduledEmission;
  /**
   * The same as a Semtech UDP forwarder takes it (PULL_RESP `txpk`), rendered here because the
   * plans are checked in that form; another frontend translates the fields above.
   */
  txpk: Record<string, unknown>;
}

/** A downlink channel: frequency, data rate, and the power its sub-band allows. */
interface Channel {
  frequency: string;
  rate: DataRate;
  eirp: number;
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
export function rx2Channel(request: TxRequest, plan: FrequencyPlan): Channel | StackError {
  return channel(request.rx2_frequency, request.rx2_data_rate, plan);
}

function channel(frequency: string | undefined, dataRate: unknown, plan: FrequencyPlan): Channel | StackError {
  if (frequency === undefined || dataRate === undefined) return ErrNoRxWindow.with();
  const rate = asDataRate(dataRate);
  if (!rate || dataRateIndexOf(plan.band_id, rate, true) === undefined) return ErrDataRate.with({ band_id: plan.band_id });
  const eirp = downlinkEirp(plan, frequency);
  if (eirp === undefined) return ErrFrequencyNotAllowed.with({ frequency, frequency_plan_id: plan.id });
  return { frequency, rate, eirp };
}

/**
 * A class C downlink (TTS `ScheduleAnytime`): a class C device listens on its RX2 channel whenever
 * it is not transmitting, so it goes out at the earliest moment the gateway's scheduler finds free
 * on the antenna and within the sub-band's duty cycle, never sooner than the scheduler's delay for
 * such downlinks. Timed by the concentrator's clock once an uplink anchored it (so it cannot collide
 * with what is booked); `imme` before that. The request's RX2 frequency and data rate; the
 * sub-band's limit as power.
 */
export function planClassCDownlink(
  payload: Buffer,
  request: TxRequest,
  plan: FrequencyPlan,
  scheduler: GatewayScheduler,
  antennaGain = 0,
): PlannedDownlink | StackError {
  const ch = rx2Channel(request, plan);
  if (isStackError(ch)) return ch;
  const emission = scheduler.scheduleAnytime(transmission(ch, payload, request, 0));
  if (isStackError(emission)) return emission;
  return planned('rx2', 0, ch, payload, emission, antennaGain);
}

export function planClassADownlink(
  payload: Buffer,
  request: TxRequest,
  token: UplinkToken,
  plan: FrequencyPlan,
  scheduler: GatewayScheduler,
  antennaGain = 0,
): PlannedDownlink | StackError {
  const rx1Delay = request.rx1_delay || 1;
  const windows = [
    { window: 'rx1' as const, delay: rx1Delay, frequency: request.rx1_frequency, rate: request.rx1_data_rate },
    { window: 'rx2' as const, delay: rx1Delay + 1, frequency: request.rx2_frequency, rate: request.rx2_data_rate },
  ].filter((w) => w.frequency !== undefined && w.rate !== undefined);
  if (windows.length === 0) return ErrNoRxWindow.with();
  // The uplink anchors the gateway's clock, if nothing has since (a GS that restarted, a token handed around).
  if (!scheduler.clock.synced) scheduler.sync(token.timestamp, token.received_ms * 1000);
  const refusals: Partial<Record<'rx1' | 'rx2', StackError>> = {};
  for (const w of windows) {
    const ch = channel(w.frequency, w.rate, plan);
    const emission = isStackError(ch)
      ? ch
      : scheduler.scheduleAt(transmission(ch, payload, request, token.antenna_index), { timestamp: classATimestamp(token.timestamp, w.delay) });
    if (isStackError(ch)) refusals[w.window] = ch;
    else if (isStackError(emission)) refusals[w.window] = emission;
    else return planned(w.window, w.delay, ch, payload, emission, antennaGain);
  }
  const last = refusals[windows[windows.length - 1].window] as StackError;
  if (windows.length === 1) return last;
  return ErrTxSchedule.with({ rx1: refusals.rx1?.toDetails().name ?? 'none', rx2: refusals.rx2?.toDetails().name ?? 'none' }, last);
}

/** What the scheduler books of a downlink on a channel. */
export function transmission(ch: Channel, payload: Buffer, request: TxRequest, antennaIndex: number) {
  return {
    frequency: Number(ch.frequency),
    data_rate: ch.rate,
    payload_size: payload.length,
    priority: schedulePriorityOf(request),
    antenna_index: antennaIndex,
  };
}

/** The plan of a booked downlink. */
export function planned(
  window: 'rx1' | 'rx2',
  delay: number,
  ch: Channel,
  payload: Buffer,
  emission: ScheduledEmission,
  antennaGain: number,
  time?: { time: string; gps_time_ms: number },
): PlannedDownlink {
  const { frequency, rate, eirp } = ch;
  const timestamp = time ? undefined : emission.timestamp;
  return {
    window,
    delay,
    ...(time ? { time: time.time } : {}),
    frequency,
    data_rate: rate,
    eirp,
    transmit_at_ms: Math.round(emission.server_us / 1000),
    ...(timestamp !== undefined ? { timestamp } : {}),
    payload,
    emission,
    txpk: toTxpk({ payload, frequency, data_rate: rate, eirp, antenna_gain: antennaGain, timestamp, gps_time_ms: time?.gps_time_ms }),
  };
}
/** The concentrator time of a class A receive window: the uplink's `tmst` plus `delaySeconds`, wrapping at 2^32 µs. */
export function classATimestamp(uplinkTimestamp: number, delaySeconds: number): number {
  return (uplinkTimestamp + Math.round(delaySeconds * 1_000_000)) >>> 0;
}
