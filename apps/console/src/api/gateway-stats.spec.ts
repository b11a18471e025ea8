import { dutyCycleUse, durationMs } from './gateway-stats';

describe('gateway connection stats in the console', () => {
  it('the busiest sub-band’s share of its duty cycle', () => {
    expect(
      dutyCycleUse({
        sub_bands: [
          { min_frequency: '863000000', max_frequency: '865000000', downlink_utilization_limit: 0.001, downlink_utilization: 0.0005 },
          { min_frequency: '868000000', max_frequency: '868600000', downlink_utilization_limit: 0.01, downlink_utilization: 0.001 },
          { min_frequency: '869700000', max_frequency: '870000000', downlink_utilization_limit: 0 },
        ],
      }),
    ).toBe(0.5);
    expect(dutyCycleUse({})).toBeUndefined();
  });

  it('durations in milliseconds', () => {
    expect(durationMs('0.025s')).toBe(25);
    expect(durationMs('1.5s')).toBe(1500);
  });
});
