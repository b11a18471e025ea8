import { type FrequencyPlan, getFrequencyPlan } from '@lorawan/lorawan';
import { expectedDownlinkDwellTime, expectedUplinkDwellTime } from '../mac-state/dwell-time';
import { newMacState } from '../mac-state/new-mac-state';
import type { NsMacState } from '../model';
import { classADataWindows, joinAcceptCarriesCfList, joinAcceptWindows, windowsCarrying } from './class-a-windows';

const plan = (id: string): FrequencyPlan => {
  const found = getFrequencyPlan(id);
  if (!found) throw new Error(`no plan ${id}`);
  return found;
};

/** A device just joined on `p`; `downlinkDwellTime` as a TxParamSetupAns would have confirmed it (undefined: not yet). */
function joined(p: FrequencyPlan, downlinkDwellTime?: boolean): NsMacState {
  const state = newMacState({ lorawan_version: 'MAC_V1_0_3', frequencyPlan: p });
  return downlinkDwellTime === undefined ? state : { ...state, current_parameters: { ...state.current_parameters, downlink_dwell_time: downlinkDwellTime } };
}

/** Data rate and largest FRMPayload (M − 8 of RP002's AS923 tables) of each window. */
const summary = (w: ReturnType<typeof classADataWindows>) => ({
  rx1: w.rx1 && [w.rx1.data_rate_index, w.rx1.max_frm_payload],
  rx2: w.rx2 && [w.rx2.data_rate_index, w.rx2.max_frm_payload],
});

describe('class A data downlink windows under the downlink dwell time', () => {
  const as923 = plan('AS_923');
  const up = (dataRateIndex: number) => ({ frequency: '923200000', data_rate_index: dataRateIndex });

  it('AS923 with the limit unconfirmed: the plan sets nothing, so the limit applies (DR2 carries 11 bytes, not 115)', () => {
    expect(as923.dwell_time).toBeUndefined();
    expect(expectedDownlinkDwellTime(joined(as923), as923)).toBe(true);
    expect(summary(classADataWindows(as923, joined(as923), up(2)))).toEqual({ rx1: [2, 11], rx2: [2, 11] });
    expect(summary(classADataWindows(as923, joined(as923), up(5)))).toEqual({ rx1: [5, 242], rx2: [2, 11] });
  });

  it('AS923 with the limit unconfirmed: no RX1 where its data rate depends on it (uplink DR0/DR1), as TTS', () => {
    expect(summary(classADataWindows(as923, joined(as923), up(0)))).toEqual({ rx1: undefined, rx2: [2, 11] });
    expect(summary(classADataWindows(as923, joined(as923), up(1)))).toEqual({ rx1: undefined, rx2: [2, 11] });
  });

  it('AS923 after TxParamSetupAns without the limit: RX1 follows the uplink down to DR0, DR2 carries 115 bytes', () => {
    const state = joined(as923, false);
    expect(expectedDownlinkDwellTime(state, as923)).toBe(false);
    expect(summary(classADataWindows(as923, state, up(0)))).toEqual({ rx1: [0, 51], rx2: [2, 115] });
    expect(summary(classADataWindows(as923, state, up(2)))).toEqual({ rx1: [2, 115], rx2: [2, 115] });
  });

  it('AS923 after TxParamSetupAns with the limit: RX1 no lower than DR2, DR3 carries 53 bytes', () => {
    const state = joined(as923, true);
    expect(summary(classADataWindows(as923, state, up(0)))).toEqual({ rx1: [2, 11], rx2: [2, 11] });
    const offset = { ...state, current_parameters: { ...state.current_parameters, rx1_data_rate_offset: 2 } };
    expect(summary(classADataWindows(as923, offset, up(5)))).toEqual({ rx1: [3, 53], rx2: [2, 11] });
  });

  it('a plan that lifts the limit gives the sizes without it before the device confirms, still without a dwell-dependent RX1', () => {
    const lifted: FrequencyPlan = { ...as923, id: 'AS_923_NDT', dwell_time: { uplinks: false, downlinks: false } };
    expect([expectedDownlinkDwellTime(joined(lifted), lifted), expectedUplinkDwellTime(joined(lifted), lifted)]).toEqual([false, false]);
    expect(summary(classADataWindows(lifted, joined(lifted), up(2)))).toEqual({ rx1: [2, 115], rx2: [2, 115] });
    expect(summary(classADataWindows(lifted, joined(lifted), up(0)))).toEqual({ rx1: undefined, rx2: [2, 115] });
  });

  it('bands without a dwell-time table are unaffected (EU868 RX2 SF12: 51 bytes; US915 RX1 DR10: 242; CN470 RX1 on its downlink channel)', () => {
    const eu = plan('EU_863_870');
    expect(summary(classADataWindows(eu, joined(eu), { frequency: '868100000', data_rate_index: 0 }))).toEqual({ rx1: [0, 51], rx2: [0, 51] });
    const us = plan('US_902_928_FSB_2');
    expect(summary(classADataWindows(us, joined(us), { frequency: '903900000', data_rate_index: 0 }))).toEqual({ rx1: [10, 242], rx2: [8, 53] });
    const cn = plan('CN_470_510_FSB_11');
    const cnWindows = classADataWindows(cn, joined(cn), { frequency: '486300000', data_rate_index: 3 });
    expect([cnWindows.rx1?.frequency, summary(cnWindows)]).toEqual(['506700000', { rx1: [3, 115], rx2: [0, 51] }]);
  });

  it('the uplink dwell time: confirmed, else the plan, else on', () => {
    const us = plan('US_902_928_FSB_2');
    expect(expectedUplinkDwellTime(joined(us), us)).toBe(true);
    expect(expectedUplinkDwellTime(undefined, as923)).toBe(true);
    const state = joined(as923);
    expect(expectedUplinkDwellTime({ ...state, current_parameters: { ...state.current_parameters, uplink_dwell_time: false } }, as923)).toBe(false);
  });

  it('join-accepts: the windows of a fresh MAC state, and a CFList only where a window carries 33 bytes', () => {
    const fresh = joined(as923);
    const dr5 = joinAcceptWindows(as923, fresh, up(5));
    expect([dr5.rx1?.delay, dr5.rx2?.delay, summary(dr5)]).toEqual([5, 6, { rx1: [5, 242], rx2: [2, 11] }]);
    // M 250 in RX1 and 19 in RX2 (DR2 under the limit): a 33-byte join-accept goes in RX1 only, a 17-byte one in both.
    expect(summary(windowsCarrying(dr5, 33))).toEqual({ rx1: [5, 242], rx2: undefined });
    expect(summary(windowsCarrying(dr5, 17))).toEqual(summary(dr5));
    expect(joinAcceptCarriesCfList(as923, fresh, up(5))).toBe(true);
    expect(joinAcceptCarriesCfList(as923, fresh, up(3))).toBe(true);
    expect(joinAcceptCarriesCfList(as923, fresh, up(2))).toBe(false);
    // DR0: RX1 depends on the unconfirmed dwell time and is left out; RX2 DR2 carries 19 bytes.
    expect(summary(joinAcceptWindows(as923, fresh, up(0)))).toEqual({ rx1: undefined, rx2: [2, 11] });
    expect(joinAcceptCarriesCfList(as923, fresh, up(0))).toBe(false);
    const eu = plan('EU_863_870');
    expect(joinAcceptCarriesCfList(eu, joined(eu), { frequency: '868100000', data_rate_index: 0 })).toBe(true);
  });
});
