/**
 * A transmission of a gateway's radio (TTS `scheduling.Emission`): when it starts and how long it
 * lasts (its time on air, `timeOnAirUs` of `@lorawan/lorawan`), in microseconds on one monotonic
 * timeline. TTS counts in nanoseconds of concentrator time; the timeline here is the scheduler's
 * choice, as long as it does not wrap: a concentrator's 32-bit `tmst` wraps every 71.6 minutes and
 * must be unwrapped first (TTS `RolloverClock`), and server time in microseconds since the Unix
 * epoch is exact in a JavaScript number.
 */
export interface Emission {
  readonly starts_us: number;
  readonly duration_us: number;
}

export function emissionEndsUs(em: Emission): number {
  return em.starts_us + em.duration_us;
}

/** Microseconds of the emission that fall inside [fromUs, toUs]. */
export function airtimeWithin(em: Emission, fromUs: number, toUs: number): number {
  return Math.max(0, Math.min(emissionEndsUs(em), toUs) - Math.max(em.starts_us, fromUs));
}

/**
 * How long a radio stays off the air after an emission before the next one (TTS
 * `frequencyplans.TimeOffAir`): a fraction of the emission's duration, but at least `duration_us`.
 * Frequency plans may require a time off air (LBT and Japanese plans do); every gateway needs at
 * least QUEUE_DELAY_US to switch its radio between two transmissions.
 */
export interface TimeOffAir {
  readonly fraction: number;
  readonly duration_us: number;
}

/**
 * The time a concentrator needs between two queued transmissions (TTS `scheduling.QueueDelay`: the
 * Semtech packet forwarder's JIT queue programs each packet 30 ms ahead, `jitqueue.c`
 * TX_JIT_DELAY), the least time off air a scheduler allows.
 */
export const QUEUE_DELAY_US = 30_000;

/** The time off air a plan's setting gives, never less than the queue delay (TTS NewScheduler). */
export function resolveTimeOffAir(setting: Partial<TimeOffAir> = {}): TimeOffAir {
  return Object.freeze({ fraction: setting.fraction ?? 0, duration_us: Math.max(setting.duration_us ?? 0, QUEUE_DELAY_US) });
}

/** Microseconds the radio stays off the air after `em` (TTS `Emission.OffAir`), rounded up. */
export function offAirUs(em: Emission, toa: TimeOffAir): number {
  return Math.max(Math.ceil(em.duration_us * toa.fraction), toa.duration_us);
}

/** When the radio is free again after `em`: its end plus its time off air (TTS `EndsWithOffAir`). */
export function freeAfterUs(em: Emission, toa: TimeOffAir): number {
  return emissionEndsUs(em) + offAirUs(em, toa);
}

/**
 * Whether two emissions of one radio overlap, each taken with its time off air (TTS
 * `OverlapsWithOffAir`): an emission may start exactly when the radio is free after the other.
 */
export function overlapsWithOffAir(a: Emission, b: Emission, toa: TimeOffAir): boolean {
  return a.starts_us < freeAfterUs(b, toa) && b.starts_us < freeAfterUs(a, toa);
}
