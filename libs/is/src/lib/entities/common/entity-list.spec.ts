import { DEFAULT_LIMIT, listQuery } from './entity-list';

describe('listQuery', () => {
  it('defaults: the ID order, the default limit, the first page, live entities', () => {
    expect(listQuery({}, 'application_id')).toEqual({ order: 'application_id', descending: false, deleted: false, limit: DEFAULT_LIMIT, offset: 0 });
    expect(listQuery({ limit: 0, page: 0, order: '' }, 'gateway_id')).toEqual({
      order: 'gateway_id',
      descending: false,
      deleted: false,
      limit: 100,
      offset: 0,
    });
  });

  it('takes the order with its direction, the page as an offset, the collaborator and deleted flag', () => {
    expect(listQuery({ order: '-name', limit: 20, page: 3, deleted: true }, 'application_id', 'alice')).toEqual({
      collaborator: 'alice',
      order: 'name',
      descending: true,
      deleted: true,
      limit: 20,
      offset: 40,
    });
  });
});
