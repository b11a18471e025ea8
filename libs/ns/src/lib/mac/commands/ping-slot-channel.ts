import { NS_MAC_EVENTS } from '@lorawan/api';
import { emit, setCurrent, takeRequest } from '../mac-draft';
import { atLeast, enqueue, type MacCommandDefinition, num } from './mac-command';

const E = NS_MAC_EVENTS.pingSlotChannel;

/** PingSlotChannelReq / PingSlotChannelAns (class B devices, LoRaWAN 1.0.3+, TTS `ping_slot_channel.go`): the ping slots' frequency and data rate. */
export const PING_SLOT_CHANNEL: MacCommandDefinition = {
  cid: 'CID_PING_SLOT_CHANNEL',
  events: E,
  enqueue: (draft, budget) => {
    const { current_parameters: c, desired_parameters: d, lorawan_version: v } = draft.state;
    if (!draft.device.supports_class_b || !atLeast(v, 'MAC_V1_0_3')) return;
    const frequency = d.ping_slot_frequency ?? c.ping_slot_frequency;
    const dataRate = d.ping_slot_data_rate_index_value ?? c.ping_slot_data_rate_index_value;
    if (frequency === undefined || dataRate === undefined) return;
    if (String(frequency) === String(c.ping_slot_frequency ?? '') && dataRate === c.ping_slot_data_rate_index_value) return;
    enqueue(draft, budget, [{ cid: 'CID_PING_SLOT_CHANNEL', ping_slot_channel_req: { frequency: String(frequency), data_rate_index: dataRate } }], {
      event: E.request,
      field: 'ping_slot_channel_req',
    });
  },
  uplink: {
    kind: 'answer',
    handle: (draft, ans) => {
      const req = takeRequest(draft, 'CID_PING_SLOT_CHANNEL', 'ping_slot_channel_req');
      if (!(ans.frequency_ack && ans.data_rate_index_ack)) return emit(draft, E.reject, ans);
      setCurrent(draft, { ping_slot_frequency: String(req.frequency), ping_slot_data_rate_index_value: num(req.data_rate_index) });
      emit(draft, E.accept, ans);
    },
  },
};
