import { State } from '@lorawan/api';
import { fromDocument, toDocument } from '../common/document';
import { USER_DOCUMENT_FIELDS, UserEntity } from './user.entity';
import type { IsUser } from './user.model';

const ZERO_STATE = 'STATE_REQUESTED' as const;

/** Row → domain (no password hash). */
export function toDomain(row: UserEntity): IsUser {
  const user: IsUser = { ids: { user_id: row.user_id }, created_at: row.created_at, updated_at: row.updated_at };
  if (row.deleted_at) user.deleted_at = row.deleted_at;
  if (row.name) user.name = row.name;
  if (row.primary_email_address) user.primary_email_address = row.primary_email_address;
  const state = State.nameOf(Number(row.state));
  if (state && state !== ZERO_STATE) user.state = state;
  if (row.admin) user.admin = true;
  return fromDocument(user, row.fields, USER_DOCUMENT_FIELDS);
}

/** Domain → row; `passwordHash` only when the row is new (replacing a user keeps its password). */
export function toEntity(user: IsUser, passwordHash?: string): UserEntity {
  const row = new UserEntity();
  row.user_id = user.ids.user_id;
  row.primary_email_address = user.primary_email_address ?? '';
  row.name = user.name ?? '';
  row.admin = user.admin ?? false;
  row.state = State.values[State.parse(user.state) ?? ZERO_STATE];
  row.password_hash = passwordHash ?? null;
  row.created_at = user.created_at;
  row.updated_at = user.updated_at;
  row.deleted_at = user.deleted_at ?? null;
  row.fields = toDocument(user, USER_DOCUMENT_FIELDS);
  return row;
}
