import { ValidateBy } from 'class-validator';
import { Bool, decodeMessage, EnumName, isJsonObject, MACVersion, Message, MessagePayloadFormatters, PHYVersion, Str, Uint64 } from '@lorawan/api';
import { deepFreeze } from '../deep-freeze';
import { FREQUENCY_PLAN_IDS, getFrequencyPlan } from '../frequency-plans/catalogue';
import { validationMessage } from './validation-message';

function KnownFrequencyPlan(): PropertyDecorator {
  return ValidateBy({
    name: 'known_frequency_plan',
    validator: {
      validate: (v: unknown) => typeof v !== 'string' || getFrequencyPlan(v) !== undefined,
      defaultMessage: () => `value must be one of the known frequency plans: ${FREQUENCY_PLAN_IDS.join(', ')}`,
    },
  });
}

/**
 * The EndDevice fields marked "Copy" in the seed, as a device template or the Network Server's
 * default device profile provides them. Rules as in the contract's EndDevice, plus: the frequency
 * plan must be one of the catalogue's.
 */
export class DeviceProfile {
  @Bool() supports_class_b?: boolean;
  @Bool() supports_class_c?: boolean;
  @EnumName(MACVersion) lorawan_version?: string;
  @EnumName(PHYVersion) lorawan_phy_version?: string;
  @Str({ maxLength: 64 }) @KnownFrequencyPlan() frequency_plan_id?: string;
  @Uint64() min_frequency?: string;
  @Uint64() max_frequency?: string;
  @Bool() supports_join?: boolean;
  @Bool() resets_join_nonces?: boolean;
  /** Only templates carry formatters; `copyOnCreate` never takes them from the NS profile. */
  @Message(() => MessagePayloadFormatters) formatters?: MessagePayloadFormatters;
}

/** The fields of a DeviceProfile: the seed's Copy fields. */
export const DEVICE_PROFILE_FIELDS = [
  'supports_class_b',
  'supports_class_c',
  'lorawan_version',
  'lorawan_phy_version',
  'frequency_plan_id',
  'min_frequency',
  'max_frequency',
  'supports_join',
  'resets_join_nonces',
  'formatters',
] as const satisfies readonly (keyof DeviceProfile)[];

/** The seed's Copy fields a registry stores (its copy-on-create fields): the profile's fields among `stored`, in the profile's order. */
export function copyFieldsOf(stored: readonly string[]): string[] {
  return DEVICE_PROFILE_FIELDS.filter((field) => stored.includes(field));
}

const FORMATTER_FIELDS = ['up_formatter', 'up_formatter_parameter', 'down_formatter', 'down_formatter_parameter'];

/** Hand-written configuration should not lose a misspelt field silently (decodeMessage drops unknown keys). */
export function checkKnownKeys(value: Record<string, unknown>, allowed: readonly string[], path = ''): void {
  const unknown = Object.keys(value).find((k) => !allowed.includes(k));
  if (unknown !== undefined) throw new Error(`${path}${unknown}: unknown field (expected ${allowed.join(', ')})`);
}

/**
 * Validates a device profile (a template's `end_device`, or the configured default NS profile) into
 * a frozen plain object in the contract's canonical JSON form. Throws an Error whose message is
 * `field: reason`; callers prefix where the profile came from.
 */
export function parseDeviceProfile(plain: unknown): DeviceProfile {
  if (!isJsonObject(plain)) throw new Error('a device profile must be a JSON object');
  checkKnownKeys(plain, DEVICE_PROFILE_FIELDS);
  if (isJsonObject(plain['formatters'])) checkKnownKeys(plain['formatters'], FORMATTER_FIELDS, 'formatters.');
  let profile: DeviceProfile;
  try {
    profile = decodeMessage(DeviceProfile, plain);
  } catch (err) {
    throw new Error(validationMessage(err));
  }
  if (profile.min_frequency !== undefined && profile.max_frequency !== undefined && BigInt(profile.min_frequency) > BigInt(profile.max_frequency)) {
    throw new Error('min_frequency: value must not be above max_frequency');
  }
  // A plain copy: callers merge it into requests, which must not carry class instances.
  return deepFreeze(JSON.parse(JSON.stringify(profile)) as DeviceProfile);
}
