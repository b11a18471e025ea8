import { type EntityKind, type Right } from '@lorawan/api';
import { ApiKeyEntity } from './api-key.entity';
import type { ApiKeyRecord } from './api-key.model';

export function toEntity(key: ApiKeyRecord): ApiKeyEntity {
  return Object.assign(new ApiKeyEntity(), {
    id: key.id,
    secret_hash: key.secret_hash,
    name: key.name,
    rights: JSON.stringify(key.rights),
    entity_kind: key.owner.kind,
    entity_id: key.owner.id,
    created_at: key.created_at,
    updated_at: key.updated_at,
    expires_at: key.expires_at ?? null,
  });
}

export function toDomain(row: ApiKeyEntity): ApiKeyRecord {
  const key: ApiKeyRecord = {
    id: row.id,
    secret_hash: row.secret_hash,
    name: row.name,
    rights: JSON.parse(row.rights) as Right[],
    owner: { kind: row.entity_kind as EntityKind, id: row.entity_id },
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
  if (row.expires_at) key.expires_at = row.expires_at;
  return key;
}
