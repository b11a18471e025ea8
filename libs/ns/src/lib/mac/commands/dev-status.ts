import { NS_MAC_EVENTS } from '@lorawan/api';
import { ErrInvalidMacPayload } from '../errors';
import { emit, takeRequest } from '../mac-draft';
import { statusCountPeriodicity, statusTimePeriodicityMs } from '../mac-settings';
import { enqueue, type MacCommandDefinition, num } from './mac-command';

const E = NS_MAC_EVENTS.devStatus;

/**
 * DevStatusReq / DevStatusAns (TTS `dev_status.go`): asked when no status was received, every
 * `status_count_periodicity` uplinks or `status_time_periodicity` (DeviceNeedsDevStatusReq); the
 * answer sets the device's battery, power state and downlink margin.
 */
export const DEV_STATUS: MacCommandDefinition = {
  cid: 'CID_DEV_STATUS',
  events: E,
  enqueue: (draft, budget, down) => {
    const count = statusCountPeriodicity(down.settings);
    const time = statusTimePeriodicityMs(down.settings);
    const lastAt = draft.device.last_dev_status_received_at;
    const needs =
      ((count !== 0 || time !== 0) && !lastAt) ||
      (count !== 0 && (draft.state.last_dev_status_f_cnt_up ?? 0) + count <= down.f_cnt_up) ||
      (time !== 0 && lastAt !== undefined && Date.parse(lastAt) + time <= down.now);
    if (!needs) return;
    enqueue(draft, budget, [{ cid: 'CID_DEV_STATUS', dev_status_req: {} }], { event: E.request, field: 'dev_status_req' });
  },
  uplink: {
    kind: 'answer',
    handle: (draft, ans, up) => {
      takeRequest(draft, 'CID_DEV_STATUS', 'dev_status_req');
      const battery = num(ans.battery);
      const margin = num(ans.margin);
      if (!Number.isInteger(battery) || battery < 0 || battery > 255 || !Number.isInteger(margin) || margin < -32 || margin > 31)
        throw ErrInvalidMacPayload.with({ reason: 'DevStatusAns battery must be 0..255 and margin −32..31' });
      // dataplane-notes §4.4: 0 external power, 255 unknown, 1..254 the battery level.
      const device = draft.device;
      delete device.battery_percentage;
      if (battery === 0) device.power_state = 'POWER_EXTERNAL';
      else if (battery === 255) device.power_state = 'POWER_UNKNOWN';
      else {
        device.power_state = 'POWER_BATTERY';
        device.battery_percentage = (battery - 1) / 253;
      }
      device.downlink_margin = margin;
      device.last_dev_status_received_at = up.received_at;
      draft.state.last_dev_status_f_cnt_up = up.f_cnt;
      emit(draft, E.answer, ans);
    },
  },
};
