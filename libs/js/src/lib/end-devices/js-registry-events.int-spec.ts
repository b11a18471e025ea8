import { JS_EVENTS } from '@lorawan/api';
import { describeRegistryEvents } from '@lorawan/registry/conformance';
import { JsModule } from '../js.module';

/** `js.end_device.*` through the JsEndDeviceRegistry handlers of a started Join Server (SQLite). */

const APP_KEY = '00112233445566778899AABBCCDDEEFF';
const NWK_KEY = '0F0E0D0C0B0A09080706050403020100';
const ids = (device_id: string, dev_eui: string) => ({ device_id, application_ids: { application_id: 'app-js-ev' }, dev_eui, join_eui: '70B3D57ED0000000' });

describeRegistryEvents({
  component: 'js',
  service: 'JsEndDeviceRegistry',
  module: JsModule,
  events: JS_EVENTS.endDevice,
  create: { end_device: { ids: ids('ev-1', '70b3d57ed00000e1'), root_keys: { app_key: { key: APP_KEY } } }, paths: ['root_keys.app_key.key'] },
  storedIds: ids('ev-1', '70B3D57ED00000E1'),
  update: {
    end_device: { ids: ids('ev-1', '70B3D57ED00000E1'), resets_join_nonces: true, root_keys: { nwk_key: { key: NWK_KEY } } },
    paths: ['resets_join_nonces', 'root_keys.nwk_key.key'],
  },
  invalid: { end_device: { ids: ids('ev-bad', '0000000000000000'), root_keys: { app_key: { key: APP_KEY } } }, paths: ['root_keys.app_key.key'] },
  secrets: [APP_KEY, NWK_KEY],
});
