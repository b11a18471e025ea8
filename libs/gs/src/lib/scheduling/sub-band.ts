import { TxSchedulePriority } from '@lorawan/api';
import { type StackError } from '@lorawan/errors';
import type { Hz, SubBand } from '@lorawan/lorawan';
import { ErrDutyCycle } from '../errors';
import { AirtimeLedger } from './airtime-ledger';
import { airtimeWithin, type Emission, emissionEndsUs } from './emission';
import { upperBound } from './sorted';

/**
 * Duty cycle of one regulatory sub-band of a gateway (TTS `scheduling.SubBand`): the airtime of
 * its emissions in any window of DUTY_CYCLE_WINDOW_US may not exceed the sub-band's duty cycle (in
 * EU868 1 % of the time in most sub-bands, 10 % in 869.4–869.65 MHz, 0.1 % in others). A downlink of
 * lower priority may use only part of it (TTS `DefaultDutyCycleCeilings`), so that the rest stays
 * for join-accepts and urgent MAC commands. A building block of the per-gateway downlink scheduler.
 *
 * TTS checks two windows: the one that ends with the new emission and the one that starts with it.
 * With emissions scheduled on both sides of the new one (an RX2 downlink after a later-checked RX1,
 * class B ping slots), a window in between can hold more than either, so every window that holds
 * part of the new emission is checked here: the airtime in a sliding window only peaks where its
 * start passes the start of an emission or its end passes the end of one, so those windows suffice.
 *
 * `clock` gives the current time (µs) on the emissions' timeline; emissions that ended a window
 * before it are forgotten, so the memory is bounded by what a window can hold. Emissions are
 * checked from the current time on (a scheduler refuses earlier ones as too late): a window that
 * begins more than one window before the clock is not remembered in full.
 */

/** The sliding window duty cycle is enforced in (TTS `DutyCycleWindow`): a longer one allows bursts, a shorter one spreads airtime. */
export const DUTY_CYCLE_WINDOW_US = 3_600_000_000;

/** A downlink's `TxSchedulePriority` by name. */
export type SchedulePriority = (typeof TxSchedulePriority.names)[number];

/** The share of a sub-band's duty cycle each priority may use (TTS `DefaultDutyCycleCeilings`). */
export const DUTY_CYCLE_CEILINGS: Readonly<Record<SchedulePriority, number>> = Object.freeze({
  LOWEST: 0.4,
  LOW: 0.5,
  BELOW_NORMAL: 0.6,
  NORMAL: 0.7,
  ABOVE_NORMAL: 0.8,
  HIGH: 0.9,
  HIGHEST: 1,
});

/** A request's `priority` (name or number); NORMAL when it names none, as the Network Server's default. */
export function schedulePriority(value: unknown): SchedulePriority {
  return TxSchedulePriority.parse(value) ?? 'NORMAL';
}

export interface DutyCycleOptions {
  /** Default DUTY_CYCLE_WINDOW_US. */
  readonly window_us?: number;
  /** Default DUTY_CYCLE_CEILINGS; a priority left out may use the whole duty cycle (as in TTS). */
  readonly ceilings?: Readonly<Partial<Record<SchedulePriority, number>>>;
}

export type DutyCycleSubBandLimits = Pick<SubBand, 'min_frequency' | 'max_frequency' | 'duty_cycle'>;

export class SubBandDutyCycle {
  readonly min_frequency: number;
  readonly max_frequency: number;
  /** Fraction of the window; 1 is no limit (a sub-band without one, e.g. in US915, says 1 or 0, as in TTS). */
  readonly duty_cycle: number;
  readonly window_us: number;
  private readonly ceilings: Readonly<Partial<Record<SchedulePriority, number>>>;
  private readonly airtime = new AirtimeLedger();
  /** The same emissions, ascending by start: which emission covers a time. */
  private emissions: Emission[] = [];
  private longestUs = 0;

