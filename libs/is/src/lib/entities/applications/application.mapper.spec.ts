import { toDomain, toEntity } from './application.mapper';
import type { IsApplication } from './application.model';

describe('application mapper', () => {
  it('round-trips every field: the name as a column, the rest in the document', () => {
    const app: IsApplication = {
      ids: { application_id: 'app1' },
      created_at: '2024-05-01T10:00:00.000000Z',
      updated_at: '2024-05-01T10:00:01.000000Z',
      deleted_at: '2024-05-02T10:00:00.000000Z',
      name: 'App',
      description: 'd',
      attributes: { key: 'v' },
      administrative_contact: { user_ids: { user_id: 'alice' } },
      technical_contact: { user_ids: { user_id: 'bob' } },
      network_server_address: 'ns',
      application_server_address: 'as',
      join_server_address: 'js',
    };
    const row = toEntity(app);
    expect(row).toMatchObject({ application_id: 'app1', name: 'App', deleted_at: app.deleted_at });
    expect(Object.keys(JSON.parse(row.fields)).sort()).toEqual([
      'administrative_contact',
      'application_server_address',
      'attributes',
      'description',
      'join_server_address',
      'network_server_address',
      'technical_contact',
    ]);
    expect(toDomain(row)).toEqual(app);
  });

  it('leaves empty values out', () => {
    const app: IsApplication = { ids: { application_id: 'app1' }, created_at: '2024-05-01T10:00:00.000000Z', updated_at: '2024-05-01T10:00:00.000000Z' };
    const row = toEntity({ ...app, name: '', description: '' });
    expect(row.fields).toBe('{}');
    expect(toDomain(row)).toEqual(app);
  });
});
