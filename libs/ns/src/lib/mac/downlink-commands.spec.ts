import { encodeMacCommands, type FrequencyPlan, getFrequencyPlan, parseMacCommands } from '@lorawan/lorawan';
import { newMacState } from '../mac-state/new-mac-state';
import { downlinkCommands, type MacDownlink } from './downlink-commands';
import type { NsDevice, NsMacState } from '../model';
import { macDraft } from './mac-draft';

const eu = getFrequencyPlan('EU_863_870_TTN') as FrequencyPlan;

function draftFor(state: Partial<NsMacState> = {}, fields: Record<string, unknown> = {}, version = 'MAC_V1_0_3', plan = eu) {
  const fresh = newMacState({ lorawan_version: version, frequencyPlan: plan }) as unknown as NsMacState;
  // A device that took its join-accept: on the plan's channels and RX2 already.
  const base: NsMacState = { ...fresh, current_parameters: { ...fresh.desired_parameters } };
  const mac = { ...base, ...state, current_parameters: { ...base.current_parameters, ...state.current_parameters } };
  const device = { ids: { device_id: 'dev' }, lorawan_version: version, last_dev_status_received_at: '2026-11-24T09:00:00Z', ...fields, mac_state: mac };
  return macDraft(device as unknown as NsDevice, mac);
}

const down = (fields: Partial<MacDownlink> = {}): MacDownlink => ({
  plan: eu,
  settings: {},
  now: Date.parse('2026-11-24T10:00:00Z'),
  f_cnt_up: 10,
  max_down: 51,
  max_up: 51,
  ...fields,
});
const cids = (r: ReturnType<typeof downlinkCommands>) => r.commands.map((c) => c.cid);

