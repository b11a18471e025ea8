import { isStackError } from '@lorawan/errors';
import { combineFrequencyPlans, getFrequencyPlan } from '@lorawan/lorawan';
import { planClassADownlink, planClassCDownlink } from './class-a-downlink';
import { GatewayScheduler, SCHEDULE_TIME_LONG_US, SCHEDULE_TIME_SHORT_US } from './scheduler';

const plan = getFrequencyPlan('EU_863_870_TTN');
if (!plan) throw new Error('EU_863_870_TTN missing from the catalogue');
const token = { gateway_id: 'gtw', eui: 'AA555A0000000101', antenna_index: 0, timestamp: 4_294_000_000, received_ms: 1_000_000 };
const payload = Buffer.alloc(17, 1);
const request = {
  downlink_paths: [{ uplink_token: 'x' }],
  rx1_delay: 5,
  rx1_frequency: '868100000',
  rx1_data_rate: { lora: { spreading_factor: 7, bandwidth: 125000 } },
  rx2_frequency: '869525000',
  rx2_data_rate: { lora: { spreading_factor: 9, bandwidth: 125000 } },
};
const MARGIN_MS = SCHEDULE_TIME_SHORT_US / 1000;

/** A gateway's scheduler whose server clock reads `clock.ms`, anchored on the token's uplink. */
function gateway(clock: { ms: number }): GatewayScheduler {
  const scheduler = new GatewayScheduler([plan as NonNullable<typeof plan>], { now: () => clock.ms * 1000 });
  scheduler.sync(token.timestamp, token.received_ms * 1000);
  return scheduler;
}

