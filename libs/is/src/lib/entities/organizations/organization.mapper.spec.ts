import { toDomain, toEntity } from './organization.mapper';
import type { IsOrganization } from './organization.model';

describe('organization mapper', () => {
  it('round-trips every field: the name as a column, the rest in the document', () => {
    const org: IsOrganization = {
      ids: { organization_id: 'org1' },
      created_at: '2024-05-01T10:00:00.000000Z',
      updated_at: '2024-05-01T10:00:01.000000Z',
      deleted_at: '2024-05-02T10:00:00.000000Z',
      name: 'Org',
      description: 'd',
      attributes: { key: 'v' },
      administrative_contact: { user_ids: { user_id: 'alice' } },
      technical_contact: { user_ids: { user_id: 'bob' } },
      fanout_notifications: true,
    };
    const row = toEntity(org);
    expect(row).toMatchObject({ organization_id: 'org1', name: 'Org', deleted_at: org.deleted_at });
    expect(Object.keys(JSON.parse(row.fields)).sort()).toEqual([
      'administrative_contact',
      'attributes',
      'description',
      'fanout_notifications',
      'technical_contact',
    ]);
    expect(toDomain(row)).toEqual(org);
  });

  it('leaves empty values out', () => {
    const org: IsOrganization = { ids: { organization_id: 'org1' }, created_at: '2024-05-01T10:00:00.000000Z', updated_at: '2024-05-01T10:00:00.000000Z' };
    const row = toEntity({ ...org, name: '', description: '', fanout_notifications: false });
    expect(row.fields).toBe('{}');
    expect(row.deleted_at).toBeNull();
    expect(toDomain(row)).toEqual(org);
  });
});
