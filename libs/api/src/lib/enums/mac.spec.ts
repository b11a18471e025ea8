import type { ProtoEnum } from './enum';
import {
  ADRAckDelayExponent,
  ADRAckLimitExponent,
  AggregatedDutyCycle,
  Class,
  DataRateIndex,
  MACCommandIdentifier,
  PayloadFormatter,
  PingSlotPeriod,
  RejoinCountExponent,
  RejoinTimeExponent,
  RxDelay,
  TxSchedulePriority,
} from './mac';

describe('MAC enumerations (names and numbers as TTS lorawan.proto / messages.proto)', () => {
  it.each([
    ['CLASS_A', 0, Class],
    ['CLASS_C', 2, Class],
    ['DATA_RATE_0', 0, DataRateIndex],
    ['DATA_RATE_15', 15, DataRateIndex],
    ['RX_DELAY_15', 15, RxDelay],
    ['DUTY_CYCLE_1', 0, AggregatedDutyCycle],
    ['DUTY_CYCLE_4', 2, AggregatedDutyCycle],
    ['DUTY_CYCLE_32768', 15, AggregatedDutyCycle],
    ['REJOIN_TIME_15', 15, RejoinTimeExponent],
    ['REJOIN_COUNT_16', 0, RejoinCountExponent],
    ['REJOIN_COUNT_524288', 15, RejoinCountExponent],
    ['PING_EVERY_1S', 0, PingSlotPeriod],
    ['PING_EVERY_128S', 7, PingSlotPeriod],
    ['ADR_ACK_LIMIT_32768', 15, ADRAckLimitExponent],
    ['ADR_ACK_DELAY_1', 0, ADRAckDelayExponent],
    ['FORMATTER_CAYENNELPP', 4, PayloadFormatter],
    ['CID_BEACON_FREQ', 19, MACCommandIdentifier],
    ['CID_DEVICE_MODE', 32, MACCommandIdentifier],
    ['HIGHEST', 6, TxSchedulePriority],
  ] as [string, number, ProtoEnum][])('%s = %i', (name, number, e) => {
    expect(e.values[name]).toBe(number);
    expect(e.nameOf(number)).toBe(name);
    expect(e.parse(number)).toBe(name);
  });

  it('has the complete value lists', () => {
    expect(
      [
        Class,
        DataRateIndex,
        RxDelay,
        AggregatedDutyCycle,
        RejoinTimeExponent,
        RejoinCountExponent,
        PingSlotPeriod,
        ADRAckLimitExponent,
        ADRAckDelayExponent,
        PayloadFormatter,
        MACCommandIdentifier,
        TxSchedulePriority,
      ].map((e) => e.names.length),
    ).toEqual([3, 16, 16, 16, 16, 16, 8, 16, 16, 5, 21, 7]);
  });

  it('accepts TTS aliases: prefix-less names', () => {
    expect(Class.parse('B')).toBe('CLASS_B');
    expect(AggregatedDutyCycle.parse('4')).toBe('DUTY_CYCLE_4');
    expect(PingSlotPeriod.parse('2S')).toBe('PING_EVERY_2S');
    expect(RejoinCountExponent.parse('32')).toBe('REJOIN_COUNT_32');
    expect(MACCommandIdentifier.parse('LINK_ADR')).toBe('CID_LINK_ADR');
    expect(DataRateIndex.parse('16')).toBeUndefined();
  });
});
