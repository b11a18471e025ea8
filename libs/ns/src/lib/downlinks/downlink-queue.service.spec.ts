import { minFCntDown } from './downlink-queue.service';

/** The lowest FCnt the NS accepts for a session's application downlinks (TTS `grpc_asns.go` minAFCntDown). */
describe('minFCntDown', () => {
  const recent = (fCnt: number, fPort?: number) => ({ payload: { mac_payload: { full_f_cnt: fCnt, ...(fPort !== undefined ? { f_port: fPort } : {}) } } });
  const joinAccept = { payload: { m_hdr: { m_type: 'JOIN_ACCEPT' } } };

  it('is 0 without a session or MAC state, or before any downlink', () => {
    expect(minFCntDown(undefined, {}, 'MAC_V1_0_3')).toBe(0);
    expect(minFCntDown({}, undefined, 'MAC_V1_0_3')).toBe(0);
    expect(minFCntDown({ last_n_f_cnt_down: 0 }, {}, 'MAC_V1_0_3')).toBe(0);
    expect(minFCntDown({}, { recent_downlinks: [] }, 'MAC_V1_1')).toBe(0);
  });

  it('1.0.x shares FCntDown: above the last NFCntDown, AFCntDown and recent downlink, FCnt 0 included once sent', () => {
    expect(minFCntDown({ last_n_f_cnt_down: 5 }, {}, 'MAC_V1_0_3')).toBe(6);
    expect(minFCntDown({ last_n_f_cnt_down: 5, last_a_f_cnt_down: 9 }, {}, 'MAC_V1_0_2')).toBe(10);
    expect(minFCntDown({ last_n_f_cnt_down: 0 }, { recent_downlinks: [recent(0)] }, 'MAC_V1_0_3')).toBe(1);
    expect(minFCntDown({ last_n_f_cnt_down: 3 }, { recent_downlinks: [recent(12, 0)] }, 'MAC_V1_0_4')).toBe(13);
  });

  it('1.1: above the last application downlink since the join (FPort > 0), NFCntDown not counted', () => {
    expect(minFCntDown({ last_n_f_cnt_down: 40 }, { recent_downlinks: [recent(7, 2), recent(8, 0)] }, 'MAC_V1_1')).toBe(8);
    expect(minFCntDown({ last_n_f_cnt_down: 40 }, { recent_downlinks: [recent(7, 2), joinAccept, recent(3, 0)] }, 'MAC_V1_1')).toBe(0);
  });

  it('is above the last queued downlink', () => {
    expect(minFCntDown({ last_n_f_cnt_down: 5, queued_application_downlinks: [{ f_cnt: 6 }, { f_cnt: 20 }] }, {}, 'MAC_V1_0_3')).toBe(21);
    expect(minFCntDown({ last_n_f_cnt_down: 30, queued_application_downlinks: [{ f_cnt: 20 }] }, {}, 'MAC_V1_0_3')).toBe(31);
  });
});
