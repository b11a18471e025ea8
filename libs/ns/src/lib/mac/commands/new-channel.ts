import { NS_MAC_EVENTS } from '@lorawan/api';
import { getBand, type MacCommandJson } from '@lorawan/lorawan';
import { addSorted, emit, setCurrent, takeRequest } from '../mac-draft';
import { enqueueFitting, type MacCommandDefinition, num } from './mac-command';

const E = NS_MAC_EVENTS.newChannel;

/** NewChannelReq / NewChannelAns (TTS `new_channel.go`): the uplink channels, in bands whose channels the network defines. */
export const NEW_CHANNEL: MacCommandDefinition = {
  cid: 'CID_NEW_CHANNEL',
  events: E,
  enqueue: (draft, budget, down) => {
    if (getBand(down.plan.band_id).cf_list_type !== 'FREQUENCIES') return;
    const { current_parameters: c, desired_parameters: d } = draft.state;
    const current = c.channels ?? [];
    const desired = d.channels ?? [];
    const rejected = new Set(draft.state.rejected_frequencies ?? []);
    const requests: MacCommandJson[] = [];
    for (let i = 0; i < Math.max(current.length, desired.length); i++) {
      const want = desired[i];
      const have = current[i];
      if (!want) {
        if (have?.enable_uplink) requests.push({ cid: 'CID_NEW_CHANNEL', new_channel_req: { channel_index: i, frequency: '0' } });
        continue;
      }
      if (
        have &&
        have.uplink_frequency === want.uplink_frequency &&
        have.min_data_rate_index === want.min_data_rate_index &&
        have.max_data_rate_index === want.max_data_rate_index
      )
        continue;
      if (!want.uplink_frequency || rejected.has(want.uplink_frequency)) continue;
      requests.push({
        cid: 'CID_NEW_CHANNEL',
        new_channel_req: {
          channel_index: i,
          frequency: want.uplink_frequency,
          min_data_rate_index: want.min_data_rate_index ?? 0,
          max_data_rate_index: want.max_data_rate_index ?? 0,
        },
      });
    }
    enqueueFitting(draft, budget, requests, E.request, 'new_channel_req');
  },
  uplink: {
    kind: 'answer',
    handle: (draft, ans) => {
      const req = takeRequest(draft, 'CID_NEW_CHANNEL', 'new_channel_req');
      const frequency = String(req.frequency ?? '0');
      if (!(ans.frequency_ack && ans.data_rate_ack)) {
        if (!ans.frequency_ack) draft.state.rejected_frequencies = addSorted(draft.state.rejected_frequencies, frequency);
        return emit(draft, E.reject, ans);
      }
      const index = num(req.channel_index);
      const channels = [...(draft.state.current_parameters.channels ?? [])];
      if (frequency === '0') {
        if (channels[index]) channels[index] = { ...channels[index], enable_uplink: false };
      } else {
        while (channels.length < index) channels.push({ uplink_frequency: '0', downlink_frequency: '0', min_data_rate_index: 0, max_data_rate_index: 0 });
        channels[index] = {
          ...channels[index],
          uplink_frequency: frequency,
          downlink_frequency:
            channels[index]?.downlink_frequency && channels[index].uplink_frequency === frequency ? channels[index].downlink_frequency : frequency,
          min_data_rate_index: num(req.min_data_rate_index),
          max_data_rate_index: num(req.max_data_rate_index),
          enable_uplink: true,
        };
      }
      setCurrent(draft, { channels });
      emit(draft, E.accept, ans);
    },
  },
};
