import { isStackError, type StackError } from '@lorawan/errors';
import { type DataRate, type FrequencyPlan, timeOnAirUs } from '@lorawan/lorawan';
import { ErrConflict, ErrDwellTime, ErrTooLate } from '../errors';
import { AntennaEmissions } from './antenna-emissions';
import { ConcentratorClock } from './concentrator-clock';
import { type Emission, QUEUE_DELAY_US } from './emission';
import { RoundTripTimes } from './round-trip-times';
import { type DutyCycleOptions, type SchedulePriority, schedulePriority } from './sub-band';
import { SubBands, type SubBandStats } from './sub-bands';

/**
 * The downlink scheduler of one gateway connection (TTS `scheduling.Scheduler`), whatever protocol
 * the gateway speaks: it books every transmission of the gateway's radios and refuses one that
 *
 * - stays on the air longer than the plan's dwell time (`dwell_time`, 400 ms where a plan limits downlinks);
 * - would start too soon to reach the gateway in time (`too_late`): the gateway must have it half a
 *   round trip after it is sent, plus the concentrator's queue delay (TTS: SCHEDULE_TIME_SHORT until
 *   MIN_RTT_COUNT round trips are known, then the 90th percentile's half plus QUEUE_DELAY_US);
 * - overlaps another emission of the same antenna, time off air included (`conflict`; at least
 *   RADIO_GAP_US between two, as a Semtech concentrator's JIT queue needs);
 * - takes some window of its sub-band over the duty cycle its priority may use (`duty_cycle`), or
 *   lies in no sub-band of the gateway's plans (`sub_band_not_found`).
 *
 * Times are on the concentrator's unwrapped timeline (`ConcentratorClock`), which every uplink
 * re-anchors (`sync`). `scheduleAt` books a transmission at a given time (class A's receive
 * windows, class B's ping slots); `scheduleAnytime` at the earliest moment from a time on that
 * fits (class C). A transmission the gateway refuses afterwards (its TX acknowledgment) is taken
 * off the books with `cancel`. Each check is a few binary searches in the antenna's and the
 * sub-band's ledgers.
 */

/** Until enough round trips are known, a downlink must reach the gateway this long before it goes out (TTS ScheduleTimeShort). */
export const SCHEDULE_TIME_SHORT_US = 100_000 + QUEUE_DELAY_US;
/** A class C downlink goes out at least this long after now, with no round trips known (TTS ScheduleTimeLong). */
export const SCHEDULE_TIME_LONG_US = 500_000 + QUEUE_DELAY_US;
/** Round trips needed before they replace SCHEDULE_TIME_SHORT (TTS scheduleMinRTTCount). */
export const MIN_RTT_COUNT = 5;
/** The percentile of round trips the lead is computed from (TTS scheduleLateRTTPercentile). */
export const LATE_RTT_PERCENTILE = 90;
/**
 * The least gap (µs) between two transmissions of one radio: the Semtech packet forwarder's JIT
 * queue refuses (`COLLISION_PACKET`) a packet that starts within TX_START_DELAY (1.5 ms) +
 * TX_JIT_DELAY (30 ms) + TX_MARGIN_DELAY (1 ms) of the end of another (`jitqueue.c`
 * jit_collision_test), a little more than TTS's QueueDelay (30 ms), so back-to-back class C
 * downlinks at TTS's gap would be refused.
 */
export const RADIO_GAP_US = 33_000;
/** The dwell time (µs) of plans that limit downlinks' time on air (FCC, ARIB, AS923 with dwell time). */
export const DWELL_TIME_US = 400_000;

/** What is transmitted: on which frequency (Hz) and antenna, at what data rate, how many bytes, with what priority. */
export interface Transmission {
  frequency: number;
  data_rate: DataRate;
  coding_rate?: string;
  payload_size: number;
  priority: SchedulePriority;
  antenna_index: number;
}

