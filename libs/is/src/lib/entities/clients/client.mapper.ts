import { fromEntityRow, toEntityRow } from '../registry/entity.mapper';
import { CLIENT_DOCUMENT_FIELDS, ClientEntity } from './client.entity';
import type { IsClient } from './client.model';

/** Row → domain (the secret's hash stays behind). */
export function toDomain(row: ClientEntity): IsClient {
  const client: IsClient = { ids: { client_id: row.client_id }, created_at: row.created_at, updated_at: row.updated_at };
  return fromEntityRow(client, row, CLIENT_DOCUMENT_FIELDS);
}

/** Domain → row, with the secret's hash (null: none). */
export function toEntity(client: IsClient, secretHash: string | null = null): ClientEntity {
  const row = new ClientEntity();
  row.client_id = client.ids.client_id;
  row.secret_hash = secretHash;
  return toEntityRow(row, client, CLIENT_DOCUMENT_FIELDS);
}
