import { NS_MAC_EVENTS } from '@lorawan/api';
import { applyLinkAdrChannelMasks, linkAdrChannelMasks, type MacCommandFields } from '@lorawan/lorawan';
import { ErrInvalidMacPayload } from '../errors';
import type { NsMacParameters } from '../../model';
import { addSorted, emit, setCurrent, takeRequest } from '../mac-draft';
import { useAdr } from '../mac-settings';
import { atLeast, enqueue, type MacCommandDefinition, num } from './mac-command';

const E = NS_MAC_EVENTS.linkAdr;

const sameChannels = (a: NsMacParameters['channels'], b: NsMacParameters['channels']) =>
  JSON.stringify((a ?? []).map((c) => c.enable_uplink ?? false)) === JSON.stringify((b ?? []).map((c) => c.enable_uplink ?? false));

/**
 * LinkADRReq / LinkADRAns (TTS `link_adr.go`). Enqueued after NewChannelReq (the mask counts the
 * channels those add): the channels the plan wants, and with ADR its data rate, TX power and
 * NbTrans.
 *
 * The answers come as a block, one per LinkADRReq of the block the network sent (LoRaWAN 1.0.2+
 * answer each; older devices once). All acknowledged: the channel masks, data rate, TX power and
 * NbTrans of the requests hold. Otherwise nothing changes, and a refused data rate or TX power is
 * remembered so ADR does not ask for it again.
 */
export const LINK_ADR: MacCommandDefinition = {
  cid: 'CID_LINK_ADR',
  events: E,
  enqueue: (draft, budget, down) => {
    const { current_parameters: c, desired_parameters: d, lorawan_version: v } = draft.state;
    const adr = useAdr(down.settings);
    const adrChange =
      adr &&
      d.adr_data_rate_index !== undefined &&
      (d.adr_data_rate_index !== c.adr_data_rate_index || d.adr_tx_power_index !== c.adr_tx_power_index || d.adr_nb_trans !== c.adr_nb_trans);
    const channelChange = !sameChannels(c.channels, d.channels);
    if (!adrChange && !channelChange) return;
    const keep = atLeast(v, 'MAC_V1_0_4');
    const dataRate = adr ? (d.adr_data_rate_index ?? 0) : keep ? 15 : (c.adr_data_rate_index ?? 0);
    const txPower = adr ? (d.adr_tx_power_index ?? 0) : keep ? 15 : (c.adr_tx_power_index ?? 0);
    const nbTrans = adr ? (d.adr_nb_trans ?? 1) : (c.adr_nb_trans ?? 1);
    const blocks = linkAdrChannelMasks(
      down.plan.band_id,
      (d.channels ?? []).map((ch) => ch.enable_uplink ?? false),
    );
    const requests = blocks.map((b) => ({
      cid: 'CID_LINK_ADR',
      link_adr_req: {
        data_rate_index: dataRate,
        tx_power_index: txPower,
        nb_trans: nbTrans,
        channel_mask: b.channel_mask,
        channel_mask_control: b.channel_mask_control,
      },
    }));
    enqueue(draft, budget, requests, { event: E.request, field: 'link_adr_req' });
  },
  uplink: {
    kind: 'answer-block',
    handle: (draft, answers, up) => {
      const pending = draft.state.pending_requests ?? [];
      const requests = pending.filter((c) => c.cid === 'CID_LINK_ADR').map((c) => (c.link_adr_req ?? {}) as MacCommandFields);
      if (requests.length === 0) takeRequest(draft, 'CID_LINK_ADR', 'link_adr_req');
      draft.state.pending_requests = pending.filter((c) => c.cid !== 'CID_LINK_ADR');
      const ans = answers[answers.length - 1];
      const last = requests[requests.length - 1];
      if (!(ans.channel_mask_ack && ans.data_rate_index_ack && ans.tx_power_index_ack)) {
        if (!ans.data_rate_index_ack && num(last.data_rate_index) !== 15)
          draft.state.rejected_adr_data_rate_indexes = addSorted(draft.state.rejected_adr_data_rate_indexes, num(last.data_rate_index));
        if (!ans.tx_power_index_ack && num(last.tx_power_index) !== 15)
          draft.state.rejected_adr_tx_power_indexes = addSorted(draft.state.rejected_adr_tx_power_indexes, num(last.tx_power_index));
        return emit(draft, E.reject, ans);
      }
      const current = draft.state.current_parameters;
      const channels = current.channels ?? [];
      const blocks = requests.map((r) => ({
        channel_mask: (r.channel_mask as boolean[] | undefined) ?? [],
        channel_mask_control: num(r.channel_mask_control),
      }));
      const enabled = applyLinkAdrChannelMasks(
        up.plan.band_id,
        channels.map((c) => c.enable_uplink ?? false),
        blocks,
      );
      if (!enabled) throw ErrInvalidMacPayload.with({ reason: 'the acknowledged LinkADRReq channel masks are invalid for the band' });
      const changed: NsMacParameters = { channels: channels.map((c, i) => ({ ...c, enable_uplink: enabled[i] ?? false })) };
      // 15 (LoRaWAN 1.0.4+): keep the current value.
      if (num(last.data_rate_index) !== 15) changed.adr_data_rate_index = num(last.data_rate_index);
      if (num(last.tx_power_index) !== 15) changed.adr_tx_power_index = num(last.tx_power_index);
      changed.adr_nb_trans = num(last.nb_trans) || 1;
      if (JSON.stringify(enabled) !== JSON.stringify(channels.map((c) => c.enable_uplink ?? false))) {
        // The spec: rejected data rates are forgotten when the channels change.
        delete draft.state.rejected_adr_data_rate_indexes;
      }
      setCurrent(draft, changed);
      emit(draft, E.accept, ans);
    },
  },
};
