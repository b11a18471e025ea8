import { fromDocument, toDocument } from '../common/document';
import { APPLICATION_DOCUMENT_FIELDS, ApplicationEntity } from './application.entity';
import type { IsApplication } from './application.model';

/** Row → domain. */
export function toDomain(row: ApplicationEntity): IsApplication {
  const app: IsApplication = { ids: { application_id: row.application_id }, created_at: row.created_at, updated_at: row.updated_at };
  if (row.deleted_at) app.deleted_at = row.deleted_at;
  if (row.name) app.name = row.name;
  return fromDocument(app, row.fields, APPLICATION_DOCUMENT_FIELDS);
}

/** Domain → row. */
export function toEntity(app: IsApplication): ApplicationEntity {
  const row = new ApplicationEntity();
  row.application_id = app.ids.application_id;
  row.name = app.name ?? '';
  row.created_at = app.created_at;
  row.updated_at = app.updated_at;
  row.deleted_at = app.deleted_at ?? null;
  row.fields = toDocument(app, APPLICATION_DOCUMENT_FIELDS);
  return row;
}