  constructor(
    limits: DutyCycleSubBandLimits,
    private readonly clock: () => number,
    options: DutyCycleOptions = {},
  ) {
    this.min_frequency = Number(limits.min_frequency);
    this.max_frequency = Number(limits.max_frequency);
    this.duty_cycle = limits.duty_cycle > 0 && limits.duty_cycle < 1 ? limits.duty_cycle : 1;
    this.window_us = options.window_us ?? DUTY_CYCLE_WINDOW_US;
    if (!Number.isInteger(this.window_us) || this.window_us <= 0)
      throw new RangeError(`duty-cycle window must be a positive number of µs, got ${this.window_us}`);
    this.ceilings = options.ceilings ?? DUTY_CYCLE_CEILINGS;
  }

  /** Whether a frequency (Hz) lies in the sub-band, bounds included (TTS `Comprises`). */
  comprises(frequency: Hz | number): boolean {
    const f = Number(frequency);
    return f >= this.min_frequency && f <= this.max_frequency;
  }

  /** The emissions remembered (those that ended less than a window ago, and those to come). */
  get size(): number {
    return this.emissions.length - this.airtime.endedBy(this.clock() - this.window_us);
  }

  /**
   * The fraction of the last window the sub-band was on the air (TTS `DutyCycleUtilization`; the
   * `downlink_utilization` of a gateway's connection stats, next to the duty cycle as its limit).
   */
  utilization(): number {
    const now = this.forget();
    return this.airtime.within(now - this.window_us, now) / this.window_us;
  }

  /** The airtime (µs) a priority may use in any window: the window × the duty cycle × the priority's ceiling. */
  budgetUs(priority: SchedulePriority): number {
    return Math.round(this.window_us * this.duty_cycle * (this.ceilings[priority] ?? 1));
  }

  /** Refuses an emission that would take some window over the priority's budget, with ErrDutyCycle (TTS `duty_cycle`). */
  check(em: Emission, priority: SchedulePriority): StackError | undefined {
    if (this.duty_cycle >= 1) return undefined;
    this.forget();
    const window = this.window_us;
    const budget = this.budgetUs(priority);
    const worst = this.busiestWindowWith(em, budget);
    if (worst <= budget) return undefined;
    return ErrDutyCycle.with({
      used: ((worst / window) * 100).toFixed(1),
      usable: ((budget / window) * 100).toFixed(1),
      priority,
      min_frequency: String(this.min_frequency),
      max_frequency: String(this.max_frequency),
    });
  }

  /** Records an emission the scheduler accepted (it checks first: recording does not). */
  record(em: Emission): void {
    this.forget();
    this.airtime.add(em.starts_us, emissionEndsUs(em));
    this.emissions.splice(upperBound(this.emissions, em.starts_us, startOf), 0, em);
    this.longestUs = Math.max(this.longestUs, em.duration_us);
  }

  /** Forgets a recorded emission (the gateway refused it). */
  remove(em: Emission): void {
    const i = this.emissions.indexOf(em);
    if (i < 0) return;
    this.emissions.splice(i, 1);
    this.airtime.remove(em.starts_us, emissionEndsUs(em));
  }

