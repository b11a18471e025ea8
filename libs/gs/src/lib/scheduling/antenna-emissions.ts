import { type StackError } from '@lorawan/errors';
import { ErrConflict } from '../errors';
import { type Emission, emissionEndsUs, freeAfterUs, overlapsWithOffAir, type TimeOffAir, resolveTimeOffAir } from './emission';
import { lowerBound, upperBound } from './sorted';

/**
 * The emissions of one gateway radio (TTS `Scheduler.emissions`): a radio transmits one frame at a
 * time and needs its time off air after each, so a new emission may not overlap a scheduled one,
 * either taken with its time off air (a real concentrator refuses it: the packet forwarder's JIT
 * queue answers `COLLISION_PACKET`). A building block of the per-gateway downlink scheduler; the
 * scheduler checks an emission here and in its sub-band's duty cycle before it records it in both.
 *
 * `clock` gives the current time (µs) on the emissions' timeline. Emissions after which the radio
 * is free by then are forgotten as the clock moves: new emissions start in the future (a scheduler
 * refuses one that is too late), so they cannot overlap those. What remains cannot overlap itself
 * either, so the memory is bounded by the schedule's horizon divided by the queue delay.
 */
export class AntennaEmissions {
  /** Ascending by start. */
  private readonly emissions: Emission[] = [];
  /** The longest duration plus time off air recorded: how far back from a time an emission may still reach. */
  private longestSpanUs = 0;
  readonly timeOffAir: TimeOffAir;

  constructor(
    private readonly clock: () => number,
    setting: Partial<TimeOffAir> = {},
  ) {
    this.timeOffAir = resolveTimeOffAir(setting);
  }

  get size(): number {
    return this.emissions.length;
  }

  /** The recorded emission `em` would overlap, if any (the earliest such). */
  conflictWith(em: Emission): Emission | undefined {
    this.forget();
    const ends = freeAfterUs(em, this.timeOffAir);
    for (let i = upperBound(this.emissions, em.starts_us - this.longestSpanUs, startOf); i < this.emissions.length; i++) {
      const other = this.emissions[i];
      if (other.starts_us >= ends) break;
      if (overlapsWithOffAir(em, other, this.timeOffAir)) return other;
    }
    return undefined;
  }

  /** Refuses an emission that overlaps a recorded one with ErrConflict (TTS `conflict`). */
  check(em: Emission): StackError | undefined {
    const other = this.conflictWith(em);
    return other ? ErrConflict.with({ conflict_starts_us: other.starts_us, conflict_ends_us: emissionEndsUs(other) }) : undefined;
  }

  /** Records an emission the scheduler accepted (it checks first: recording does not). */
  record(em: Emission): void {
    this.forget();
    this.emissions.splice(upperBound(this.emissions, em.starts_us, startOf), 0, em);
    this.longestSpanUs = Math.max(this.longestSpanUs, freeAfterUs(em, this.timeOffAir) - em.starts_us);
  }

  /** Forgets a recorded emission (the gateway refused it: its radio will not be on the air then); false when it is not recorded. */
  remove(em: Emission): boolean {
    for (let i = lowerBound(this.emissions, em.starts_us, startOf); i < this.emissions.length && this.emissions[i].starts_us === em.starts_us; i++)
      if (this.emissions[i].duration_us === em.duration_us) {
        this.emissions.splice(i, 1);
        return true;
      }
    return false;
  }

  /**
   * The earliest start at or after `fromUs` at which an emission of `durationUs` overlaps none
   * recorded (class C and immediate downlinks, TTS `ScheduleAnytime`'s search between emissions):
   * each time it would overlap one, it moves to when the radio is free after that one.
   */
  earliestStart(fromUs: number, durationUs: number): number {
    let starts = fromUs;
    for (let other = this.conflictWith({ starts_us: starts, duration_us: durationUs }); other;) {
      starts = freeAfterUs(other, this.timeOffAir);
      other = this.conflictWith({ starts_us: starts, duration_us: durationUs });
    }
    return starts;
  }

  private forget(): void {
    const now = this.clock();
    let done = 0;
    // The radio is free after these; ordered by start, a later one may still be on the air, so stop there.
    while (done < this.emissions.length && freeAfterUs(this.emissions[done], this.timeOffAir) <= now) done++;
    if (done > 0) this.emissions.splice(0, done);
  }
}

const startOf = (em: Emission) => em.starts_us;
