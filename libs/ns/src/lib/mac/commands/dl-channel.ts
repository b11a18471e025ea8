import { NS_MAC_EVENTS } from '@lorawan/api';
import { getBand, type MacCommandJson } from '@lorawan/lorawan';
import { ErrInvalidMacPayload } from '../errors';
import { addSorted, emit, setCurrent, takeRequest } from '../mac-draft';
import { atLeast, enqueueFitting, type MacCommandDefinition, num } from './mac-command';

const E = NS_MAC_EVENTS.dlChannel;

/** DlChannelReq / DlChannelAns (LoRaWAN 1.0.2+, bands whose channels the network defines; TTS `dl_channel.go`): a channel's downlink frequency. */
export const DL_CHANNEL: MacCommandDefinition = {
  cid: 'CID_DL_CHANNEL',
  events: E,
  enqueue: (draft, budget, down) => {
    const { current_parameters: c, desired_parameters: d, lorawan_version: v } = draft.state;
    if (getBand(down.plan.band_id).cf_list_type !== 'FREQUENCIES' || !atLeast(v, 'MAC_V1_0_2')) return;
    const rejected = new Set(draft.state.rejected_frequencies ?? []);
    const requests: MacCommandJson[] = [];
    (d.channels ?? []).forEach((want, i) => {
      const have = (c.channels ?? [])[i];
      const downlinkFrequency = want.downlink_frequency;
      if (!have || have.uplink_frequency !== want.uplink_frequency || !downlinkFrequency) return;
      if (have.downlink_frequency === downlinkFrequency || rejected.has(downlinkFrequency)) return;
      requests.push({ cid: 'CID_DL_CHANNEL', dl_channel_req: { channel_index: i, frequency: downlinkFrequency } });
    });
    enqueueFitting(draft, budget, requests, E.request, 'dl_channel_req');
  },
  uplink: {
    kind: 'answer',
    handle: (draft, ans) => {
      const req = takeRequest(draft, 'CID_DL_CHANNEL', 'dl_channel_req');
      const frequency = String(req.frequency ?? '0');
      if (!(ans.channel_index_ack && ans.frequency_ack)) {
        if (!ans.frequency_ack) draft.state.rejected_frequencies = addSorted(draft.state.rejected_frequencies, frequency);
        return emit(draft, E.reject, ans);
      }
      const index = num(req.channel_index);
      const channels = [...(draft.state.current_parameters.channels ?? [])];
      if (!channels[index]) throw ErrInvalidMacPayload.with({ reason: `DlChannelAns for channel ${index}, which the device does not have` });
      channels[index] = { ...channels[index], downlink_frequency: frequency };
      setCurrent(draft, { channels });
      emit(draft, E.accept, ans);
    },
  },
};