/** A booked transmission: its emission on the timeline, and when that is as the gateway counts. */
export interface ScheduledEmission extends Emission {
  readonly frequency: number;
  readonly antenna_index: number;
  /** The concentrator timestamp (32 bits) it starts at; undefined while no uplink anchored the clock (send it `imme`). */
  readonly timestamp?: number;
  /** µs from now until it starts. */
  readonly delay_us: number;
  /** The server time (µs) it starts at, as the clock estimates it. */
  readonly server_us: number;
}

export interface SchedulerOptions {
  /** Server time in µs (default: the system's). */
  now?: () => number;
  /** How long after now a class C downlink goes out at the soonest (default SCHEDULE_TIME_LONG_US, TTS `scheduleAnytimeDelay`). */
  anytime_delay_us?: number;
  /** Default true; off, airtime is still counted (connection stats) but limits nothing. */
  enforce_duty_cycle?: boolean;
  duty_cycle?: DutyCycleOptions;
  rtts?: RoundTripTimes;
}

export class GatewayScheduler {
  readonly clock = new ConcentratorClock();
  readonly rtts: RoundTripTimes;
  private readonly antennas = new Map<number, AntennaEmissions>();
  private readonly subBands: SubBands;
  private readonly dwellTime: boolean;
  private readonly serverNow: () => number;
  private readonly anytimeDelayUs: number;

  constructor(plans: readonly FrequencyPlan[], options: SchedulerOptions = {}) {
    this.serverNow = options.now ?? (() => Date.now() * 1000);
    this.rtts = options.rtts ?? new RoundTripTimes();
    this.anytimeDelayUs = options.anytime_delay_us ?? SCHEDULE_TIME_LONG_US;
    this.subBands = new SubBands(
      plans.flatMap((plan) => plan.sub_bands),
      () => this.now(),
      { ...options.duty_cycle, enforce_duty_cycle: options.enforce_duty_cycle },
    );
    this.dwellTime = plans.some((plan) => plan.dwell_time?.downlinks === true);
  }

  /** The current time on the timeline (µs). */
  now(): number {
    return this.clock.fromServerTime(this.serverNow());
  }

  /** An uplink received at concentrator time `timestamp` and server time `serverUs` (µs) anchors the clock. */
  sync(timestamp: number, serverUs: number): void {
    this.clock.sync(timestamp, serverUs);
    // A concentrator whose counter jumped has restarted with an empty queue, and what was booked
    // cannot be placed against its new counter: the radios' books start again (the duty cycle's
    // airtime stays counted).
    if (this.clock.restarted) this.antennas.clear();
  }

  /** The least time (µs) between now and a transmission the gateway is handed now (see the class comment). */
  leadUs(): number {
    const stats = this.rtts.stats(LATE_RTT_PERCENTILE, this.serverNow() / 1000);
    return stats && stats.count >= MIN_RTT_COUNT ? Math.round((stats.percentile * 1000) / 2) + QUEUE_DELAY_US : SCHEDULE_TIME_SHORT_US;
  }

  /** Books a transmission at a concentrator timestamp (class A) or a server time in µs (class B); the reason when it cannot be. */
  scheduleAt(tx: Transmission, at: { timestamp: number } | { server_us: number }): ScheduledEmission | StackError {
    const serverNow = this.serverNow();
    const starts = 'timestamp' in at ? this.clock.fromTimestamp(at.timestamp, serverNow) : this.clock.fromServerTime(at.server_us);
    const now = this.clock.fromServerTime(serverNow);
    // A timestamp with no uplink to anchor it: nothing to compare it with but the gateway's own clock.
    if (starts === undefined) return ErrTooLate.with({ delay_ms: 'unknown', min_ms: this.leadUs() / 1000 });
    const lead = this.leadUs();
    if (starts - now < lead) return ErrTooLate.with({ delay_ms: Math.round((starts - now) / 1000), min_ms: lead / 1000 });
    const em = this.emission(tx, starts);
    if (isStackError(em)) return em;
    const refusal = this.antenna(tx.antenna_index).check(em) ?? this.subBands.check(tx.frequency, em, tx.priority);
    if (refusal) return refusal;
    return this.book(tx, em, now);
  }