describe('downlinkCommands', () => {
  it('nothing to say: no commands, nothing pending', () => {
    const draft = draftFor();
    const r = downlinkCommands(draft, down());
    expect(r).toEqual({ commands: [], f_pending: false });
    expect(draft.state.pending_requests).toEqual([]);
  });

  it('answers first, then a request for each desired parameter that is not current; the requests become pending_requests', () => {
    const draft = draftFor({
      queued_responses: [{ cid: 'CID_DEVICE_TIME', device_time_ans: { time: '2026-11-24T10:00:00Z' } }],
      desired_parameters: { ...draftFor().state.desired_parameters, rx1_delay: 5, max_duty_cycle: 'DUTY_CYCLE_2', rx2_data_rate_index: 1 },
    });
    const r = downlinkCommands(draft, down());
    expect(cids(r)).toEqual(['CID_DEVICE_TIME', 'CID_DUTY_CYCLE', 'CID_RX_PARAM_SETUP', 'CID_RX_TIMING_SETUP']);
    expect(draft.state.pending_requests?.map((c) => c.cid)).toEqual(['CID_DUTY_CYCLE', 'CID_RX_PARAM_SETUP', 'CID_RX_TIMING_SETUP']);
    expect(draft.state.queued_responses).toEqual([]);
    expect(r.commands[2]).toEqual({
      cid: 'CID_RX_PARAM_SETUP',
      rx_param_setup_req: { rx1_data_rate_offset: 0, rx2_data_rate_index: 1, rx2_frequency: '869525000' },
    });
    expect(draft.events.map((e) => e.event.name)).toEqual(['ns.mac.duty_cycle.request', 'ns.mac.rx_param_setup.request', 'ns.mac.rx_timing_setup.request']);
    // What goes on air reads back as sent.
    const bytes = encodeMacCommands(r.commands, 'downlink');
    expect(encodeMacCommands(parseMacCommands(bytes, 'downlink').commands, 'downlink')).toEqual(bytes);
  });

  it('what does not fit waits for the next downlink: FPending', () => {
    const draft = draftFor({ desired_parameters: { ...draftFor().state.desired_parameters, rx1_delay: 5, max_duty_cycle: 'DUTY_CYCLE_2' } });
    const r = downlinkCommands(draft, down({ max_down: 3 }));
    expect(cids(r)).toEqual(['CID_DUTY_CYCLE']);
    expect(r.f_pending).toBe(true);
  });

  it('a request whose answer would not fit in the device\u2019s next uplink waits too', () => {
    const draft = draftFor({ desired_parameters: { ...draftFor().state.desired_parameters, rx2_data_rate_index: 1 } });
    const r = downlinkCommands(draft, down({ max_up: 1 }));
    expect(r.commands).toEqual([]);
    expect(r.f_pending).toBe(true);
  });

  it('NewChannelReq for the plan\u2019s channels a device booted without (EU, ABP), then LinkADRReq enabling them', () => {
    const fresh = newMacState({ lorawan_version: 'MAC_V1_0_3', frequencyPlan: eu }) as unknown as NsMacState;
    const draft = macDraft({ ids: { device_id: 'abp' }, last_dev_status_received_at: '2026-11-24T09:00:00Z' } as unknown as NsDevice, {
      ...fresh,
      desired_parameters: { ...fresh.desired_parameters, rx2_data_rate_index: 0 },
    });
    const r = downlinkCommands(draft, down({ max_down: 242, max_up: 242 }));
    expect(cids(r)).toEqual(['CID_NEW_CHANNEL', 'CID_NEW_CHANNEL', 'CID_NEW_CHANNEL', 'CID_NEW_CHANNEL', 'CID_NEW_CHANNEL', 'CID_LINK_ADR']);
    expect(r.commands[0]).toEqual({
      cid: 'CID_NEW_CHANNEL',
      new_channel_req: { channel_index: 3, frequency: '867100000', min_data_rate_index: 0, max_data_rate_index: 5 },
    });
  });

  it('frequencies the device refused are not asked again', () => {
    const fresh = newMacState({ lorawan_version: 'MAC_V1_0_3', frequencyPlan: eu }) as unknown as NsMacState;
    const draft = macDraft({ ids: { device_id: 'abp' }, last_dev_status_received_at: '2026-11-24T09:00:00Z' } as unknown as NsDevice, {
      ...fresh,
      desired_parameters: { ...fresh.desired_parameters, rx2_data_rate_index: 0 },
      rejected_frequencies: ['867100000', '867300000'],
    });
    const r = downlinkCommands(draft, down({ max_down: 242, max_up: 242 }));
    const asked = r.commands.filter((c) => c.cid === 'CID_NEW_CHANNEL').map((c) => (c.new_channel_req as { frequency: string }).frequency);
    expect(asked).toEqual(['867500000', '867700000', '867900000']);
  });

  it('LinkADRReq with ADR: the desired data rate, power and NbTrans; without ADR none', () => {
    const desired = { ...draftFor().state.desired_parameters, adr_data_rate_index: 5, adr_tx_power_index: 1, adr_nb_trans: 1 };
    const withAdr = downlinkCommands(draftFor({ desired_parameters: desired }), down());
    expect(withAdr.commands).toHaveLength(1);
    expect(withAdr.commands[0]).toMatchObject({
      cid: 'CID_LINK_ADR',
      link_adr_req: { data_rate_index: 5, tx_power_index: 1, nb_trans: 1, channel_mask_control: 0 },
    });
    expect((withAdr.commands[0].link_adr_req as { channel_mask: boolean[] }).channel_mask.slice(0, 9)).toEqual([
      true,
      true,
      true,
      true,
      true,
      true,
      true,
      true,
      false,
    ]);
    expect(downlinkCommands(draftFor({ desired_parameters: desired }), down({ settings: { use_adr: false } })).commands).toEqual([]);
  });

  describe('DevStatusReq (status_count_periodicity / status_time_periodicity)', () => {
    const needs = (fields: Record<string, unknown>, state: Partial<NsMacState>, d: Partial<MacDownlink>) =>
      cids(downlinkCommands(draftFor(state, fields), down(d))).includes('CID_DEV_STATUS');
    it('when no status was ever received', () => expect(needs({ last_dev_status_received_at: undefined }, {}, {})).toBe(true));
    it('every status_count_periodicity uplinks', () => {
      expect(needs({}, { last_dev_status_f_cnt_up: 5 }, { f_cnt_up: 8, settings: { status_count_periodicity: 3 } })).toBe(true);
      expect(needs({}, { last_dev_status_f_cnt_up: 5 }, { f_cnt_up: 7, settings: { status_count_periodicity: 3 } })).toBe(false);
    });
    it('every status_time_periodicity', () => {
      expect(needs({}, { last_dev_status_f_cnt_up: 10 }, { settings: { status_time_periodicity: '3600s' } })).toBe(true);
      expect(needs({}, { last_dev_status_f_cnt_up: 10 }, { settings: { status_time_periodicity: '3601s' } })).toBe(false);
    });
    it('never with both periodicities 0', () =>
      expect(needs({ last_dev_status_received_at: undefined }, {}, { settings: { status_count_periodicity: 0, status_time_periodicity: '0s' } })).toBe(false));
  });

  it('LoRaWAN 1.1 only: ADRParamSetupReq and RejoinParamSetupReq', () => {
    const desired = { adr_ack_limit_exponent: 'ADR_ACK_LIMIT_128', rejoin_count_periodicity: 'REJOIN_COUNT_32' };
    const of = (version: string) => {
      const base = draftFor({}, {}, version).state;
      return cids(downlinkCommands(draftFor({ desired_parameters: { ...base.desired_parameters, ...desired } }, {}, version), down()));
    };
    expect(of('MAC_V1_1')).toEqual(['CID_ADR_PARAM_SETUP', 'CID_REJOIN_PARAM_SETUP']);
    expect(of('MAC_V1_0_3')).toEqual([]);
  });
});
