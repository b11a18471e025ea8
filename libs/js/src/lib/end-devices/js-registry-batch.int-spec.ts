import { describeRegistryBatch } from '@lorawan/registry/conformance';
import { JsModule } from '../js.module';
import { JS_MIGRATIONS } from '../migrations';
import { JS_REGISTRY_POLICY } from './js-registry.policy';

/** JsEndDeviceBatchRegistry: the Join Server's batch Set and Delete (MySQL, SQLite, and through its handlers). */

const APP_KEY = '00112233445566778899AABBCCDDEEFF';
const ids = (application_id: string, device_id: string, n: number) => ({
  device_id,
  application_ids: { application_id },
  dev_eui: `70B3D57ED0${n.toString(16).toUpperCase().padStart(6, '0')}`,
  join_eui: '70B3D57ED0000000',
});

describeRegistryBatch({
  component: 'js',
  service: 'JsEndDeviceRegistry',
  migrations: JS_MIGRATIONS,
  policy: JS_REGISTRY_POLICY,
  module: JsModule,
  device: (app, dev, n) => ({ end_device: { ids: ids(app, dev, n), root_keys: { app_key: { key: APP_KEY } } }, paths: ['root_keys.app_key.key'] }),
  invalid: (app, dev) => ({ end_device: { ids: ids(app, dev, 999), root_keys: { app_key: { key: '0'.repeat(32) } } }, paths: ['root_keys.app_key.key'] }),
  invalidError: 'field_value',
  uniqueEuis: true,
});
