import { deepFreeze, type FrequencyPlan, getFrequencyPlan, type MACPayload } from '@lorawan/lorawan';
import { ErrFCntReplay } from '../errors';
import { newMacState } from '../mac-state/new-mac-state';
import type { NsDevice } from '../model';
import { applyUplink, type DataUplink, type UplinkContext } from './apply-uplink';

const plan = getFrequencyPlan('EU_863_870_TTN') as FrequencyPlan;
const ids = { device_id: 'dev', application_ids: { application_id: 'app' } };
const session = { dev_addr: '26000001', keys: { session_key_id: 'c2sx' }, last_f_cnt_up: 41 };
const context: UplinkContext = { plan, recentUplinks: 20, macDefaults: {} };

function frame(fCnt: number, fCtrl: Partial<MACPayload['f_hdr']['f_ctrl']> = {}): MACPayload {
  return {
    f_hdr: { dev_addr: '26000001', f_ctrl: { adr: false, ack: false, ...fCtrl }, f_cnt: fCnt, f_opts: Buffer.alloc(0) },
    f_port: 1,
    frm_payload: Buffer.from('AQ==', 'base64'),
  };
}

function uplink(
  fCnt: number,
  o: { which?: DataUplink['match']['which']; retransmission?: boolean; fCtrl?: Partial<MACPayload['f_hdr']['f_ctrl']> } = {},
): DataUplink {
  return {
    match: { which: o.which ?? 'session', session, f_cnt: fCnt, retransmission: o.retransmission ?? false, data_rate_index: 5 },
    message: {
      received_at: '2026-11-28T07:00:00.000Z',
      settings: { frequency: '868100000', data_rate: { lora: { spreading_factor: 7, bandwidth: 125000 } } },
      rx_metadata: [{ gateway_ids: { gateway_id: 'gtw' }, snr: 7, uplink_token: 'dG9rZW4=' }],
      correlation_ids: ['gs:uplink:1'],
    },
    payload: frame(fCnt, o.fCtrl),
    commands: { commands: [] },
  };
}

/** Deeply frozen: applying an uplink that changed the stored device in place throws. */
function device(fields: Partial<NsDevice> = {}): NsDevice {
  return deepFreeze({
    ids,
    lorawan_version: 'MAC_V1_0_3',
    frequency_plan_id: plan.id,
    supports_join: true,
    session,
    mac_state: newMacState({ lorawan_version: 'MAC_V1_0_3', frequencyPlan: plan }),
    ...fields,
  });
}

function refusal(run: () => unknown): unknown {
  try {
    run();
  } catch (err) {
    return err;
  }
  return undefined;
}

describe('applyUplink', () => {
  it('counts the uplink and keeps it in the MAC state, leaving the stored device as it was', () => {
    const stored = device();
    const { device: next, answered } = applyUplink(stored, uplink(42), context);
    expect(next.session?.last_f_cnt_up).toBe(42);
    expect(next.mac_state?.rx_windows_available).toBe(true);
    expect(next.mac_state?.recent_uplinks).toHaveLength(1);
    expect(next.mac_state?.recent_uplinks?.[0].correlation_ids).toEqual(['gs:uplink:1']);
    // Without the ADR bit, the ADR uplinks start again.
    expect(next.recent_adr_uplinks).toEqual([]);
    expect(answered).toBeUndefined();
    expect(stored.session?.last_f_cnt_up).toBe(41);
  });

  it('refuses an FCnt behind the session’s, and a new frame on its latest FCnt', () => {
    expect(ErrFCntReplay.matches(refusal(() => applyUplink(device(), uplink(40), context)))).toBe(true);
    expect(ErrFCntReplay.matches(refusal(() => applyUplink(device(), uplink(41), context)))).toBe(true);
    expect(applyUplink(device(), uplink(41, { retransmission: true }), context).device.session?.last_f_cnt_up).toBe(41);
  });

  it('makes a pending session current, with what the join-accept told the device', () => {
    const pending = {
      ...newMacState({ lorawan_version: 'MAC_V1_0_3', frequencyPlan: plan }),
      pending_join_request: { rx_delay: 5, downlink_settings: { rx1_dr_offset: 2 } },
    };
    const joined = device({ session: undefined, pending_session: { ...session, last_f_cnt_up: undefined }, mac_state: undefined, pending_mac_state: pending });
    const { device: next } = applyUplink(joined, uplink(0, { which: 'pending_session' }), context);
    expect(next.pending_session).toBeUndefined();
    expect(next.pending_mac_state).toBeUndefined();
    expect(next.session).toMatchObject({ dev_addr: '26000001', last_f_cnt_up: 0 });
    expect(next.ids.dev_addr).toBe('26000001');
    expect(next.mac_state?.current_parameters).toMatchObject({ rx1_delay: 5, rx1_data_rate_offset: 2 });
    expect(next.mac_state?.pending_join_request).toBeUndefined();
  });

  it('answers a confirmed downlink that waited with the ACK bit, except in a retransmission', () => {
    const downlink = { f_port: 1, f_cnt: 3, confirmed: true, session_key_id: 'c2sx' };
    const waiting = device({ mac_state: { ...newMacState({ lorawan_version: 'MAC_V1_0_3', frequencyPlan: plan }), pending_application_downlink: downlink } });
    const acked = applyUplink(waiting, uplink(42, { fCtrl: { ack: true } }), context);
    expect(acked.answered).toEqual({ downlink, acked: true });
    expect(acked.device.mac_state?.pending_application_downlink).toBeUndefined();
    expect(applyUplink(waiting, uplink(41, { retransmission: true }), context).answered).toBeUndefined();
  });
});
