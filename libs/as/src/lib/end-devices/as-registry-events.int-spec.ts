import { AS_EVENTS } from '@lorawan/api';
import { describeRegistryEvents } from '@lorawan/registry/conformance';
import { AsModule } from '../as.module';

/** `as.end_device.*` through the AsEndDeviceRegistry handlers of a started Application Server (SQLite). */

const APP_S_KEY = '00112233445566778899AABBCCDDEEFF';
const APP_S_KEY_2 = '55555555555555555555555555555555';
const ids = (device_id: string) => ({ device_id, application_ids: { application_id: 'app-as-ev' } });
const withSession = (device_id: string, devAddr: string, key: string) => ({
  ids: ids(device_id),
  session: { dev_addr: devAddr, keys: { session_key_id: 'AQID', app_s_key: { key } } },
});
const SESSION_PATHS = ['session.dev_addr', 'session.keys.app_s_key.key', 'session.keys.session_key_id'];

describeRegistryEvents({
  component: 'as',
  service: 'AsEndDeviceRegistry',
  module: AsModule,
  events: AS_EVENTS.endDevice,
  create: { end_device: withSession('ev-1', '26000EE2', APP_S_KEY), paths: SESSION_PATHS },
  storedIds: { ...ids('ev-1'), dev_addr: '26000EE2' },
  update: {
    end_device: { ...withSession('ev-1', '26000EE2', APP_S_KEY_2), formatters: { up_formatter: 'FORMATTER_CAYENNELPP' } },
    paths: ['formatters', 'session.keys.app_s_key.key'],
  },
  invalid: { end_device: withSession('ev-bad', '00000000', APP_S_KEY), paths: SESSION_PATHS },
  secrets: [APP_S_KEY, APP_S_KEY_2],
});
