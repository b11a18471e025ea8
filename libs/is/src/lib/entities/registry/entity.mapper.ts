import { plainJson } from '@lorawan/api';
import { fromDocument, toDocument } from '../common/document';

/**
 * The columns every entity row has beside its ID (see the migrations): the name (ordered by), the
 * timestamps, the soft-delete mark, and one JSON document of the rarely-queried fields.
 */
export interface EntityRowColumns {
  name: string;
  created_at: string;
  updated_at: string;
  deleted_at?: string | null;
  fields: string;
}

type Described = { name?: string; description?: string; attributes?: Record<string, string> };
type Timestamped = { name?: string; created_at: string; updated_at: string; deleted_at?: string };

/**
 * Row → domain, for `entity` holding the row's ID and timestamps: the deleted mark and the name,
 * then the kind's `columns` (if it has more), then the document's fields (zero values left out).
 */
export function fromEntityRow<E extends { deleted_at?: string; name?: string }>(
  entity: E,
  row: EntityRowColumns,
  fields: readonly (keyof E)[],
  columns?: (entity: E) => void,
): E {
  if (row.deleted_at) entity.deleted_at = row.deleted_at;
  if (row.name) entity.name = row.name;
  columns?.(entity);
  return fromDocument(entity, row.fields, fields);
}

/** Domain → row, for `row` holding the entity's ID (and the kind's other columns). */
export function toEntityRow<R extends EntityRowColumns, E extends Timestamped>(row: R, entity: E, fields: readonly (keyof E)[]): R {
  row.name = entity.name ?? '';
  row.created_at = entity.created_at;
  row.updated_at = entity.updated_at;
  row.deleted_at = entity.deleted_at ?? null;
  row.fields = toDocument(entity, fields);
  return row;
}

/** The name, description and attributes of a request's entity, as stored (no attributes: absent). */
export function describedFields(entity: Described): Described {
  return {
    name: entity.name,
    description: entity.description,
    attributes: entity.attributes && Object.keys(entity.attributes).length > 0 ? plainJson(entity.attributes) : undefined,
  };
}

/** The named fields of a request's entity, in that order (the ones the IS stores as they come). */
export function copiedFields<T extends object, F extends keyof T>(source: T, fields: readonly F[]): Partial<Pick<T, F>> {
  const copy: Partial<Pick<T, F>> = {};
  for (const field of fields) copy[field] = source[field];
  return copy;
}
