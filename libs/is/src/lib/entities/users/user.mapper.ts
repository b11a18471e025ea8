import { State } from '@lorawan/api';
import { fromEntityRow, toEntityRow } from '../registry/entity.mapper';
import { USER_DOCUMENT_FIELDS, UserEntity } from './user.entity';
import type { IsUser } from './user.model';

const ZERO_STATE = 'STATE_REQUESTED' as const;

/** Row → domain (no password hash). */
export function toDomain(row: UserEntity): IsUser {
  const user: IsUser = { ids: { user_id: row.user_id }, created_at: row.created_at, updated_at: row.updated_at };
  return fromEntityRow(user, row, USER_DOCUMENT_FIELDS, (columns) => {
    if (row.primary_email_address) columns.primary_email_address = row.primary_email_address;
    const state = State.nameOf(Number(row.state));
    if (state && state !== ZERO_STATE) columns.state = state;
    if (row.admin) columns.admin = true;
  });
}

/** Domain → row; `passwordHash` only when the row is new (replacing a user keeps its password). */
export function toEntity(user: IsUser, passwordHash?: string): UserEntity {
  const row = new UserEntity();
  row.user_id = user.ids.user_id;
  row.primary_email_address = user.primary_email_address ?? '';
  row.admin = user.admin ?? false;
  row.state = State.values[State.parse(user.state) ?? ZERO_STATE];
  row.password_hash = passwordHash ?? null;
  return toEntityRow(row, user, USER_DOCUMENT_FIELDS);
}
