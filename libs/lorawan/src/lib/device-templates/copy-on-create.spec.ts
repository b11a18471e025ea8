import { DEVICE_PROFILE_FIELDS } from './device-profile';
import { copyOnCreate } from './copy-on-create';

const template = {
  lorawan_version: 'MAC_V1_0_3',
  supports_join: true,
  formatters: { up_formatter: 'FORMATTER_CAYENNELPP', up_formatter_parameter: '' },
};
const profile = {
  lorawan_version: 'MAC_V1_0_2',
  lorawan_phy_version: 'PHY_V1_0_2_REV_B',
  frequency_plan_id: 'EU_863_870',
  formatters: { up_formatter: 'FORMATTER_JAVASCRIPT', up_formatter_parameter: 'function decodeUplink() {}' },
};

describe('copyOnCreate', () => {
  it('takes each absent field from the template, else from the profile', () => {
    expect(copyOnCreate({}, DEVICE_PROFILE_FIELDS, template, profile)).toEqual({
      lorawan_version: 'MAC_V1_0_3',
      supports_join: true,
      formatters: template.formatters,
      lorawan_phy_version: 'PHY_V1_0_2_REV_B',
      frequency_plan_id: 'EU_863_870',
    });
  });

  it('never overrides what the request has (false and "" included); null counts as absent', () => {
    const request = { lorawan_version: 'MAC_V1_1', supports_join: false, frequency_plan_id: '', lorawan_phy_version: null };
    expect(copyOnCreate(request, DEVICE_PROFILE_FIELDS, template, profile)).toEqual({
      formatters: template.formatters,
      lorawan_phy_version: 'PHY_V1_0_2_REV_B',
    });
  });

  it('never takes formatters from the profile', () => {
    expect(copyOnCreate({}, ['formatters', 'frequency_plan_id'], undefined, profile)).toEqual({ frequency_plan_id: 'EU_863_870' });
  });

  it('copies only the listed fields, and nothing without sources', () => {
    expect(copyOnCreate({}, ['supports_join'], template, profile)).toEqual({ supports_join: true });
    expect(copyOnCreate({}, DEVICE_PROFILE_FIELDS)).toEqual({});
  });

  it('returns copies, so the caller may change them', () => {
    const added = copyOnCreate({}, ['formatters'], template) as { formatters: { up_formatter: string } };
    added.formatters.up_formatter = 'FORMATTER_NONE';
    expect(template.formatters.up_formatter).toBe('FORMATTER_CAYENNELPP');
  });
});
