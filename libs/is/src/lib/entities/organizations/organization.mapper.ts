import { fromEntityRow, toEntityRow } from '../registry/entity.mapper';
import { ORGANIZATION_DOCUMENT_FIELDS, OrganizationEntity } from './organization.entity';
import type { IsOrganization } from './organization.model';

/** Row → domain. */
export function toDomain(row: OrganizationEntity): IsOrganization {
  const org: IsOrganization = { ids: { organization_id: row.organization_id }, created_at: row.created_at, updated_at: row.updated_at };
  return fromEntityRow(org, row, ORGANIZATION_DOCUMENT_FIELDS);
}

/** Domain → row. */
export function toEntity(org: IsOrganization): OrganizationEntity {
  const row = new OrganizationEntity();
  row.organization_id = org.ids.organization_id;
  return toEntityRow(row, org, ORGANIZATION_DOCUMENT_FIELDS);
}
