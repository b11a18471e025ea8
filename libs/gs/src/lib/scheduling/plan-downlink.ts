import type { TxRequest } from '@lorawan/api';
import { isStackError, type StackError } from '@lorawan/errors';
import type { FrequencyPlan } from '@lorawan/lorawan';
import { planClassADownlink, planClassCDownlink, type PlannedDownlink } from './class-a-downlink';
import { planClassBDownlink } from './class-b-downlink';
import type { GatewayScheduler } from './scheduler';
import type { UplinkToken } from './uplink-token';

/**
 * The transmission of a downlink by its class (TTS `io` ScheduleDown), booked in the gateway's
 * scheduler: A in RX1 or RX2 after the uplink the token names, B at the request's absolute time
 * (ping slot) through a GPS-synchronised gateway (`gpsSynced`), C at the earliest free moment. No
 * class is class A (the proto's zero value).
 */
export function planDownlink(
  payload: Buffer,
  request: TxRequest,
  token: UplinkToken,
  plan: FrequencyPlan,
  scheduler: GatewayScheduler,
  gpsSynced: boolean,
): PlannedDownlink | StackError {
  switch (request.class ?? 'CLASS_A') {
    case 'CLASS_B':
      return ofClass(planClassBDownlink(payload, request, plan, scheduler, gpsSynced), 'B');
    case 'CLASS_C':
      return ofClass(planClassCDownlink(payload, request, plan, scheduler), 'C');
    default:
      return ofClass(planClassADownlink(payload, request, token, plan, scheduler), 'A');
  }
}

/** The plan, marked with the device class it was made for. */
function ofClass(planned: PlannedDownlink | StackError, deviceClass: 'A' | 'B' | 'C'): PlannedDownlink | StackError {
  if (!isStackError(planned)) planned.device_class = deviceClass;
  return planned;
}
