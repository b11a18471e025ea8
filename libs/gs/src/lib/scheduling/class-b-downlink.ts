import type { TxRequest } from '@lorawan/api';
import { isStackError, type StackError } from '@lorawan/errors';
import { type FrequencyPlan, utcToGpsMs } from '@lorawan/lorawan';
import { ErrNoAbsoluteTime, ErrNoGpsSync } from '../errors';
import { type PlannedDownlink, planned, rx2Channel, transmission } from './class-a-downlink';
import type { GatewayScheduler } from './scheduler';

/**
 * A class B downlink: sent in the ping slot the NS chose, at the request's `absolute_time` (TTS
 * `pkg/gatewayserver/io` ScheduleDown, `Class_CLASS_B`). As TTS, the NS puts the ping slot's
 * frequency and data rate in the RX2 fields. A Semtech forwarder sends at an absolute time only as
 * `tmms`, GPS ms (PROTOCOL.TXT §6; TTS `udp/translation.go` FromDownlinkMessage: ToGPS of the
 * time), which it honours only with a GPS fix, so the gateway must have reported GPS time
 * (`gpsSynced`, TTS IsGatewayTimeSynced). The scheduler books the slot (by the server's clock,
 * which GPS-synchronised gateways share to within milliseconds) like any other emission: in time,
 * free on the antenna, within the duty cycle. The power is the sub-band's limit, as in the other classes.
 */
export function planClassBDownlink(
  payload: Buffer,
  request: TxRequest,
  plan: FrequencyPlan,
  scheduler: GatewayScheduler,
  gpsSynced: boolean,
  antennaGain = 0,
): PlannedDownlink | StackError {
  const transmitAt = request.absolute_time === undefined ? Number.NaN : Date.parse(request.absolute_time);
  if (!Number.isFinite(transmitAt) || request.absolute_time === undefined) return ErrNoAbsoluteTime.with();
  if (!gpsSynced) return ErrNoGpsSync.with();
  const ch = rx2Channel(request, plan);
  if (isStackError(ch)) return ch;
  const emission = scheduler.scheduleAt(transmission(ch, payload, request, 0), { server_us: transmitAt * 1000 });
  if (isStackError(emission)) return emission;
  return planned('rx2', 0, ch, payload, emission, antennaGain, { time: request.absolute_time, gps_time_ms: utcToGpsMs(new Date(transmitAt)) });
}
