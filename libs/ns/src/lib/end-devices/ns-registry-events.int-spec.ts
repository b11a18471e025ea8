import { NS_EVENTS } from '@lorawan/api';
import { describeRegistryEvents } from '@lorawan/registry/conformance';
import { NsModule } from '../ns.module';

/** `ns.end_device.*` through the NsEndDeviceRegistry handlers of a started Network Server (SQLite). */

const KEY = '00112233445566778899AABBCCDDEEFF';
const KEY_2 = '11111111111111111111111111111111';
const ids = (device_id: string) => ({ device_id, application_ids: { application_id: 'app-ns-ev' } });
const abp = (device_id: string, key: string) => ({
  ids: ids(device_id),
  frequency_plan_id: 'EU_863_870_TTN',
  lorawan_version: 'MAC_V1_0_3',
  lorawan_phy_version: 'PHY_V1_0_3_REV_A',
  supports_join: false,
  session: { dev_addr: '26000EE1', keys: { f_nwk_s_int_key: { key } } },
});
const ABP_PATHS = ['frequency_plan_id', 'lorawan_version', 'lorawan_phy_version', 'supports_join', 'session.dev_addr', 'session.keys.f_nwk_s_int_key.key'];

describeRegistryEvents({
  component: 'ns',
  service: 'NsEndDeviceRegistry',
  module: NsModule,
  events: NS_EVENTS.endDevice,
  create: { end_device: abp('ev-1', KEY), paths: ABP_PATHS },
  storedIds: { ...ids('ev-1'), dev_addr: '26000EE1' },
  update: { end_device: { ...abp('ev-1', KEY_2), supports_class_c: true }, paths: ['supports_class_c', 'session.keys.f_nwk_s_int_key.key'] },
  invalid: { end_device: abp('ev-bad', '00000000000000000000000000000000'), paths: ABP_PATHS },
  secrets: [KEY, KEY_2],
});
