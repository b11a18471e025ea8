import type { TxRequest } from '@lorawan/api';
import { isStackError, type StackError } from '@lorawan/errors';
import { type FrequencyPlan, utcToGpsMs } from '@lorawan/lorawan';
import { ErrNoAbsoluteTime, ErrNoGpsSync, ErrTooLate } from '../errors';
import { toTxpk } from '../io/udp/txpk';
import { type PlannedDownlink, rx2Channel, SCHEDULE_MARGIN_MS } from './class-a-downlink';

/**
 * A class B downlink: sent in the ping slot the NS chose, at the request's `absolute_time` (TTS
 * `pkg/gatewayserver/io` ScheduleDown, `Class_CLASS_B`). As TTS, the NS puts the ping slot's
 * frequency and data rate in the RX2 fields. A Semtech forwarder sends at an absolute time only as
 * `tmms`, GPS ms (PROTOCOL.TXT §6; TTS `udp/translation.go` FromDownlinkMessage: ToGPS of the
 * time), which it honours only with a GPS fix, so the gateway must have reported GPS time
 * (`gpsSynced`, TTS IsGatewayTimeSynced). The power is the sub-band's limit, as in the other classes.
 */
export function planClassBDownlink(
  payload: Buffer,
  request: TxRequest,
  plan: FrequencyPlan,
  gpsSynced: boolean,
  now = Date.now(),
  antennaGain = 0,
): PlannedDownlink | StackError {
  const transmitAt = request.absolute_time === undefined ? Number.NaN : Date.parse(request.absolute_time);
  if (!Number.isFinite(transmitAt)) return ErrNoAbsoluteTime.with();
  if (!gpsSynced) return ErrNoGpsSync.with();
  const channel = rx2Channel(request, plan);
  if (isStackError(channel)) return channel;
  const { frequency, rate, eirp } = channel;
  if (transmitAt - now < SCHEDULE_MARGIN_MS) return ErrTooLate.with({ delay_ms: transmitAt - now, min_ms: SCHEDULE_MARGIN_MS });
  return {
    window: 'rx2',
    delay: 0,
    time: request.absolute_time,
    frequency,
    data_rate: rate,
    eirp,
    transmit_at_ms: transmitAt,
    payload,
    txpk: toTxpk({ payload, frequency, data_rate: rate, eirp, antenna_gain: antennaGain, gps_time_ms: utcToGpsMs(new Date(transmitAt)) }),
  };
}
