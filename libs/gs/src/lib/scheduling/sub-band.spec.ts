import { loraTimeOnAirUs } from '@lorawan/lorawan';
import { ErrDutyCycle } from '../errors';
import { type Emission } from './emission';
import { DUTY_CYCLE_CEILINGS, DUTY_CYCLE_WINDOW_US, type SchedulePriority, schedulePriority, SubBandDutyCycle } from './sub-band';

const S = 1_000_000;
const at = (startsS: number, durationS: number): Emission => ({ starts_us: Math.round(startsS * S), duration_us: Math.round(durationS * S) });
const limits = (duty_cycle: number) => ({ min_frequency: '868000000', max_frequency: '868600000', duty_cycle });

describe('duty cycle of a sub-band', () => {
  let now: number;
  const clock = () => now;
  beforeEach(() => {
    now = 0;
  });

  /** Checks and, when accepted, records; answers the refusal. */
  function schedule(subBand: SubBandDutyCycle, em: Emission, priority: SchedulePriority = 'NORMAL') {
    const refused = subBand.check(em, priority);
    if (!refused) subBand.record(em);
    return refused;
  }

  it('has TTS’s window and priority ceilings', () => {
    expect(DUTY_CYCLE_WINDOW_US).toBe(3600 * S);
    expect(DUTY_CYCLE_CEILINGS).toEqual({ LOWEST: 0.4, LOW: 0.5, BELOW_NORMAL: 0.6, NORMAL: 0.7, ABOVE_NORMAL: 0.8, HIGH: 0.9, HIGHEST: 1 });
    const subBand = new SubBandDutyCycle(limits(0.01), clock);
    expect(subBand.budgetUs('LOWEST')).toBe(14.4 * S);
    expect(subBand.budgetUs('NORMAL')).toBe(25.2 * S);
    expect(subBand.budgetUs('HIGHEST')).toBe(36 * S);
  });

  it('reads a request’s priority by name or number, NORMAL when it names none', () => {
    expect(schedulePriority('HIGHEST')).toBe('HIGHEST');
    expect(schedulePriority(1)).toBe('LOW');
    expect(schedulePriority(undefined)).toBe('NORMAL');
    expect(schedulePriority('URGENT')).toBe('NORMAL');
  });

  it('takes the frequencies between its bounds, both included', () => {
    const subBand = new SubBandDutyCycle(limits(0.01), clock);
    expect(subBand.comprises('868000000')).toBe(true);
    expect(subBand.comprises(868_600_000)).toBe(true);
    expect(subBand.comprises('867999999')).toBe(false);
    expect(subBand.comprises('868600001')).toBe(false);
  });

  it('accepts everything in a sub-band without limit, and counts its utilization over the window (TTS TestSubBandScheduleUnrestricted)', () => {
    for (const duty of [1, 0]) {
      const subBand = new SubBandDutyCycle(limits(duty), clock, { window_us: 10 * S });
      expect(subBand.duty_cycle).toBe(1);
      // The utilization at the end of each emission, over the 10 s before.
      for (const [em, utilization] of [
        [at(1, 2), 0.2],
        [at(4, 1), 0.3],
        [at(11, 1), 0.3],
        [at(13, 1), 0.3],
        [at(15, 3), 0.5],
      ] as const) {
        expect(schedule(subBand, em, 'LOWEST')).toBeUndefined();
        now = em.starts_us + em.duration_us;
        expect(subBand.utilization()).toBeCloseTo(utilization, 12);
      }
    }
  });

  it('holds each priority to its share (TTS TestSubBandScheduleRestricted)', () => {
    // A 10 s window at 50 %: NORMAL may use 2.5 s of any window, HIGHEST 5 s.
    const subBand = new SubBandDutyCycle(limits(0.5), clock, { window_us: 10 * S, ceilings: { NORMAL: 0.5, HIGHEST: 1 } });
    expect(schedule(subBand, at(6, 1))).toBeUndefined();
    expect(schedule(subBand, at(14, 1))).toBeUndefined();
    expect(schedule(subBand, at(18, 1))).toBeUndefined();
    // [5.x, 15.x] would hold 6–7, 11–12 and 14–15: 3 s.
    const refused = schedule(subBand, at(11, 1));
    expect(ErrDutyCycle.matches(refused)).toBe(true);
    expect(refused?.toDetails()).toMatchObject({
      namespace: 'pkg/gatewayserver/scheduling',
      name: 'duty_cycle',
      code: 8,
      attributes: { used: '30.0', usable: '25.0', priority: 'NORMAL', min_frequency: '868000000', max_frequency: '868600000' },
    });
    expect(schedule(subBand, at(11, 1), 'HIGHEST')).toBeUndefined();
    now = 12 * S;
    expect(subBand.utilization()).toBeCloseTo(0.2, 12);
  });

  it('lets a priority use what a lower one may not, in an EU868 1 % sub-band over an hour', () => {
    const subBand = new SubBandDutyCycle(limits(0.01), clock);
    expect(schedule(subBand, at(10, 14.4), 'LOWEST')).toBeUndefined();
    expect(subBand.check(at(100, 0.001), 'LOWEST')?.attributes).toMatchObject({ used: '0.4', usable: '0.4', priority: 'LOWEST' });
    expect(schedule(subBand, at(100, 10.8), 'NORMAL')).toBeUndefined();
    expect(subBand.check(at(200, 0.001), 'NORMAL')).toBeDefined();
    expect(schedule(subBand, at(200, 10.8), 'HIGHEST')).toBeUndefined();
    // 36 s used: the legal 1 % of the hour; nothing more, whatever the priority.
    expect(subBand.check(at(300, 0.000001), 'HIGHEST')?.attributes).toMatchObject({ used: '1.0', usable: '1.0' });
    now = 300 * S;
    expect(subBand.utilization()).toBeCloseTo(0.01, 12);
  });

  it('frees airtime exactly as it slides out of the window', () => {
    const subBand = new SubBandDutyCycle(limits(0.01), clock);
    expect(schedule(subBand, at(0, 25.2))).toBeUndefined();
    // A window ending with a new emission that starts before 3600 s still holds all of the first one.
    expect(subBand.check({ starts_us: 3600 * S - 1, duration_us: 1 }, 'NORMAL')).toBeDefined();
    // From 3600 s on, every window that holds part of it has lost as much of the first one.
    expect(subBand.check({ starts_us: 3600 * S, duration_us: 1 }, 'NORMAL')).toBeUndefined();
    expect(subBand.check(at(3600, 25.2), 'NORMAL')).toBeUndefined();
    expect(subBand.check(at(3600, 25.200001), 'NORMAL')).toBeDefined();
    expect(subBand.check(at(3625.2, 25.2), 'NORMAL')).toBeUndefined();
  });

  it('refuses an emission longer than the budget on its own (SF12, 255 bytes in a 0.1 % sub-band)', () => {
    const subBand = new SubBandDutyCycle(limits(0.001), clock);
    const sf12 = loraTimeOnAirUs(255, { spreading_factor: 12, bandwidth: 125_000, crc: false });
    expect(subBand.check({ starts_us: 10 * S, duration_us: sf12 }, 'HIGHEST')?.attributes).toMatchObject({ used: '0.3', usable: '0.1' });
  });

  it('checks every window that holds part of the emission, not only the two TTS checks', () => {
    // A 100 s window at 10 %: 10 s per window. A at 0–5 s and B at 97–102 s are 8 s in the busiest window.
    const subBand = new SubBandDutyCycle(limits(0.1), clock, { window_us: 100 * S });
    expect(schedule(subBand, at(0, 5), 'HIGHEST')).toBeUndefined();
    expect(schedule(subBand, at(97, 5), 'HIGHEST')).toBeUndefined();
    // 89–92 s: the window ending with it ([-8, 92]: A and it, 8 s) and the one starting with it
    // ([89, 189]: it and B, 8 s) are within the limit, but [0, 100] holds A, it and 3 s of B: 11 s.
    expect(subBand.check(at(89, 3), 'HIGHEST')?.attributes).toMatchObject({ used: '11.0', usable: '10.0' });
    // Two seconds fit: [0, 100] then holds exactly 10 s, and no window more.
    expect(subBand.check(at(90, 2), 'HIGHEST')).toBeUndefined();
  });

  it('never lets a window exceed the budget under a sustained schedule, and forgets what slid out', () => {
    // 20 s windows at 10 %, NORMAL: 1.4 s per window. A 41.216 ms SF7 downlink every 0.1 s, for 3 minutes,
    // and some scheduled ahead of the clock (as RX2 and class B downlinks are).
    const window = 20 * S;
    const subBand = new SubBandDutyCycle(limits(0.1), clock, { window_us: window });
    const accepted: Emission[] = [];
    for (let i = 0; i < 1800; i++) {
      now = i * 100_000;
      const em = { starts_us: now + (i % 7 === 0 ? 1_900_000 : 1_000_000) + 37_000 * (i % 3), duration_us: 41_216 };
      if (!schedule(subBand, em)) accepted.push(em);
    }
    expect(accepted.length).toBeGreaterThan(200);
    expect(accepted.length).toBeLessThan(1800);
    // The busiest windows start with an emission or end with one.
    const budget = subBand.budgetUs('NORMAL');
    const busiest = Math.max(
      ...[...accepted.map((em) => em.starts_us), ...accepted.map((em) => em.starts_us + em.duration_us - window)].map((from) =>
        accepted.reduce((sum, em) => sum + Math.max(0, Math.min(em.starts_us + em.duration_us, from + window) - Math.max(em.starts_us, from)), 0),
      ),
    );
    expect(busiest).toBeLessThanOrEqual(budget);
    expect(busiest).toBeGreaterThan(budget - 41_216);
    // The clock at 180 s remembers the emissions that end after 160 s.
    expect(subBand.size).toBe(accepted.filter((em) => em.starts_us + em.duration_us > now - window).length);
    now += 10 * window;
    expect(subBand.utilization()).toBe(0);
    expect(subBand.size).toBe(0);
  });
});
