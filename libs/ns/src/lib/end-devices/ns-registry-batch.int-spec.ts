import { describeRegistryBatch } from '@lorawan/registry/conformance';
import { NsModule } from '../ns.module';
import { NS_MIGRATIONS } from '../migrations';
import { NS_REGISTRY_POLICY } from './ns-registry.policy';

/** NsEndDeviceBatchRegistry: the Network Server's batch Set and Delete (MySQL, SQLite, and through its handlers). */

const KEY = '00112233445566778899AABBCCDDEEFF';
const devAddr = (n: number) => `2600${n.toString(16).toUpperCase().padStart(4, '0')}`;
const abp = (application_id: string, device_id: string, n: number, key: string) => ({
  ids: { device_id, application_ids: { application_id }, dev_eui: `70B3D57ED0${n.toString(16).toUpperCase().padStart(6, '0')}`, join_eui: '70B3D57ED0000000' },
  frequency_plan_id: 'EU_863_870_TTN',
  lorawan_version: 'MAC_V1_0_3',
  lorawan_phy_version: 'PHY_V1_0_3_REV_A',
  supports_join: false,
  session: { dev_addr: devAddr(n), keys: { f_nwk_s_int_key: { key } } },
});
const PATHS = ['frequency_plan_id', 'lorawan_version', 'lorawan_phy_version', 'supports_join', 'session.dev_addr', 'session.keys.f_nwk_s_int_key.key'];

describeRegistryBatch({
  component: 'ns',
  service: 'NsEndDeviceRegistry',
  migrations: NS_MIGRATIONS,
  policy: NS_REGISTRY_POLICY,
  module: NsModule,
  device: (app, dev, n) => ({ end_device: abp(app, dev, n, KEY), paths: PATHS }),
  invalid: (app, dev) => ({ end_device: abp(app, dev, 999, '0'.repeat(32)), paths: PATHS }),
  invalidError: 'field_value',
  uniqueEuis: true,
  sessionDevAddr: devAddr,
});
