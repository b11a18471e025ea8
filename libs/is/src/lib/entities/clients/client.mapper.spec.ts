import { toDomain, toEntity } from './client.mapper';
import type { IsClient } from './client.model';

describe('client mapper', () => {
  it('round-trips every field: the name as a column, the rest in the document, the secret hash apart', () => {
    const client: IsClient = {
      ids: { client_id: 'cli1' },
      created_at: '2024-05-01T10:00:00.000000Z',
      updated_at: '2024-05-01T10:00:01.000000Z',
      deleted_at: '2024-05-02T10:00:00.000000Z',
      name: 'Client',
      description: 'd',
      attributes: { key: 'v' },
      administrative_contact: { user_ids: { user_id: 'alice' } },
      technical_contact: { user_ids: { user_id: 'bob' } },
      redirect_uris: ['https://a.example/cb'],
      logout_redirect_uris: ['https://a.example/'],
      state: 'STATE_APPROVED',
      state_description: 'fine',
      skip_authorization: true,
      endorsed: true,
      grants: ['GRANT_AUTHORIZATION_CODE'],
      rights: ['RIGHT_USER_INFO'],
    };
    const row = toEntity(client, 'PBKDF2$sha256$1$salt$a2V5');
    expect(row).toMatchObject({ client_id: 'cli1', name: 'Client', secret_hash: 'PBKDF2$sha256$1$salt$a2V5', deleted_at: client.deleted_at });
    expect(row.fields).not.toContain('PBKDF2');
    expect(toDomain(row)).toEqual(client);
  });

  it('leaves empty values out, and no secret is null', () => {
    const client: IsClient = { ids: { client_id: 'cli1' }, created_at: '2024-05-01T10:00:00.000000Z', updated_at: '2024-05-01T10:00:00.000000Z' };
    const row = toEntity({ ...client, name: '', endorsed: false, grants: [] });
    expect(row.fields).toBe('{}');
    expect(row.secret_hash).toBeNull();
    expect(toDomain(row)).toEqual(client);
  });
});
