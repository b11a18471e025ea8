import { Inject, Injectable } from '@nestjs/common';
import type { GetStoredApplicationUpCountRequest, GetStoredApplicationUpRequest, JsonObject } from '@lorawan/api';
import { filterByFieldMask } from '../common/field-mask-filter';
import { STORED_UP_STORE, type StoredUpStore } from './stored-up.store';
import { type StoredUpSelection, decodeContinuation, encodeContinuation, storedUpCountFilter, storedUpFilter, storedUpSelection } from './stored-up-query';

/** Rows of one page at most, and its bytes (of stored JSON) at most: a page's reply stays well within the transport's 1 MiB. */
export const PAGE_ROWS = 500;
export const PAGE_BYTES = 512 * 1024;

/** One page of a storage query: its messages and, when more follow, the token of the next page. */
export interface StoredUpPage {
  results: JsonObject[];
  continuation_token?: string;
}

/**
 * The Storage Integration's queries (TTS `ApplicationUpStorage`). A query is answered a page at a
 * time, each at most PAGE_ROWS messages and about PAGE_BYTES, with a continuation token while more
 * match; the gateway asks for the pages in turn and streams the messages, so a query of any size
 * costs bounded memory here and on the way.
 */
@Injectable()
export class StorageQueryService {
  constructor(@Inject(STORED_UP_STORE) private readonly store: StoredUpStore) {}

  async getStored(req: GetStoredApplicationUpRequest): Promise<StoredUpPage> {
    const now = Date.now();
    // With a token, its filters apply (TTS: the other fields are ignored) but never its own identifiers: the request's.
    const ids = storedUpFilter({ application_ids: req.application_ids, end_device_ids: req.end_device_ids }, now);
    const { selection, cursor } = req.continuation_token
      ? decodeContinuation(req.continuation_token)
      : { selection: storedUpSelection(req, now), cursor: undefined };
    const query: StoredUpSelection = { ...selection, applicationId: ids.applicationId, deviceId: ids.deviceId };
    const rows = Math.min(PAGE_ROWS, query.limit > 0 ? query.limit : PAGE_ROWS);
    const found = await this.store.query({ ...query, limit: rows + 1, cursor });
    const page: typeof found = [];
    let bytes = 0;
    for (const row of found.slice(0, rows)) {
      if (page.length > 0 && bytes + row.up.length > PAGE_BYTES) break;
      page.push(row);
      bytes += row.up.length;
    }
    const results = page.map((row) => filterByFieldMask(JSON.parse(row.up) as JsonObject, query.paths));
    const remaining = query.limit > 0 ? query.limit - page.length : 0;
    const more = found.length > page.length && (query.limit === 0 || remaining > 0);
    if (!more) return { results };
    const last = page[page.length - 1];
    const { applicationId: _a, deviceId: _d, ...rest } = query;
    return {
      results,
      continuation_token: encodeContinuation({ selection: { ...rest, limit: remaining }, cursor: { receivedAt: last.receivedAt, id: last.id } }),
    };
  }

  async count(req: GetStoredApplicationUpCountRequest): Promise<{ count?: Record<string, number> }> {
    const count = await this.store.count(storedUpCountFilter(req, Date.now()));
    return Object.keys(count).length > 0 ? { count } : {};
  }
}
