import { fromEntityRow, toEntityRow } from '../registry/entity.mapper';
import { APPLICATION_DOCUMENT_FIELDS, ApplicationEntity } from './application.entity';
import type { IsApplication } from './application.model';

/** Row → domain. */
export function toDomain(row: ApplicationEntity): IsApplication {
  const app: IsApplication = { ids: { application_id: row.application_id }, created_at: row.created_at, updated_at: row.updated_at };
  return fromEntityRow(app, row, APPLICATION_DOCUMENT_FIELDS);
}

/** Domain → row. */
export function toEntity(app: IsApplication): ApplicationEntity {
  const row = new ApplicationEntity();
  row.application_id = app.ids.application_id;
  return toEntityRow(row, app, APPLICATION_DOCUMENT_FIELDS);
}
