import { isStackError } from '@lorawan/errors';
import { getFrequencyPlan, gpsMsToUtc, nextPingSlot, pingSlotFrequency, utcToGpsMs } from '@lorawan/lorawan';
import { planClassBDownlink } from './class-b-downlink';
import { GatewayScheduler, SCHEDULE_TIME_SHORT_US } from './scheduler';

const SCHEDULE_MARGIN_MS = SCHEDULE_TIME_SHORT_US / 1000;

const plan = getFrequencyPlan('EU_863_870_TTN');
if (!plan) throw new Error('EU_863_870_TTN missing from the catalogue');
const payload = Buffer.alloc(17, 2);
const now = Date.parse('2026-11-24T12:00:00.000Z');
/** A gateway's scheduler whose server clock reads `nowMs`. */
const at = (nowMs: number) => new GatewayScheduler([plan], { now: () => nowMs * 1000 });
/** The ping slot an NS would pick for 260B1234 (PING_EVERY_8S), at least 10 s ahead. */
const slotGpsMs = nextPingSlot('260B1234', 'PING_EVERY_8S', utcToGpsMs(new Date(now + 10_000)));
const absoluteTime = gpsMsToUtc(slotGpsMs).toISOString();
const request = {
  class: 'CLASS_B',
  downlink_paths: [{ uplink_token: 'x' }],
  absolute_time: absoluteTime,
  rx2_frequency: pingSlotFrequency('EU_863_870', '260B1234', Math.floor(slotGpsMs / 1000)),
  rx2_data_rate: { lora: { spreading_factor: 9, bandwidth: 125000 } },
};

describe('class B downlink (GS)', () => {
  it('sends at the absolute time as tmms (GPS ms) on the ping slot channel (the RX2 fields), at the sub-band’s limit', () => {
    const planned = planClassBDownlink(payload, request, plan, at(now), true);
    if (isStackError(planned)) throw planned;
    expect(planned).toMatchObject({ window: 'rx2', time: absoluteTime, frequency: '869525000', eirp: 29.15, transmit_at_ms: Date.parse(absoluteTime) });
    expect(planned.txpk).toMatchObject({ tmms: slotGpsMs, freq: 869.525, datr: 'SF9BW125', powe: 27, ipol: true, size: 17 });
    expect(planned.txpk.tmst).toBeUndefined();
    expect(planned.txpk.imme).toBeUndefined();
  });

  it('carries the leap seconds: an absolute time of 2017-01-01T00:00:00Z is tmms 1167264018000', () => {
    const time = '2017-01-01T00:00:00.000000Z';
    const planned = planClassBDownlink(payload, { ...request, absolute_time: time }, plan, at(Date.parse(time) - 5000), true);
    if (isStackError(planned)) throw planned;
    expect(planned.txpk.tmms).toBe(1_167_264_018_000);
  });

  it('refuses a request without an absolute time, and a gateway that reports no GPS time', () => {
    const untimed = planClassBDownlink(payload, { ...request, absolute_time: undefined }, plan, at(now), true);
    expect(isStackError(untimed) && untimed.toDetails()).toMatchObject({ namespace: 'pkg/gatewayserver/io', name: 'no_absolute_time' });
    const noGps = planClassBDownlink(payload, request, plan, at(now), false);
    expect(isStackError(noGps) && noGps.toDetails()).toMatchObject({ name: 'no_gps_sync', code: 9 });
  });

  it('is too late less than the schedule margin before the absolute time (or after it)', () => {
    const slot = Date.parse(absoluteTime);
    expect(isStackError(planClassBDownlink(payload, request, plan, at(slot - SCHEDULE_MARGIN_MS), true))).toBe(false);
    const late = planClassBDownlink(payload, request, plan, at(slot - SCHEDULE_MARGIN_MS + 1), true);
    expect(isStackError(late) && late.toDetails()).toMatchObject({
      name: 'too_late',
      attributes: { delay_ms: SCHEDULE_MARGIN_MS - 1, min_ms: SCHEDULE_MARGIN_MS },
    });
    const past = planClassBDownlink(payload, request, plan, at(slot + 1000), true);
    expect(isStackError(past) && past.toDetails().name).toBe('too_late');
  });

  it('books the ping slot: a second downlink in the same slot conflicts', () => {
    const scheduler = at(now);
    expect(isStackError(planClassBDownlink(payload, request, plan, scheduler, true))).toBe(false);
    const again = planClassBDownlink(payload, request, plan, scheduler, true);
    expect(isStackError(again) && again.toDetails()).toMatchObject({ namespace: 'pkg/gatewayserver/scheduling', name: 'conflict' });
  });

  it('refuses a missing ping slot channel, a rate of no band table and a frequency outside the plan', () => {
    const none = planClassBDownlink(payload, { ...request, rx2_frequency: undefined }, plan, at(now), true);
    expect(isStackError(none) && none.toDetails().name).toBe('no_rx_window');
    const rate = planClassBDownlink(payload, { ...request, rx2_data_rate: { lora: { spreading_factor: 12, bandwidth: 500000 } } }, plan, at(now), true);
    expect(isStackError(rate) && rate.toDetails().name).toBe('data_rate');
    const off = planClassBDownlink(payload, { ...request, rx2_frequency: '923300000' }, plan, at(now), true);
    expect(isStackError(off) && off.toDetails().name).toBe('frequency_not_allowed');
  });
});
