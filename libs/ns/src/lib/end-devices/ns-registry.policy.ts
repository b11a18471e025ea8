import { ALLOWED_PATHS, hasAnyField, NS_END_DEVICE_FIELDS, NS_EVENTS, touchesField } from '@lorawan/api';
import type { StackError } from '@lorawan/errors';
import { copyFieldsOf, getFrequencyPlan } from '@lorawan/lorawan';
import type { CompleteContext, KeyEnvelopeJson, RegistryPolicy } from '@lorawan/registry';
import { effectiveMacSettings, withDesiredSettings } from '../mac/mac-settings';
import { ErrDeviceNotFound, ErrFieldIsZero, ErrFieldNotChangeable, ErrFieldValue, ErrFrequencyPlanNotFound, ErrReadOnlyField } from '../errors';
import { newMacState } from '../mac-state';
import type { NsDevice, NsMacSettings } from '../model';
import { presentNsDevice } from './recent-uplinks';

const ZERO_EUI = '0000000000000000';
const ZERO_DEV_ADDR = '00000000';
const ZERO_KEY = '0'.repeat(32);
const NETWORK_KEYS = ['f_nwk_s_int_key', 's_nwk_s_int_key', 'nwk_s_enc_key'] as const;
const SESSION_FIELDS = [
  'dev_addr',
  'keys.session_key_id',
  ...NETWORK_KEYS.map((k) => `keys.${k}`),
  'last_f_cnt_up',
  'last_n_f_cnt_down',
  'last_conf_f_cnt_down',
  'started_at',
  'queued_application_downlinks',
];

/** What the NS stores: its top-level fields, and only the network part of (pending) sessions. */
export const NS_STORED_PATHS = [
  ...NS_END_DEVICE_FIELDS.filter((f) => !['ids', 'created_at', 'updated_at', 'session', 'pending_session'].includes(f)),
  ...SESSION_FIELDS.map((f) => `session.${f}`),
  ...SESSION_FIELDS.map((f) => `pending_session.${f}`),
];

function invalid(field: string, cause: StackError = ErrFieldIsZero.with({ name: field })): never {
  throw ErrFieldValue.with({ field }, cause);
}

const hasKey = (e: KeyEnvelopeJson | undefined) => Boolean(e?.encrypted_key) || (Boolean(e?.key) && e?.key !== ZERO_KEY);

/**
 * The Network Server's registry rules: a device is stored only when usable (a known frequency
 * plan, MAC and PHY versions; OTAA: DevEUI and JoinEUI; ABP: a session with DevAddr and network
 * session keys), as every TTS client sends them and TTS's NS relies on them.
 */
export function completeNsDevice(device: NsDevice, { created, previous, paths }: CompleteContext<NsDevice>, macDefaults: NsMacSettings = {}): NsDevice {
  const plan = device.frequency_plan_id ? getFrequencyPlan(device.frequency_plan_id) : undefined;
  if (!device.frequency_plan_id) invalid('frequency_plan_id');
  if (!plan) invalid('frequency_plan_id', ErrFrequencyPlanNotFound.with({ id: device.frequency_plan_id }));
  if (!device.lorawan_version || device.lorawan_version === 'MAC_UNKNOWN') invalid('lorawan_version');
  if (!device.lorawan_phy_version || device.lorawan_phy_version === 'PHY_UNKNOWN') invalid('lorawan_phy_version');
  if (!created && previous) {
    for (const field of ['supports_join', 'multicast'] as const) {
      if (Boolean(device[field]) !== Boolean(previous[field])) invalid(field, ErrFieldNotChangeable.with({ name: field }));
    }
  }
  if (device.supports_join) {
    if (!device.ids.dev_eui || device.ids.dev_eui === ZERO_EUI) invalid('ids.dev_eui');
    if (device.ids.join_eui === undefined) invalid('ids.join_eui');
    // A session a client sets (TTS: `session.dev_addr` in the mask) needs a DevAddr, as for ABP; clearing the session stays possible.
    const devAddr = device.session?.dev_addr;
    if (device.session && hasAnyField(paths, 'session.dev_addr') && (!devAddr || devAddr === ZERO_DEV_ADDR)) invalid('session.dev_addr');
  } else {
    completeAbpSession(device);
  }
  shareNetworkKeyBefore11(device, paths);
  if (device.session?.dev_addr) device.ids = { ...device.ids, dev_addr: device.session.dev_addr };
  else delete device.ids.dev_addr;
  const settings = effectiveMacSettings(device.mac_settings, macDefaults);
  if (device.session && device.mac_state === undefined) {
    device.mac_state = newMacState({ lorawan_version: device.lorawan_version, frequencyPlan: plan, mac_settings: settings });
  } else if (device.mac_state && touchesField(paths, 'mac_settings')) {
    // A changed desired setting is what the NS negotiates at the next downlink opportunity.
    device.mac_state = withDesiredSettings(device.mac_state, settings);
  }
  return device;
}