describe('class A downlink window (GS)', () => {
  it('takes RX1 while there is time: the uplink concentrator time + delay (wrapping at 2^32), the sub-band limit as power', () => {
    const planned = planClassADownlink(payload, request, token, plan, gateway({ ms: token.received_ms + 1000 }));
    if (isStackError(planned)) throw planned;
    expect(planned).toMatchObject({ window: 'rx1', delay: 5, frequency: '868100000', eirp: 16.15, transmit_at_ms: token.received_ms + 5000 });
    expect(planned.txpk).toMatchObject({ tmst: (4_294_000_000 + 5_000_000) % 2 ** 32, freq: 868.1, datr: 'SF7BW125', powe: 14, ipol: true, size: 17 });
  });

  it('falls back to RX2 (its channel, 27 dBm ERP on 869.525 MHz) once RX1 is too close, and fails with both reasons when both are', () => {
    const late = planClassADownlink(payload, request, token, plan, gateway({ ms: token.received_ms + 5000 - MARGIN_MS + 1 }));
    if (isStackError(late)) throw late;
    expect(late).toMatchObject({ window: 'rx2', delay: 6, frequency: '869525000' });
    expect(late.txpk).toMatchObject({ tmst: (4_294_000_000 + 6_000_000) % 2 ** 32, datr: 'SF9BW125', powe: 27 });
    const tooLate = planClassADownlink(payload, request, token, plan, gateway({ ms: token.received_ms + 6000 }));
    // RX2 opens 6 s after the uplink, which is now: 0 ms left of the 130 needed.
    expect(isStackError(tooLate) && tooLate.toDetails()).toMatchObject({
      namespace: 'pkg/gatewayserver/io',
      name: 'tx_schedule',
      attributes: { rx1: 'too_late', rx2: 'too_late' },
      cause: { name: 'too_late', attributes: { delay_ms: 0, min_ms: MARGIN_MS } },
    });
  });

  it('takes RX2 when RX1 is taken on the antenna, and refuses (conflict in both) when both are', () => {
    const clock = { ms: token.received_ms + 100 };
    const scheduler = gateway(clock);
    const first = planClassADownlink(payload, request, token, plan, scheduler);
    const second = planClassADownlink(payload, request, token, plan, scheduler);
    const third = planClassADownlink(payload, request, token, plan, scheduler);
    expect(!isStackError(first) && first.window).toBe('rx1');
    expect(!isStackError(second) && second.window).toBe('rx2');
    expect(isStackError(third) && third.toDetails()).toMatchObject({ name: 'tx_schedule', attributes: { rx1: 'conflict', rx2: 'conflict' } });
    // Another antenna of the same gateway is another radio.
    const other = planClassADownlink(payload, request, { ...token, antenna_index: 1 }, plan, scheduler);
    expect(!isStackError(other) && other.window).toBe('rx1');
  });

  it('refuses a frequency outside the plan’s sub-bands, a rate of no band table, and a request without windows', () => {
    const clock = { ms: token.received_ms };
    const only = { ...request, rx2_frequency: undefined };
    const off = planClassADownlink(payload, { ...only, rx1_frequency: '915000000' }, token, plan, gateway(clock));
    expect(isStackError(off) && off.toDetails().name).toBe('frequency_not_allowed');
    const rate = planClassADownlink(payload, { ...only, rx1_data_rate: { lora: { spreading_factor: 12, bandwidth: 500000 } } }, token, plan, gateway(clock));
    expect(isStackError(rate) && rate.toDetails().name).toBe('data_rate');
    const none = planClassADownlink(payload, { downlink_paths: [] }, token, plan, gateway(clock));
    expect(isStackError(none) && none.toDetails().name).toBe('no_rx_window');
  });

  it('sends a class C downlink at the earliest free concentrator time on the RX2 channel and rate, at the sub-band’s limit', () => {
    const clock = { ms: token.received_ms + 10 };
    const scheduler = gateway(clock);
    const planned = planClassCDownlink(payload, { ...request, class: 'CLASS_C' }, plan, scheduler);
    if (isStackError(planned)) throw planned;
    const expected = (token.timestamp + 10_000 + SCHEDULE_TIME_LONG_US) % 2 ** 32;
    expect(planned).toMatchObject({ window: 'rx2', frequency: '869525000', timestamp: expected, transmit_at_ms: clock.ms + SCHEDULE_TIME_LONG_US / 1000 });
    expect(planned.txpk).toMatchObject({ tmst: expected, freq: 869.525, datr: 'SF9BW125', powe: 27 });
    expect(planned.txpk.imme).toBeUndefined();
    const none = planClassCDownlink(payload, { downlink_paths: [], class: 'CLASS_C' }, plan, scheduler);
    expect(isStackError(none) && none.toDetails().name).toBe('no_rx_window');
  });

  it('sends a class C downlink immediately (imme) to a gateway whose clock no uplink anchored yet', () => {
    const scheduler = new GatewayScheduler([plan], { now: () => 5_000_000 });
    const planned = planClassCDownlink(payload, { ...request, class: 'CLASS_C' }, plan, scheduler);
    if (isStackError(planned)) throw planned;
    expect(planned.txpk).toMatchObject({ imme: true, freq: 869.525 });
    expect(planned.txpk.tmst).toBeUndefined();
  });

  it("a gateway with several plans (JP_1 and JP_3, one 16-channel gateway) answers on every plan's channels", () => {
    const jp3 = getFrequencyPlan('AS_920_923_TTN_JP_3');
    const both = combineFrequencyPlans(['AS_920_923_TTN_JP_1', 'AS_920_923_TTN_JP_3']);
    if (!jp3 || !both) throw new Error('JP plans missing from the catalogue');
    const jp = { ...request, rx1_frequency: '922600000', rx2_frequency: '923200000', rx2_data_rate: { lora: { spreading_factor: 10, bandwidth: 125000 } } };
    const on = (p: NonNullable<typeof jp3>) => {
      const scheduler = new GatewayScheduler([p], { now: () => (token.received_ms + 1000) * 1000 });
      scheduler.sync(token.timestamp, token.received_ms * 1000);
      return planClassADownlink(payload, jp, token, p, scheduler);
    };
    // 922.6 MHz is a JP_1 channel: outside JP_3's sub-bands (RX1 refused, RX2 taken), inside the union's.
    const alone = on(jp3);
    expect(!isStackError(alone) && [alone.window, alone.frequency]).toEqual(['rx2', '923200000']);
    const planned = on(both);
    if (isStackError(planned)) throw planned;
    expect(planned).toMatchObject({ window: 'rx1', frequency: '922600000', eirp: 16 });
  });
});
