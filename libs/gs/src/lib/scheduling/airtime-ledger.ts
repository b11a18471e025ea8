import { identity, lowerBound, upperBound } from './sorted';

/**
 * The airtime of a set of emissions inside any interval, in O(log n), whether or not they overlap.
 * The airtime up to a time t is Σ min(max(t − start, 0), duration) = Σ_{start ≤ t} (t − start) −
 * Σ_{end ≤ t} (t − end): the starts and the ends, each kept ascending with running sums, answer it
 * with two binary searches. A duty-cycle check asks it for many windows at once, so a linear scan
 * per window would cost the square of the emissions of a busy sub-band (a 10 % sub-band can hold
 * thousands an hour).
 *
 * Times are kept relative to a base that moves up as old emissions are forgotten, so the running
 * sums stay far below 2^53 even on a timeline of microseconds since the Unix epoch.
 */
export class AirtimeLedger {
  private base = 0;
  /** Ascending, relative to `base`. */
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];
  /** `startSums[i]` is the sum of `starts[0..i)`; likewise for the ends. */
  private startSums: number[] = [0];
  private endSums: number[] = [0];

  get size(): number {
    return this.starts.length;
  }

  add(startsUs: number, endsUs: number): void {
    if (this.starts.length === 0) this.base = startsUs;
    insert(this.starts, this.startSums, startsUs - this.base);
    insert(this.ends, this.endSums, endsUs - this.base);
  }

  /** Takes back an emission added earlier (one the gateway refused); false when none starts and ends so. */
  remove(startsUs: number, endsUs: number): boolean {
    const at = lowerBound(this.starts, startsUs - this.base, identity);
    const end = lowerBound(this.ends, endsUs - this.base, identity);
    if (this.starts[at] !== startsUs - this.base || this.ends[end] !== endsUs - this.base) return false;
    this.starts.splice(at, 1);
    this.ends.splice(end, 1);
    this.startSums = runningSums(this.starts);
    this.endSums = runningSums(this.ends);
    return true;
  }

  /** Airtime (µs) inside [fromUs, toUs]. Exact for `fromUs` at or after the latest `forget` cutoff. */
  within(fromUs: number, toUs: number): number {
    return this.upTo(toUs) - this.upTo(fromUs);
  }

  /** The start times (µs) in [fromUs, toUs], ascending. */
  startsBetween(fromUs: number, toUs: number): number[] {
    return this.between(this.starts, fromUs, toUs);
  }

  /** The end times (µs) in [fromUs, toUs], ascending. */
  endsBetween(fromUs: number, toUs: number): number[] {
    return this.between(this.ends, fromUs, toUs);
  }

  /** How many emissions ended at or before `cutoffUs` (what `forget` would forget). */
  endedBy(cutoffUs: number): number {
    return upperBound(this.ends, cutoffUs - this.base, identity);
  }

  /**
   * Forgets the emissions that ended at or before `cutoffUs`. Removing the m earliest ends and the
   * m earliest starts (all at or before the cutoff, since m emissions lie wholly before it) changes
   * the airtime up to any t ≥ cutoff by the same constant, so `within` stays exact from there on.
   * Answers how many it forgot.
   */
  forget(cutoffUs: number): number {
    const done = upperBound(this.ends, cutoffUs - this.base, identity);
    if (done === 0) return 0;
    this.starts.splice(0, done);
    this.ends.splice(0, done);
    const shift = cutoffUs - this.base;
    for (let i = 0; i < this.starts.length; i++) {
      this.starts[i] -= shift;
      this.ends[i] -= shift;
    }
    this.base = cutoffUs;
    this.startSums = runningSums(this.starts);
    this.endSums = runningSums(this.ends);
    return done;
  }

  private upTo(t: number): number {
    const r = t - this.base;
    const started = upperBound(this.starts, r, identity);
    const ended = upperBound(this.ends, r, identity);
    return started * r - this.startSums[started] - (ended * r - this.endSums[ended]);
  }

  private between(values: readonly number[], fromUs: number, toUs: number): number[] {
    const from = lowerBound(values, fromUs - this.base, identity);
    const to = upperBound(values, toUs - this.base, identity);
    return values.slice(from, to).map((v) => v + this.base);
  }
}

function insert(values: number[], sums: number[], value: number): void {
  const at = upperBound(values, value, identity);
  values.splice(at, 0, value);
  sums.splice(at + 1, 0, 0);
  for (let i = at; i < values.length; i++) sums[i + 1] = sums[i] + values[i];
}

function runningSums(values: readonly number[]): number[] {
  const sums = [0];
  for (const v of values) sums.push(sums[sums.length - 1] + v);
  return sums;
}