  /**
   * The earliest start at or after `fromUs` at which the airtime of `durationUs` there would leave
   * every window within the priority's budget, as far as the emissions recorded now tell: the
   * windows that end with the new emission lose airtime as recorded emissions end a window before
   * it, so the candidates are `fromUs` and those moments (TTS `SubBand.ScheduleAnytime` waits for
   * the same). A saturated sub-band may need many of them to pass, so they are searched galloping
   * (1, 2, 4, … ends further) and then halving back between the last refused and the first
   * accepted: O(log n) checks. `conflictFree` moves a candidate past the radio's other emissions;
   * `limitUs` bounds the search. Undefined when no candidate up to `limitUs` fits.
   */
  earliestStart(
    fromUs: number,
    durationUs: number,
    priority: SchedulePriority,
    conflictFree: (startsUs: number) => number,
    limitUs: number,
  ): number | undefined {
    const first = conflictFree(fromUs);
    const fits = (starts: number) => starts <= limitUs && !this.check({ starts_us: starts, duration_us: durationUs }, priority);
    if (fits(first)) return first;
    // Candidate k: once the k-th end (ascending, from those still in the window ending with `first`) has left that window.
    const ends = this.airtime.endsBetween(first + durationUs - this.window_us, limitUs + durationUs);
    const candidate = (k: number) => conflictFree(Math.max(first, ends[k] + this.window_us - durationUs));
    let refused = -1;
    let step = 1;
    let accepted: number | undefined;
    for (let k = 0; k < ends.length; k = refused + step, step *= 2) {
      if (candidate(k) > limitUs) break;
      if (fits(candidate(k))) {
        accepted = k;
        break;
      }
      refused = k;
    }
    let hi: number;
    if (accepted !== undefined) hi = accepted;
    else {
      const last = ends.length - 1;
      if (last <= refused || !fits(candidate(last))) return undefined;
      hi = last;
    }
    while (hi - refused > 1) {
      const mid: number = (refused + hi) >>> 1;
      if (fits(candidate(mid))) hi = mid;
      else refused = mid;
    }
    return candidate(hi);
  }

  /**
   * The airtime of the busiest window that holds part of `em`, with it; it may stop early at a
   * window over `budget`. A window [x, x + W] gains airtime while its end runs through an emission
   * and loses it while its start does, so it peaks where its start reaches the start of an emission
   * while its end is inside one, or where its end reaches the end of one; else at the limits.
   */
  private busiestWindowWith(em: Emission, budget: number): number {
    const window = this.window_us;
    const starts = em.starts_us;
    const ends = emissionEndsUs(em);
    let worst = 0;
    const consider = (from: number) => {
      if (from < starts - window || from > ends) return;
      worst = Math.max(worst, this.airtime.within(from, from + window) + airtimeWithin(em, from, from + window));
    };
    // TTS's two windows (ending with the new emission, starting with it), and the limits: the
    // windows that hold only the new emission's first or last microsecond.
    consider(ends - window);
    consider(starts);
    consider(starts - window);
    consider(ends);
    if (worst > budget) return worst;
    // Windows that end with the end of another emission.
    for (const end of this.airtime.endsBetween(starts, ends + window)) consider(end - window);
    // Windows that start with the start of another emission while their end is inside one (the new
    // one or another that reaches into [starts, ends + W]).
    const covering = [em, ...this.emissionsTouching(starts, ends + window)];
    for (const cover of covering)
      for (const start of this.airtime.startsBetween(Math.max(cover.starts_us, starts) - window, Math.min(emissionEndsUs(cover), ends + window) - window))
        consider(start);
    return worst;
  }

  /** The remembered emissions that share a moment with [fromUs, toUs]. */
  private emissionsTouching(fromUs: number, toUs: number): Emission[] {
    const touching: Emission[] = [];
    const last = upperBound(this.emissions, toUs, startOf);
    for (let i = last - 1; i >= 0 && this.emissions[i].starts_us + this.longestUs >= fromUs; i--)
      if (emissionEndsUs(this.emissions[i]) >= fromUs) touching.push(this.emissions[i]);
    return touching;
  }

  /**
   * Forgets the emissions that ended a window before the clock, once they are an eighth of those
   * remembered (forgetting rebuilds the ledger's sums: done for each one that leaves, it would cost
   * a busy sub-band a pass over its thousands of emissions per downlink; what is kept longer
   * changes no answer); answers the clock.
   */
  private forget(): number {
    const now = this.clock();
    const cutoff = now - this.window_us;
    const ended = this.airtime.endedBy(cutoff);
    if (ended > 0 && ended * 8 >= this.emissions.length) {
      this.airtime.forget(cutoff);
      this.emissions = this.emissions.filter((em) => emissionEndsUs(em) > cutoff);
    }
    return now;
  }
}

const startOf = (em: Emission) => em.starts_us;
