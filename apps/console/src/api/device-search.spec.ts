import { api } from './client';
import { loadDevicePage } from './device-search';

jest.mock('./client', () => ({ ...jest.requireActual('./client'), api: jest.fn() }));
const apiMock = api as jest.MockedFunction<typeof api>;

describe('loadDevicePage', () => {
  beforeEach(() => {
    apiMock.mockReset();
    apiMock.mockResolvedValue({ body: { end_devices: [{ ids: { device_id: 'd1' } }] }, headers: new Headers({ 'x-total-count': '42' }) });
  });
  const request = { fieldMask: 'name,created_at', order: '-name', limit: 20, page: 3 };

  it('without a term: the IS List, ordered and paged, with the total', async () => {
    await expect(loadDevicePage('app 1', { ...request, search: '  ' })).resolves.toEqual({ devices: [{ ids: { device_id: 'd1' } }], total: 42 });
    expect(apiMock).toHaveBeenCalledWith('GET', '/applications/app%201/devices', {
      query: { field_mask: 'name,created_at', order: '-name', limit: 20, page: 3, query: undefined },
    });
  });

  it('with a term: the search route with `query`, ordered and paged, with the total', async () => {
    await expect(loadDevicePage('app1', { ...request, search: ' Kitchen ' })).resolves.toMatchObject({ total: 42 });
    expect(apiMock).toHaveBeenCalledWith('GET', '/search/applications/app1/devices', {
      query: { field_mask: 'name,created_at', order: '-name', limit: 20, page: 3, query: 'Kitchen' },
    });
  });
});
