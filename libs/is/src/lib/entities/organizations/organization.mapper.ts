import { fromDocument, toDocument } from '../common/document';
import { ORGANIZATION_DOCUMENT_FIELDS, OrganizationEntity } from './organization.entity';
import type { IsOrganization } from './organization.model';

/** Row → domain. */
export function toDomain(row: OrganizationEntity): IsOrganization {
  const org: IsOrganization = { ids: { organization_id: row.organization_id }, created_at: row.created_at, updated_at: row.updated_at };
  if (row.deleted_at) org.deleted_at = row.deleted_at;
  if (row.name) org.name = row.name;
  return fromDocument(org, row.fields, ORGANIZATION_DOCUMENT_FIELDS);
}

/** Domain → row. */
export function toEntity(org: IsOrganization): OrganizationEntity {
  const row = new OrganizationEntity();
  row.organization_id = org.ids.organization_id;
  row.name = org.name ?? '';
  row.created_at = org.created_at;
  row.updated_at = org.updated_at;
  row.deleted_at = org.deleted_at ?? null;
  row.fields = toDocument(org, ORGANIZATION_DOCUMENT_FIELDS);
  return row;
}