/** ABP: the session must exist with its DevAddr and network keys (before 1.1 the FNwkSIntKey serves as all three). */
function completeAbpSession(device: NsDevice): void {
  const session = device.session;
  if (!session?.dev_addr || session.dev_addr === ZERO_DEV_ADDR) invalid('session.dev_addr');
  const keys = session.keys ?? {};
  if (!hasKey(keys.f_nwk_s_int_key)) invalid('session.keys.f_nwk_s_int_key.key');
  if (device.lorawan_version === 'MAC_V1_1') {
    for (const key of ['s_nwk_s_int_key', 'nwk_s_enc_key'] as const) if (!hasKey(keys[key])) invalid(`session.keys.${key}.key`);
  }
}

/**
 * Before LoRaWAN 1.1 there is one network session key: a new FNwkSIntKey is also the SNwkSIntKey
 * and NwkSEncKey (TTS NS Set does the same for any device), so none of them is left stale; an ABP
 * session given only the FNwkSIntKey gets it as the other two.
 */
function shareNetworkKeyBefore11(device: NsDevice, paths: readonly string[]): void {
  const keys = device.session?.keys;
  const fNwkSIntKey = keys?.f_nwk_s_int_key;
  if (!device.session || !keys || !fNwkSIntKey || device.lorawan_version === 'MAC_V1_1') return;
  const replace = hasAnyField(paths, 'session.keys.f_nwk_s_int_key.key');
  if (!replace && device.supports_join) return;
  device.session.keys = {
    ...keys,
    s_nwk_s_int_key: replace ? fNwkSIntKey : (keys.s_nwk_s_int_key ?? fNwkSIntKey),
    nwk_s_enc_key: replace ? fNwkSIntKey : (keys.nwk_s_enc_key ?? fNwkSIntKey),
  };
}

export const NS_REGISTRY_POLICY: RegistryPolicy<NsDevice> = {
  allowedGetPaths: ALLOWED_PATHS['NsEndDeviceRegistry.Get'],
  allowedSetPaths: ALLOWED_PATHS['NsEndDeviceRegistry.Set'],
  storedPaths: NS_STORED_PATHS,
  copyFields: copyFieldsOf(NS_END_DEVICE_FIELDS),
  errors: { notFound: ErrDeviceNotFound, readOnlyField: ErrReadOnlyField },
  events: NS_EVENTS.endDevice,
  complete: completeNsDevice,
  present: presentNsDevice,
};

/** The policy with the NS's default MAC settings (NS_DEFAULT_MAC_SETTINGS) under each device's own. */
export function nsRegistryPolicy(macDefaults: NsMacSettings): RegistryPolicy<NsDevice> {
  return { ...NS_REGISTRY_POLICY, complete: (device, context) => completeNsDevice(device, context, macDefaults) };
}
