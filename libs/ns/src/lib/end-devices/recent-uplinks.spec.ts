import type { Device } from '@lorawan/registry';
import { presentNsDevice, uplinkSummary } from './recent-uplinks';

const ids = { device_id: 'dev', application_ids: { application_id: 'app' } };
const recent = (fCnt: number) => ({
  payload: { mac_payload: { f_hdr: { f_cnt: fCnt } } },
  rx_metadata: [{ gateway_ids: { gateway_id: 'gtw' }, snr: 5, uplink_token: 'dG9rZW4=' }],
  correlation_ids: ['gs:uplink:1'],
});

describe('the device’s recent_uplinks', () => {
  it('are the MAC state’s, without uplink tokens and correlation IDs', () => {
    const device = { ids, mac_state: { recent_uplinks: [recent(1), recent(2)] } } as unknown as Device;
    expect(presentNsDevice(device).recent_uplinks).toEqual([
      { payload: { mac_payload: { f_hdr: { f_cnt: 1 } } }, rx_metadata: [{ gateway_ids: { gateway_id: 'gtw' }, snr: 5 }] },
      { payload: { mac_payload: { f_hdr: { f_cnt: 2 } } }, rx_metadata: [{ gateway_ids: { gateway_id: 'gtw' }, snr: 5 }] },
    ]);
    expect(uplinkSummary(recent(3))).not.toHaveProperty('correlation_ids');
  });

  it('a list a client set is shown as set; a device without MAC state uplinks has none', () => {
    const set = { ids, recent_uplinks: [{ payload: {} }], mac_state: { recent_uplinks: [recent(1)] } } as unknown as Device;
    expect(presentNsDevice(set).recent_uplinks).toEqual([{ payload: {} }]);
    expect(presentNsDevice({ ids, mac_state: {} } as unknown as Device)).not.toHaveProperty('recent_uplinks');
  });
});
