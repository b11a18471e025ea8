/** The window runaways are counted in. */
export const RUNAWAY_WINDOW_MS = 60_000;

/**
 * How many runs of an application's scripts may run into a limit (time, memory, stack, output; a
 * worker lost) per minute: at most `perMinute` in any 60 s, after which that application's scripts
 * are suspended until the oldest of them is a minute old. An application whose formatter runs away
 * on every uplink thus costs the AS a few runs a minute instead of a CPU core; its calls in the
 * meantime fail at once. Applications whose scripts stay within the limits are never counted.
 */
export class RunawayBudget {
  /** The times of each application's latest runaways, oldest first (at most `perMinute`). */
  private readonly runaways = new Map<string, number[]>();

  /** `perMinute` 0: no budget. */
  constructor(private readonly perMinute: number) {}

  /** Until when `application`'s scripts are suspended (ms since the epoch), or undefined when they may run. */
  suspendedUntil(application: string, now: number): number | undefined {
    const times = this.runaways.get(application);
    if (!times || this.perMinute === 0) return undefined;
    if (now - times[times.length - 1] >= RUNAWAY_WINDOW_MS) {
      this.runaways.delete(application);
      return undefined;
    }
    const until = times[0] + RUNAWAY_WINDOW_MS;
    return times.length >= this.perMinute && now < until ? until : undefined;
  }

  /** A run of `application` ran into a limit at `now`. */
  record(application: string, now: number): void {
    if (this.perMinute === 0) return;
    const times = (this.runaways.get(application) ?? []).filter((t) => now - t < RUNAWAY_WINDOW_MS);
    times.push(now);
    if (times.length > this.perMinute) times.splice(0, times.length - this.perMinute);
    this.runaways.set(application, times);
    this.forgetIdle(now);
  }

  /** Drops the applications whose latest runaway is over a minute old (the map holds only recent runaways). */
  private forgetIdle(now: number): void {
    if (this.runaways.size < 1024) return;
    for (const [application, times] of this.runaways) if (now - times[times.length - 1] >= RUNAWAY_WINDOW_MS) this.runaways.delete(application);
  }
}
