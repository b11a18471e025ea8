import { parseDeviceProfile } from './device-profile';

describe('parseDeviceProfile', () => {
  it('normalises to the canonical JSON form and returns a frozen plain object', () => {
    const profile = parseDeviceProfile({
      supports_join: true,
      lorawan_version: 'V1_0_3',
      lorawan_phy_version: 7,
      frequency_plan_id: 'EU_863_870',
      min_frequency: 863000000,
      max_frequency: '870000000',
      formatters: { up_formatter: 'FORMATTER_CAYENNELPP', up_formatter_parameter: '' },
    });
    expect(profile).toEqual({
      supports_join: true,
      lorawan_version: 'MAC_V1_0_3',
      lorawan_phy_version: 'PHY_V1_0_3_REV_A',
      frequency_plan_id: 'EU_863_870',
      min_frequency: '863000000',
      max_frequency: '870000000',
      formatters: { up_formatter: 'FORMATTER_CAYENNELPP', up_formatter_parameter: '' },
    });
    expect(Object.getPrototypeOf(profile)).toBe(Object.prototype);
    expect(Object.isFrozen(profile.formatters)).toBe(true);
  });

  it.each([
    ['not an object', [], 'a device profile must be a JSON object'],
    ['an unknown frequency plan', { frequency_plan_id: 'EU_868' }, /^frequency_plan_id: value must be one of the known frequency plans: EU_863_870, /],
    ['an undefined MAC version', { lorawan_version: 'MAC_V2' }, 'lorawan_version: value must be one of the defined MACVersion values'],
    ['a non-boolean', { supports_join: 'yes' }, 'supports_join: value must be a boolean'],
    ['a misspelt field', { suports_join: true }, /^suports_join: unknown field/],
    ['a misspelt formatter field', { formatters: { up_formater: 'FORMATTER_NONE' } }, /^formatters\.up_formater: unknown field/],
    [
      'a JavaScript formatter without script',
      { formatters: { up_formatter: 'FORMATTER_JAVASCRIPT' } },
      /^formatters\.up_formatter_parameter: value is required/,
    ],
    ['min above max frequency', { min_frequency: '870000000', max_frequency: '863000000' }, 'min_frequency: value must not be above max_frequency'],
  ])('refuses %s', (_case, plain, message) => {
    expect(() => parseDeviceProfile(plain)).toThrow(message);
  });
});
