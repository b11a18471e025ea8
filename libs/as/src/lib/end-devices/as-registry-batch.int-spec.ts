import { describeRegistryBatch } from '@lorawan/registry/conformance';
import { AsModule } from '../as.module';
import { AS_MIGRATIONS } from '../migrations';
import { AS_REGISTRY_POLICY } from './as-registry.policy';

/** AsEndDeviceBatchRegistry: the Application Server's batch Set and Delete (MySQL, SQLite, and through its handlers). */

const APP_S_KEY = '00112233445566778899AABBCCDDEEFF';
const devAddr = (n: number) => `2700${n.toString(16).toUpperCase().padStart(4, '0')}`;
const withSession = (application_id: string, device_id: string, addr: string) => ({
  ids: { device_id, application_ids: { application_id } },
  session: { dev_addr: addr, keys: { session_key_id: 'AQID', app_s_key: { key: APP_S_KEY } } },
});
const PATHS = ['session.dev_addr', 'session.keys.app_s_key.key', 'session.keys.session_key_id'];

describeRegistryBatch({
  component: 'as',
  service: 'AsEndDeviceRegistry',
  migrations: AS_MIGRATIONS,
  policy: AS_REGISTRY_POLICY,
  module: AsModule,
  device: (app, dev, n) => ({ end_device: withSession(app, dev, devAddr(n)), paths: PATHS }),
  invalid: (app, dev) => ({ end_device: withSession(app, dev, '00000000'), paths: PATHS }),
  invalidError: 'field_value',
  uniqueEuis: false,
  sessionDevAddr: devAddr,
});
