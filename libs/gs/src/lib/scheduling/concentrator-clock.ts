/**
 * A gateway's concentrator clock as the scheduler sees it (TTS `scheduling.RolloverClock`): the
 * Semtech concentrator counts microseconds in 32 bits (`tmst`), which wraps every 71.6 minutes, so
 * each timestamp is unwrapped onto one monotonic timeline, and the server's clock is mapped onto
 * it by the latest uplink: the concentrator time it was received at against the server time it
 * arrived at (the forwarder's and the network's latency make the estimate run a few milliseconds
 * behind the concentrator; the scheduler's margin covers it).
 *
 * Before the first uplink the timeline is the server's time in microseconds, so a downlink that
 * cannot be timed (a class C frame to a gateway that has sent no uplink yet: `imme`) is still
 * booked on it; the first uplink anchors the timeline where the server's time had it, so what was
 * booked stays in place. Unwrapping takes the number of rollovers that best matches the server
 * time elapsed since the previous anchor, so a gateway silent for longer than a rollover is
 * unwrapped right; a timestamp that matches none within RESET_TOLERANCE_US (the concentrator
 * restarted, or the forwarder did) re-anchors the timeline at the server's estimate, so bookings
 * made before stay where the server's clock put them.
 */

const ROLLOVER_US = 2 ** 32;
/**
 * How far an uplink's timestamp may stray from the server's estimate before the clock re-anchors
 * (the concentrator or its forwarder restarted, or the timestamps are not a concentrator's): the
 * network's jitter between two uplinks stays well below it, and drift is parts per million.
 */
export const RESET_TOLERANCE_US = 500_000;

export class ConcentratorClock {
  /** The timeline (µs) at the anchor. */
  private absolute = 0;
  /** The server time (µs) at the anchor. */
  private server = 0;
  /** The 32-bit timestamp at the anchor; undefined until an uplink anchored the clock. */
  private relative?: number;
  private started = false;

  /** Whether an uplink has anchored the concentrator's timestamps (a downlink can be timed by `tmst`). */
  get synced(): boolean {
    return this.relative !== undefined;
  }

  /**
   * Anchors the clock on an uplink's timestamp and the server time (µs) it was received at;
   * answers the timestamp's place on the timeline.
   */
  sync(timestamp: number, serverUs: number): number {
    const expected = this.fromServerTime(serverUs);
    let at = expected;
    this.restarted = false;
    if (this.relative !== undefined) {
      const candidate = this.unwrap(timestamp, expected);
      if (Math.abs(candidate - expected) <= RESET_TOLERANCE_US) at = candidate;
      else this.restarted = true;
    }
    this.absolute = at;
    this.server = serverUs;
    this.relative = timestamp >>> 0;
    return at;
  }

  /** Whether the latest `sync` found the timestamps inconsistent with the previous anchor and re-anchored (a restarted concentrator). */
  restarted = false;

  /** The timeline's time (µs) at a server time (µs). */
  fromServerTime(serverUs: number): number {
    if (!this.started) {
      this.started = true;
      this.absolute = serverUs;
      this.server = serverUs;
    }
    return this.absolute + (serverUs - this.server);
  }

  /** The timeline's time of a 32-bit timestamp: the unwrapping nearest to the timeline's time at `serverUs`. Undefined before `sync`. */
  fromTimestamp(timestamp: number, serverUs: number): number | undefined {
    if (this.relative === undefined) return undefined;
    return this.unwrap(timestamp, this.fromServerTime(serverUs));
  }

  /** The 32-bit timestamp of a time of the timeline. Undefined before `sync`. */
  toTimestamp(timelineUs: number): number | undefined {
    if (this.relative === undefined) return undefined;
    return (((this.relative + Math.round(timelineUs - this.absolute)) % ROLLOVER_US) + ROLLOVER_US) % ROLLOVER_US;
  }

  /** The time on the timeline whose timestamp is `timestamp`, nearest to `near`. */
  private unwrap(timestamp: number, near: number): number {
    const base = this.absolute + (((((timestamp >>> 0) - (this.relative as number)) % ROLLOVER_US) + ROLLOVER_US) % ROLLOVER_US);
    return base + Math.round((near - base) / ROLLOVER_US) * ROLLOVER_US;
  }
}
