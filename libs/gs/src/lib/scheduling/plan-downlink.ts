import type { TxRequest } from '@lorawan/api';
import type { StackError } from '@lorawan/errors';
import type { FrequencyPlan } from '@lorawan/lorawan';
import { planClassADownlink, planClassCDownlink, type PlannedDownlink } from './class-a-downlink';
import { planClassBDownlink } from './class-b-downlink';
import type { UplinkToken } from './uplink-token';

/**
 * The transmission of a downlink by its class (TTS `io` ScheduleDown): A in RX1 or RX2 after the
 * uplink the token names, B at the request's absolute time (ping slot) through a GPS-synchronised
 * gateway (`gpsSynced`), C now. No class is class A (the proto's zero value).
 */
export function planDownlink(
  payload: Buffer,
  request: TxRequest,
  token: UplinkToken,
  plan: FrequencyPlan,
  gpsSynced: boolean,
  now: number,
): PlannedDownlink | StackError {
  switch (request.class ?? 'CLASS_A') {
    case 'CLASS_B':
      return planClassBDownlink(payload, request, plan, gpsSynced, now);
    case 'CLASS_C':
      return planClassCDownlink(payload, request, plan, now);
    default:
      return planClassADownlink(payload, request, token, plan, now);
  }
}
