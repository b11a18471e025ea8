import { toDomain, toEntity } from './user.mapper';
import type { IsUser } from './user.model';

const base: IsUser = { ids: { user_id: 'alice' }, created_at: '2024-05-01T10:00:00.000000Z', updated_at: '2024-05-01T10:00:01.000000Z' };

describe('user mapper', () => {
  it('round-trips every field; the state as its number, rarely-read fields in the document', () => {
    const user: IsUser = {
      ...base,
      deleted_at: '2024-05-02T10:00:00.000000Z',
      name: 'Alice',
      description: 'd',
      attributes: { team: 'radio' },
      primary_email_address: 'a@example.com',
      primary_email_address_validated_at: '2024-05-01T11:00:00.000000Z',
      password_updated_at: '2024-05-01T12:00:00.000000Z',
      require_password_update: true,
      state: 'STATE_FLAGGED',
      state_description: 'why',
      admin: true,
    };
    const row = toEntity(user, 'PBKDF2$x');
    expect(row).toMatchObject({ user_id: 'alice', name: 'Alice', admin: true, state: 3, password_hash: 'PBKDF2$x', primary_email_address: 'a@example.com' });
    expect(JSON.parse(row.fields)).toEqual({
      description: 'd',
      attributes: { team: 'radio' },
      primary_email_address_validated_at: '2024-05-01T11:00:00.000000Z',
      password_updated_at: '2024-05-01T12:00:00.000000Z',
      require_password_update: true,
      state_description: 'why',
    });
    expect(toDomain(row)).toEqual(user);
  });

  it('leaves zero values out both ways and never carries the password hash into the domain', () => {
    const row = toEntity({ ...base, admin: false, state: 'STATE_REQUESTED', name: '' });
    expect(row).toMatchObject({ admin: false, state: 0, name: '', password_hash: null, deleted_at: null, fields: '{}' });
    expect(toDomain(Object.assign(row, { password_hash: 'PBKDF2$x' }))).toEqual(base);
  });
});
