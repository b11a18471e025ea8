import { type StackError } from '@lorawan/errors';
import type { Hz } from '@lorawan/lorawan';
import { ErrSubBandNotFound } from '../errors';
import { type Emission } from './emission';
import { type DutyCycleOptions, type DutyCycleSubBandLimits, type SchedulePriority, SubBandDutyCycle } from './sub-band';

/** A sub-band's line in a gateway's connection stats (TTS `GatewayConnectionStats.SubBand`). */
export interface SubBandStats {
  min_frequency: Hz;
  max_frequency: Hz;
  /** The duty cycle (1: none). */
  downlink_utilization_limit: number;
  /** The fraction of the last window the sub-band was on the air. */
  downlink_utilization: number;
}

/**
 * The duty cycle of every sub-band of a gateway's frequency plans (TTS NewScheduler): each
 * emission counts in the sub-band its frequency lies in, the first listed where two share a bound;
 * a frequency in none is refused (TTS `sub_band_not_found`). Plans of one gateway may repeat a
 * sub-band, which is then counted once; two that overlap otherwise cannot both hold (TTS refuses
 * such plans). A gateway that does not enforce duty cycle (`enforce_duty_cycle` off) gets one
 * sub-band without limit over every frequency, still counting airtime for its stats.
 */
export class SubBands {
  readonly sub_bands: readonly SubBandDutyCycle[];

  constructor(limits: readonly DutyCycleSubBandLimits[], clock: () => number, options: DutyCycleOptions & { enforce_duty_cycle?: boolean } = {}) {
    if (options.enforce_duty_cycle === false) {
      this.sub_bands = [new SubBandDutyCycle({ min_frequency: '0', max_frequency: String(Number.MAX_SAFE_INTEGER), duty_cycle: 1 }, clock, options)];
      return;
    }
    const subBands: SubBandDutyCycle[] = [];
    for (const limit of limits) {
      const subBand = new SubBandDutyCycle(limit, clock, options);
      const same = subBands.find((other) => other.min_frequency === subBand.min_frequency && other.max_frequency === subBand.max_frequency);
      if (same) {
        if (same.duty_cycle !== subBand.duty_cycle)
          throw new RangeError(
            `sub-band ${subBand.min_frequency}–${subBand.max_frequency} Hz is listed with duty cycles ${same.duty_cycle} and ${subBand.duty_cycle}`,
          );
        continue;
      }
      const overlapping = subBands.find((other) => other.min_frequency < subBand.max_frequency && subBand.min_frequency < other.max_frequency);
      if (overlapping)
        throw new RangeError(
          `sub-bands ${overlapping.min_frequency}–${overlapping.max_frequency} Hz and ${subBand.min_frequency}–${subBand.max_frequency} Hz overlap`,
        );
      subBands.push(subBand);
    }
    this.sub_bands = subBands;
  }

  /** The sub-band a frequency (Hz) counts in. */
  find(frequency: Hz | number): SubBandDutyCycle | undefined {
    return this.sub_bands.find((subBand) => subBand.comprises(frequency));
  }

  /** Refuses an emission on a frequency in no sub-band (ErrSubBandNotFound), or over its sub-band's duty cycle for the priority (ErrDutyCycle). */
  check(frequency: Hz | number, em: Emission, priority: SchedulePriority): StackError | undefined {
    const subBand = this.find(frequency);
    if (!subBand) return ErrSubBandNotFound.with({ frequency: String(frequency) });
    return subBand.check(em, priority);
  }

  /** Records an accepted emission in its sub-band (one on a frequency in none was refused by `check`, and is not counted). */
  record(frequency: Hz | number, em: Emission): void {
    this.find(frequency)?.record(em);
  }

  /** Forgets a recorded emission (the gateway refused it). */
  remove(frequency: Hz | number, em: Emission): void {
    this.find(frequency)?.remove(em);
  }

  stats(): SubBandStats[] {
    return this.sub_bands.map((subBand) => ({
      min_frequency: String(subBand.min_frequency),
      max_frequency: String(subBand.max_frequency),
      downlink_utilization_limit: subBand.duty_cycle,
      downlink_utilization: subBand.utilization(),
    }));
  }
}