  /**
   * Books a transmission at the earliest moment from `fromServerUs` (default: now plus the lead)
   * that is free on its antenna and within its sub-band's duty cycle, at most `withinUs` later
   * (default: one duty-cycle window); the reason when there is none.
   */
  scheduleAnytime(tx: Transmission, options: { from_server_us?: number; within_us?: number } = {}): ScheduledEmission | StackError {
    const now = this.now();
    // Untimed (`imme`, no uplink anchored the clock yet), it goes out as soon as the gateway has it.
    const lead = this.clock.synced ? Math.max(this.leadUs(), this.anytimeDelayUs) : 0;
    const from = Math.max(now + lead, options.from_server_us === undefined ? 0 : this.clock.fromServerTime(options.from_server_us));
    const em = this.emission(tx, from);
    if (isStackError(em)) return em;
    const antenna = this.antenna(tx.antenna_index);
    const subBand = this.subBands.find(tx.frequency);
    if (!subBand) return this.subBands.check(tx.frequency, em, tx.priority) as StackError;
    const limit = from + (options.within_us ?? subBand.window_us);
    const starts = subBand.earliestStart(from, em.duration_us, tx.priority, (t) => antenna.earliestStart(t, em.duration_us), limit);
    if (starts === undefined) {
      // Moving past the antenna's emissions always ends somewhere: what stopped the search is the duty cycle, or the limit.
      const free = { starts_us: antenna.earliestStart(from, em.duration_us), duration_us: em.duration_us };
      return subBand.check(free, tx.priority) ?? ErrConflict.with({ conflict_starts_us: from, conflict_ends_us: free.starts_us });
    }
    return this.book(tx, { starts_us: starts, duration_us: em.duration_us }, now);
  }

  /** Takes a booked transmission off the books (the gateway refused it). */
  cancel(em: ScheduledEmission): void {
    this.antennas.get(em.antenna_index)?.remove(em);
    this.subBands.remove(em.frequency, em);
  }

  /** Each sub-band's limit and the share of the last window it was on the air (connection stats, metrics). */
  subBandStats(): SubBandStats[] {
    return this.subBands.stats();
  }

  private emission(tx: Transmission, starts: number): Emission | StackError {
    const duration = timeOnAirUs(tx.payload_size, tx.data_rate, { direction: 'downlink', coding_rate: tx.coding_rate });
    if (this.dwellTime && duration > DWELL_TIME_US) return ErrDwellTime.with({ time_on_air_ms: (duration / 1000).toFixed(1), max_ms: DWELL_TIME_US / 1000 });
    return { starts_us: starts, duration_us: duration };
  }

  private book(tx: Transmission, em: Emission, now: number): ScheduledEmission {
    const timestamp = this.clock.toTimestamp(em.starts_us);
    const booked: ScheduledEmission = {
      starts_us: em.starts_us,
      duration_us: em.duration_us,
      frequency: tx.frequency,
      antenna_index: tx.antenna_index,
      delay_us: em.starts_us - now,
      server_us: this.serverNow() + (em.starts_us - now),
      ...(timestamp !== undefined ? { timestamp } : {}),
    };
    this.antenna(tx.antenna_index).record(booked);
    this.subBands.record(tx.frequency, booked);
    return booked;
  }

  private antenna(index: number): AntennaEmissions {
    let antenna = this.antennas.get(index);
    if (!antenna) this.antennas.set(index, (antenna = new AntennaEmissions(() => this.now(), { duration_us: RADIO_GAP_US })));
    return antenna;
  }
}

/** A request's priority (TTS `TxRequest.priority`), NORMAL when it names none. */
export function schedulePriorityOf(request: { priority?: unknown }): SchedulePriority {
  return schedulePriority(request.priority);
}
