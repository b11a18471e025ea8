import { api } from './client';
import { frequencyPlanOptions, loadFrequencyPlans } from './frequency-plans';

jest.mock('./client', () => ({ ...jest.requireActual('./client'), api: jest.fn() }));
const apiMock = api as jest.MockedFunction<typeof api>;

const EU = { id: 'EU_863_870', name: 'Europe 863-870 MHz (SF12 for RX2)', base_frequency: 868, band_id: 'EU_863_870' };
const EU_TTN = {
  id: 'EU_863_870_TTN',
  base_id: 'EU_863_870',
  name: 'Europe 863-870 MHz (SF9 for RX2 - recommended)',
  base_frequency: 868,
  band_id: 'EU_863_870',
};
const US = { id: 'US_902_928_FSB_2', name: 'United States 902-928 MHz, FSB 2 (used by TTN)', base_frequency: 915, band_id: 'US_902_928' };

describe('frequency plans', () => {
  beforeEach(() => apiMock.mockReset());

  it('loads them from GET /configuration/frequency-plans; none listed is an empty list', async () => {
    apiMock.mockResolvedValueOnce({ body: { frequency_plans: [EU, US] }, headers: new Headers() });
    expect(await loadFrequencyPlans()).toEqual([EU, US]);
    expect(apiMock).toHaveBeenCalledWith('GET', '/configuration/frequency-plans');
    apiMock.mockResolvedValueOnce({ body: {}, headers: new Headers() });
    expect(await loadFrequencyPlans()).toEqual([]);
  });

  it('offers them by band, in the stack order, labelled with name and ID', () => {
    expect(frequencyPlanOptions([EU, US, EU_TTN], 'EU_863_870_TTN')).toEqual([
      {
        group: 'EU_863_870',
        items: [
          { value: 'EU_863_870', label: 'Europe 863-870 MHz (SF12 for RX2) (EU_863_870)' },
          { value: 'EU_863_870_TTN', label: 'Europe 863-870 MHz (SF9 for RX2 - recommended) (EU_863_870_TTN)' },
        ],
      },
      { group: 'US_902_928', items: [{ value: 'US_902_928_FSB_2', label: 'United States 902-928 MHz, FSB 2 (used by TTN) (US_902_928_FSB_2)' }] },
    ]);
  });

  it('keeps the current value a choice when the stack does not list it (or the list is not loaded yet)', () => {
    expect(frequencyPlanOptions([], 'EU_863_870_TTN')).toEqual([{ group: 'Current', items: [{ value: 'EU_863_870_TTN', label: 'EU_863_870_TTN' }] }]);
    expect(frequencyPlanOptions([EU], 'OLD_PLAN')[0]).toEqual({ group: 'Current', items: [{ value: 'OLD_PLAN', label: 'OLD_PLAN' }] });
    expect(frequencyPlanOptions([EU])).toHaveLength(1);
  });
});
