/** Which rows a lookup sees: live ones (the default everywhere), soft-deleted ones, or both. */
export type Scope = 'active' | 'deleted' | 'any';

/** One page of an entity List, as the stores take it. */
export interface EntityListQuery<O extends string> {
  /** Only entities this account (user or organization) collaborates on, directly or, for a user, through its organizations; absent: all of them. */
  collaborator?: string;
  /** Only soft-deleted entities (else only live ones). */
  deleted: boolean;
  order: O;
  descending: boolean;
  limit: number;
  offset: number;
}

export interface ListRequest {
  order?: string;
  limit?: number;
  page?: number;
  deleted?: boolean;
}

/** TTS `Pagination.DefaultLimit`: the page size when the request has none. */
export const DEFAULT_LIMIT = 100;

/**
 * The store query of a List request (TTS `store.WithOrder`, `WithPagination`): `order` is a field
 * name, `-` for descending (the contract validated it), default the ID; `limit` 0 is the default
 * limit; `page` 0 is the first page.
 */
export function listQuery<O extends string>(req: ListRequest, defaultOrder: O, collaborator?: string): EntityListQuery<O> {
  const limit = req.limit || DEFAULT_LIMIT;
  const page = Math.max(req.page ?? 0, 1);
  return {
    ...(collaborator === undefined ? {} : { collaborator }),
    deleted: req.deleted ?? false,
    order: ((req.order ?? '').replace(/^-/, '') || defaultOrder) as O,
    descending: req.order?.startsWith('-') ?? false,
    limit,
    offset: (page - 1) * limit,
  };
}
