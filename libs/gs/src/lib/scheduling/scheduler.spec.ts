import { isStackError, type StackError } from '@lorawan/errors';
import { type FrequencyPlan, getFrequencyPlan, timeOnAirUs } from '@lorawan/lorawan';
import { QUEUE_DELAY_US } from './emission';
import {
  DWELL_TIME_US,
  RADIO_GAP_US,
  GatewayScheduler,
  MIN_RTT_COUNT,
  SCHEDULE_TIME_LONG_US,
  SCHEDULE_TIME_SHORT_US,
  type ScheduledEmission,
  type Transmission,
} from './scheduler';

function plan(id: string): FrequencyPlan {
  const found = getFrequencyPlan(id);
  if (!found) throw new Error(`${id} missing from the catalogue`);
  return found;
}
const EU = plan('EU_863_870_TTN');
const SF7 = { lora: { spreading_factor: 7, bandwidth: 125_000 } };
const SF12 = { lora: { spreading_factor: 12, bandwidth: 125_000 } };
/** 868.1 MHz: EU868's 868.0–868.6 MHz sub-band, 1 % duty cycle. */
const rx1: Transmission = { frequency: 868_100_000, data_rate: SF7, payload_size: 20, priority: 'NORMAL', antenna_index: 0 };
const rx1Toa = timeOnAirUs(20, SF7, { direction: 'downlink' });

/** A scheduler on a server clock the test moves (`clock.us`), anchored: concentrator timestamp 0 at server time 0. */
function gateway(options: { window_us?: number; plans?: FrequencyPlan[] } = {}) {
  const clock = { us: 0 };
  const scheduler = new GatewayScheduler(options.plans ?? [EU], {
    now: () => clock.us,
    duty_cycle: options.window_us ? { window_us: options.window_us } : undefined,
  });
  scheduler.sync(0, 0);
  return { clock, scheduler };
}

function booked(result: ScheduledEmission | StackError): ScheduledEmission {
  if (isStackError(result)) throw new Error(`refused: ${result.toDetails().name}`);
  return result;
}
const reason = (result: ScheduledEmission | StackError) => (isStackError(result) ? result.toDetails().name : 'booked');

