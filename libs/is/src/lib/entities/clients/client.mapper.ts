import { fromDocument, toDocument } from '../common/document';
import { CLIENT_DOCUMENT_FIELDS, ClientEntity } from './client.entity';
import type { IsClient } from './client.model';

/** Row → domain (the secret's hash stays behind). */
export function toDomain(row: ClientEntity): IsClient {
  const client: IsClient = { ids: { client_id: row.client_id }, created_at: row.created_at, updated_at: row.updated_at };
  if (row.deleted_at) client.deleted_at = row.deleted_at;
  if (row.name) client.name = row.name;
  return fromDocument(client, row.fields, CLIENT_DOCUMENT_FIELDS);
}

/** Domain → row, with the secret's hash (null: none). */
export function toEntity(client: IsClient, secretHash: string | null = null): ClientEntity {
  const row = new ClientEntity();
  row.client_id = client.ids.client_id;
  row.name = client.name ?? '';
  row.secret_hash = secretHash;
  row.created_at = client.created_at;
  row.updated_at = client.updated_at;
  row.deleted_at = client.deleted_at ?? null;
  row.fields = toDocument(client, CLIENT_DOCUMENT_FIELDS);
  return row;
}
