import { ApiKeyEntity } from './api-key.entity';
import { toDomain, toEntity } from './api-key.mapper';
import type { ApiKeyRecord } from './api-key.model';

const key: ApiKeyRecord = {
  id: 'A'.repeat(39),
  secret_hash: 'PBKDF2$sha256$10$salt$AAAA',
  name: 'my key',
  rights: ['RIGHT_APPLICATION_LINK', 'RIGHT_APPLICATION_INFO'],
  owner: { kind: 'application', id: 'app1' },
  created_at: '2024-05-01T10:00:00.000001Z',
  updated_at: '2024-05-01T10:00:00.000002Z',
};

describe('API key mapper', () => {
  it('round-trips a key, rights in the given order, without an expiry', () => {
    const row = toEntity(key);
    expect(row).toBeInstanceOf(ApiKeyEntity);
    expect(row).toMatchObject({
      entity_kind: 'application',
      entity_id: 'app1',
      rights: '["RIGHT_APPLICATION_LINK","RIGHT_APPLICATION_INFO"]',
      expires_at: null,
    });
    expect(toDomain(row)).toEqual(key);
  });

  it('round-trips an expiry', () => {
    const expiring = { ...key, expires_at: '2030-01-01T00:00:00.000000Z' };
    expect(toDomain(toEntity(expiring))).toEqual(expiring);
  });
});
