import { defineEnum } from './enum';

/**
 * MAC-layer enumerations of TTS's `api/ttn/lorawan/v3/lorawan.proto` and `messages.proto` (names and
 * numbers as there). Input accepts the name, the number, or the name without the prefix, which is
 * how TTS's registered aliases look (`"A"` for CLASS_A, `"4"` for DUTY_CYCLE_4, `"2S"` for PING_EVERY_2S).
 *
 * DataRateIndex, DataRateOffset and RxDelay are written as numbers, as TTS does (`marshal_as_number`);
 * every other enum as its name.
 */
function sequence<P extends string>(prefix: P, suffixes: readonly (string | number)[]): Record<string, number> {
  return Object.fromEntries(suffixes.map((s, i) => [`${prefix}${s}`, i]));
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const powers = (from: number, n: number) => Array.from({ length: n }, (_, i) => 2 ** (from + i));

export const Class = defineEnum('Class', { CLASS_A: 0, CLASS_B: 1, CLASS_C: 2 }, 'CLASS_');

export const DataRateIndex = defineEnum('DataRateIndex', sequence('DATA_RATE_', range(16)), 'DATA_RATE_', { marshalAsNumber: true });

export const DataRateOffset = defineEnum('DataRateOffset', sequence('DATA_RATE_OFFSET_', range(8)), 'DATA_RATE_OFFSET_', { marshalAsNumber: true });

export const RxDelay = defineEnum('RxDelay', sequence('RX_DELAY_', range(16)), 'RX_DELAY_', { marshalAsNumber: true });

/** DUTY_CYCLE_1 = 0 (100 %), DUTY_CYCLE_2 = 1, … DUTY_CYCLE_32768 = 15. */
export const AggregatedDutyCycle = defineEnum('AggregatedDutyCycle', sequence('DUTY_CYCLE_', powers(0, 16)), 'DUTY_CYCLE_');

export const RejoinTimeExponent = defineEnum('RejoinTimeExponent', sequence('REJOIN_TIME_', range(16)), 'REJOIN_TIME_');

/** REJOIN_COUNT_16 = 0, … REJOIN_COUNT_524288 = 15. */
export const RejoinCountExponent = defineEnum('RejoinCountExponent', sequence('REJOIN_COUNT_', powers(4, 16)), 'REJOIN_COUNT_');

/** PING_EVERY_1S = 0, … PING_EVERY_128S = 7. */
export const PingSlotPeriod = defineEnum(
  'PingSlotPeriod',
  sequence(
    'PING_EVERY_',
    powers(0, 8).map((p) => `${p}S`),
  ),
  'PING_EVERY_',
);

/** ADR_ACK_LIMIT_1 = 0, … ADR_ACK_LIMIT_32768 = 15. */
export const ADRAckLimitExponent = defineEnum('ADRAckLimitExponent', sequence('ADR_ACK_LIMIT_', powers(0, 16)), 'ADR_ACK_LIMIT_');

/** ADR_ACK_DELAY_1 = 0, … ADR_ACK_DELAY_32768 = 15. */
export const ADRAckDelayExponent = defineEnum('ADRAckDelayExponent', sequence('ADR_ACK_DELAY_', powers(0, 16)), 'ADR_ACK_DELAY_');

/** `messages.proto` PayloadFormatter. */
export const PayloadFormatter = defineEnum(
  'PayloadFormatter',
  { FORMATTER_NONE: 0, FORMATTER_REPOSITORY: 1, FORMATTER_GRPC_SERVICE: 2, FORMATTER_JAVASCRIPT: 3, FORMATTER_CAYENNELPP: 4 },
  'FORMATTER_',
);

export const MACCommandIdentifier = defineEnum(
  'MACCommandIdentifier',
  {
    CID_RFU_0: 0,
    CID_RESET: 1,
    CID_LINK_CHECK: 2,
    CID_LINK_ADR: 3,
    CID_DUTY_CYCLE: 4,
    CID_RX_PARAM_SETUP: 5,
    CID_DEV_STATUS: 6,
    CID_NEW_CHANNEL: 7,
    CID_RX_TIMING_SETUP: 8,
    CID_TX_PARAM_SETUP: 9,
    CID_DL_CHANNEL: 10,
    CID_REKEY: 11,
    CID_ADR_PARAM_SETUP: 12,
    CID_DEVICE_TIME: 13,
    CID_FORCE_REJOIN: 14,
    CID_REJOIN_PARAM_SETUP: 15,
    CID_PING_SLOT_INFO: 16,
    CID_PING_SLOT_CHANNEL: 17,
    CID_BEACON_TIMING: 18,
    CID_BEACON_FREQ: 19,
    CID_DEVICE_MODE: 32,
  },
  'CID_',
);

export const TxSchedulePriority = defineEnum('TxSchedulePriority', {
  LOWEST: 0,
  LOW: 1,
  BELOW_NORMAL: 2,
  NORMAL: 3,
  ABOVE_NORMAL: 4,
  HIGH: 5,
  HIGHEST: 6,
});

export const CFListType = defineEnum('CFListType', { FREQUENCIES: 0, CHANNEL_MASKS: 1 });

/** LoRaWAN 1.1 minor version of ResetInd/Conf and RekeyInd/Conf (MINOR_1 = LoRaWAN 1.1). */
export const Minor = defineEnum('Minor', Object.fromEntries(range(16).map((n) => [n === 1 ? 'MINOR_1' : `MINOR_RFU_${n}`, n])), 'MINOR_');

/** TxParamSetupReq's MaxEIRP (dBm). */
export const DeviceEIRP = defineEnum('DeviceEIRP', sequence('DEVICE_EIRP_', [8, 10, 12, 13, 14, 16, 18, 20, 21, 24, 26, 27, 29, 30, 33, 36]), 'DEVICE_EIRP_');

/** ForceRejoinReq's rejoin type. */
export const RejoinRequestType = defineEnum('RejoinRequestType', { CONTEXT: 0, SESSION: 1, KEYS: 2 });

/** ForceRejoinReq's period (32 × 2^n to 32 × 2^n + 32 s). */
export const RejoinPeriodExponent = defineEnum('RejoinPeriodExponent', sequence('REJOIN_PERIOD_', range(8)), 'REJOIN_PERIOD_');