describe('GatewayScheduler (TTS scheduling.Scheduler)', () => {
  it('books a transmission at a concentrator timestamp and refuses one that overlaps it, time off air included', () => {
    const { scheduler } = gateway();
    const first = booked(scheduler.scheduleAt(rx1, { timestamp: 1_000_000 }));
    expect(first).toMatchObject({ starts_us: 1_000_000, duration_us: rx1Toa, timestamp: 1_000_000, delay_us: 1_000_000, server_us: 1_000_000 });
    // Starting while the first is on the air, or within the queue delay after it.
    expect(reason(scheduler.scheduleAt(rx1, { timestamp: 1_000_000 + rx1Toa / 2 }))).toBe('conflict');
    expect(reason(scheduler.scheduleAt(rx1, { timestamp: 1_000_000 + rx1Toa + RADIO_GAP_US - 1 }))).toBe('conflict');
    // Ending within the queue delay before it.
    expect(reason(scheduler.scheduleAt(rx1, { timestamp: 1_000_000 - rx1Toa - RADIO_GAP_US + 1 }))).toBe('conflict');
    expect(reason(scheduler.scheduleAt(rx1, { timestamp: 1_000_000 + rx1Toa + RADIO_GAP_US }))).toBe('booked');
    expect(reason(scheduler.scheduleAt(rx1, { timestamp: 1_000_000 - rx1Toa - RADIO_GAP_US }))).toBe('booked');
    // Another antenna is another radio; the sub-band is shared.
    expect(reason(scheduler.scheduleAt({ ...rx1, antenna_index: 1 }, { timestamp: 1_000_000 }))).toBe('booked');
  });

  it('refuses what cannot reach the gateway in time: the short lead without round trips, half the 90th percentile plus the queue delay with them', () => {
    const { clock, scheduler } = gateway();
    clock.us = 10_000_000;
    expect(scheduler.leadUs()).toBe(SCHEDULE_TIME_SHORT_US);
    expect(reason(scheduler.scheduleAt(rx1, { timestamp: 10_000_000 + SCHEDULE_TIME_SHORT_US - 1 }))).toBe('too_late');
    expect(reason(scheduler.scheduleAt(rx1, { timestamp: 10_000_000 + SCHEDULE_TIME_SHORT_US }))).toBe('booked');
    // A far gateway: 400 ms round trips (a cellular backhaul). Four are not enough to go by.
    for (let i = 1; i < MIN_RTT_COUNT; i++) scheduler.rtts.record(400, 10_000);
    expect(scheduler.leadUs()).toBe(SCHEDULE_TIME_SHORT_US);
    scheduler.rtts.record(400, 10_000);
    expect(scheduler.leadUs()).toBe(200_000 + QUEUE_DELAY_US);
    const late = scheduler.scheduleAt(rx1, { timestamp: 10_000_000 + 200_000 });
    expect(isStackError(late) && late.toDetails()).toMatchObject({ name: 'too_late', attributes: { delay_ms: 200, min_ms: 230 } });
    // In the past (a concentrator time before now).
    expect(reason(scheduler.scheduleAt(rx1, { timestamp: 9_000_000 }))).toBe('too_late');
  });

  it('keeps each sub-band within its duty cycle over the sliding window, each priority under its ceiling', () => {
    // A 100 s window: the 1 % sub-band may be on the air 1 s in any 100 s; NORMAL may use 70 % of that.
    const window = 100_000_000;
    const { clock, scheduler } = gateway({ window_us: window });
    const frame = rx1;
    const toa = rx1Toa;
    const fits = Math.floor((0.01 * 0.7 * window) / toa);
    expect(fits).toBeGreaterThan(5);
    for (let i = 0; i < fits; i++) booked(scheduler.scheduleAt(frame, { timestamp: 1_000_000 + i * 5_000_000 }));
    const over = scheduler.scheduleAt(frame, { timestamp: 1_000_000 + fits * 5_000_000 });
    expect(isStackError(over) && over.toDetails()).toMatchObject({ name: 'duty_cycle', attributes: { priority: 'NORMAL', usable: '0.7' } });
    // HIGHEST may use the whole duty cycle; another sub-band (869.525 MHz, 10 %) is unaffected.
    expect(reason(scheduler.scheduleAt({ ...frame, priority: 'HIGHEST' }, { timestamp: 1_000_000 + fits * 5_000_000 }))).toBe('booked');
    expect(reason(scheduler.scheduleAt({ ...frame, frequency: 869_525_000 }, { timestamp: 1_000_000 + (fits + 1) * 5_000_000 }))).toBe('booked');
    expect(scheduler.subBandStats().find((sb) => sb.min_frequency === '868000000')).toMatchObject({ downlink_utilization_limit: 0.01 });
    // Once the first emissions leave the window, the sub-band has room again.
    clock.us = window + 1_000_000 + 5_000_000;
    expect(reason(scheduler.scheduleAt(frame, { timestamp: clock.us + 1_000_000 }))).toBe('booked');
    expect(scheduler.subBandStats().find((sb) => sb.min_frequency === '868000000')?.downlink_utilization).toBeLessThanOrEqual(0.01);
  });

  it('refuses a frame longer than the dwell time on a plan that limits downlinks, and a frequency in no sub-band', () => {
    const as923 = plan('AS_923');
    const dwell: FrequencyPlan = { ...as923, id: 'AS_923_DWELL', dwell_time: { uplinks: true, downlinks: true } };
    const tx = { ...rx1, frequency: 923_200_000, data_rate: { lora: { spreading_factor: 10, bandwidth: 125_000 } }, payload_size: 19 };
    expect(timeOnAirUs(19, tx.data_rate, { direction: 'downlink' })).toBeLessThan(DWELL_TIME_US);
    const long = { ...tx, payload_size: 40 };
    expect(timeOnAirUs(40, long.data_rate, { direction: 'downlink' })).toBeGreaterThan(DWELL_TIME_US);
    const { scheduler } = gateway({ plans: [dwell] });
    expect(reason(scheduler.scheduleAt(tx, { timestamp: 1_000_000 }))).toBe('booked');
    const refused = scheduler.scheduleAt(long, { timestamp: 3_000_000 });
    expect(isStackError(refused) && refused.toDetails()).toMatchObject({ namespace: 'pkg/gatewayserver/scheduling', name: 'dwell_time' });
    expect(reason(gateway({ plans: [as923] }).scheduler.scheduleAt(long, { timestamp: 3_000_000 }))).toBe('booked');
    expect(reason(scheduler.scheduleAt({ ...tx, frequency: 868_100_000 }, { timestamp: 5_000_000 }))).toBe('sub_band_not_found');
  });

  it('books a class C transmission at the earliest moment free on the antenna, past the booked ones', () => {
    const { clock, scheduler } = gateway();
    clock.us = 50_000_000;
    const from = 50_000_000 + SCHEDULE_TIME_LONG_US;
    const a = booked(scheduler.scheduleAt(rx1, { timestamp: from + 10_000 }));
    const b = booked(scheduler.scheduleAt(rx1, { timestamp: a.starts_us + rx1Toa + RADIO_GAP_US }));
    const c = booked(scheduler.scheduleAnytime(rx1));
    expect(c.starts_us).toBe(b.starts_us + rx1Toa + RADIO_GAP_US);
    expect(c.timestamp).toBe(c.starts_us);
    // A burst: each one after the other, none overlapping.
    const burst = Array.from({ length: 20 }, () => booked(scheduler.scheduleAnytime(rx1)));
    const all = [a, b, c, ...burst].sort((x, y) => x.starts_us - y.starts_us);
    for (let i = 1; i < all.length; i++) expect(all[i].starts_us).toBeGreaterThanOrEqual(all[i - 1].starts_us + all[i - 1].duration_us + RADIO_GAP_US);
  });

  it('waits for the duty cycle: a class C transmission goes out once earlier airtime leaves the window, or is refused beyond the limit', () => {
    const window = 10_000_000;
    const { clock, scheduler } = gateway({ window_us: window });
    const sf12 = { ...rx1, data_rate: SF12, payload_size: 51, priority: 'HIGHEST' as const };
    const toa = timeOnAirUs(51, SF12, { direction: 'downlink' });
    // 1 % of 10 s is 100 ms: one SF12 frame (~2.5 s) is over it on its own.
    expect(toa).toBeGreaterThan(0.01 * window);
    expect(reason(scheduler.scheduleAnytime(sf12))).toBe('duty_cycle');
    // On the 10 % sub-band (869.4–869.65 MHz: 1 s per 10 s) two hundred-ms frames fit, the third waits for the first to leave the window.
    const short = { ...sf12, frequency: 869_525_000, data_rate: SF7, payload_size: 200 };
    const shortToa = timeOnAirUs(200, SF7, { direction: 'downlink' });
    const n = Math.floor((0.1 * window) / shortToa);
    const taken = Array.from({ length: n }, () => booked(scheduler.scheduleAnytime(short)));
    const next = booked(scheduler.scheduleAnytime(short));
    expect(next.starts_us).toBeGreaterThanOrEqual(taken[0].starts_us + shortToa + window - shortToa);
    const used = (from: number) =>
      [...taken, next].reduce((sum, em) => sum + Math.max(0, Math.min(em.starts_us + em.duration_us, from + window) - Math.max(em.starts_us, from)), 0);
    for (let from = clock.us; from < next.starts_us + shortToa; from += 50_000) expect(used(from)).toBeLessThanOrEqual(0.1 * window);
    expect(reason(scheduler.scheduleAnytime(short, { within_us: 1_000_000 }))).toBe('duty_cycle');
  });

  it('takes a transmission the gateway refused off the books: its time and airtime are free again', () => {
    const { scheduler } = gateway();
    const first = booked(scheduler.scheduleAt(rx1, { timestamp: 2_000_000 }));
    expect(reason(scheduler.scheduleAt(rx1, { timestamp: 2_000_000 }))).toBe('conflict');
    scheduler.cancel(first);
    expect(reason(scheduler.scheduleAt(rx1, { timestamp: 2_000_000 }))).toBe('booked');
  });

  it('starts the radios’ books again when the concentrator restarted (its counter jumped); the duty cycle keeps its airtime', () => {
    const { clock, scheduler } = gateway();
    booked(scheduler.scheduleAt(rx1, { timestamp: 1_000_000 }));
    clock.us = 100_000;
    // An uplink 100 ms later whose timestamp is 3 s off: the counter restarted.
    scheduler.sync(3_000_000_000, 100_000);
    const utilization = scheduler.subBandStats().find((sb) => sb.min_frequency === '868000000')?.downlink_utilization;
    expect(reason(scheduler.scheduleAt(rx1, { timestamp: 3_000_900_000 }))).toBe('booked');
    expect(scheduler.subBandStats().find((sb) => sb.min_frequency === '868000000')?.downlink_utilization).toBe(utilization);
  });

  it('times transmissions across a concentrator rollover', () => {
    const clock = { us: 0 };
    const scheduler = new GatewayScheduler([EU], { now: () => clock.us });
    scheduler.sync(2 ** 32 - 500_000, 0);
    const em = booked(scheduler.scheduleAt(rx1, { timestamp: 500_000 }));
    expect(em).toMatchObject({ timestamp: 500_000, delay_us: 1_000_000 });
    expect(reason(scheduler.scheduleAt(rx1, { timestamp: 499_999 }))).toBe('conflict');
  });
});
