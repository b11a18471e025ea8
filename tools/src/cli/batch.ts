/**
 * Sending many requests of one kind through a batch route (all or nothing on the server) so that
 * one bad item does not fail the others: a batch error that names an item (`end_devices[i]`,
 * `requests[i]`, an `index` attribute) fails that item with the server's error and the batch is
 * sent again without it; a body too large is split in halves; any other failure of the batch
 * (no batch route on this server, a refusal that concerns every item such as missing rights, no
 * answer) falls back to the single route, item by item, so each item gets its own answer.
 */
import { mapConcurrent } from './concurrency';
import { ApiError, detailsText, type TtsErrorDetails } from './errors';
import type { JsonObject } from './split';

export type Outcome = { ok: true; body: JsonObject } | { ok: false; error: ApiError };

export interface BatchRoute<T> {
  /** What the batch is for, in the note printed when its route is missing (`IS create`). */
  name: string;
  /** One batch request; resolves the answers in the order of `items`. */
  batch(items: readonly T[]): Promise<JsonObject[]>;
  /** The single route. */
  single(item: T): Promise<JsonObject>;
}

/** Whether batches are still worth trying; cleared when a server turns out not to have the route. */
export interface BatchState {
  useBatch: boolean;
}

/** Single requests in flight at once when a batch falls back to them. */
const SINGLE_CONCURRENCY = 4;

/** Statuses with which a server without the batch route answers it (no route, or the single route's reading of "batch"). */
const NO_ROUTE_STATUSES = new Set([400, 404, 405, 501]);

const INDEXED_FIELD = /^(?:end_devices|requests|device_ids)\[(\d+)\]/;

/**
 * The item a batch error names, looking through the cause chain: an `index` attribute or a
 * validation error's `field` (`end_devices[i]…`, `requests[i]…`). Undefined when none is named or
 * the index is out of range. The item's error is the server's: an error that only says which
 * item failed (`pkg/errors:batch_item`, with an `index`) gives way to its cause, the item's own
 * error; a validation error naming `end_devices[i]` is kept whole, its cause names the field.
 */
export function namedItem(err: ApiError, count: number): { index: number; error: ApiError } | undefined {
  let details: TtsErrorDetails | undefined = err.body?.details?.[0];
  while (details) {
    const attributes = details.attributes ?? {};
    const index = attributes.index;
    if ((typeof index === 'number' || typeof index === 'string') && /^\d+$/.test(String(index))) {
      if (Number(index) >= count) return undefined;
      const cause = details.cause;
      if (!cause) return { index: Number(index), error: err };
      const message = detailsText(cause);
      return {
        index: Number(index),
        error: new ApiError(err.request, err.status, { code: cause.code, message, details: [cause] }, `HTTP ${err.status}: ${message}`),
      };
    }
    const match = typeof attributes.field === 'string' ? INDEXED_FIELD.exec(attributes.field) : null;
    if (match) return Number(match[1]) < count ? { index: Number(match[1]), error: err } : undefined;
    details = details.cause;
  }
  return undefined;
}

function answers(bodies: JsonObject[], count: number, name: string): Outcome[] {
  if (bodies.length !== count) throw new Error(`${name}: the batch answered ${bodies.length} items for ${count}`);
  return bodies.map((body) => ({ ok: true, body }));
}

async function singles<T>(items: readonly T[], route: BatchRoute<T>): Promise<Outcome[]> {
  return mapConcurrent(items, SINGLE_CONCURRENCY, async (item): Promise<Outcome> => {
    try {
      return { ok: true, body: await route.single(item) };
    } catch (err) {
      if (err instanceof ApiError) return { ok: false, error: err };
      throw err;
    }
  });
}

/**
 * Sends `items` through `route`, in as few batches as the answers allow; one outcome per item, in
 * order. Throws only what is not an API error (a bug).
 */
export async function sendBatched<T>(items: readonly T[], route: BatchRoute<T>, state: BatchState): Promise<Outcome[]> {
  const outcomes = new Array<Outcome>(items.length);
  let pending = items.map((_, i) => i);
  while (pending.length > 0) {
    if (!state.useBatch || pending.length === 1) {
      const results = await singles(
        pending.map((i) => items[i]),
        route,
      );
      pending.forEach((i, k) => (outcomes[i] = results[k]));
      break;
    }
    try {
      const results = answers(await route.batch(pending.map((i) => items[i])), pending.length, route.name);
      pending.forEach((i, k) => (outcomes[i] = results[k]));
      break;
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      const named = namedItem(err, pending.length);
      if (named !== undefined) {
        outcomes[pending[named.index]] = { ok: false, error: named.error };
        pending = pending.filter((_, k) => k !== named.index);
        continue;
      }
      if (err.status === 413) {
        const half = Math.ceil(pending.length / 2);
        for (const part of [pending.slice(0, half), pending.slice(half)]) {
          const results = await sendBatched(
            part.map((i) => items[i]),
            route,
            state,
          );
          part.forEach((i, k) => (outcomes[i] = results[k]));
        }
        break;
      }
      const results = await singles(
        pending.map((i) => items[i]),
        route,
      );
      pending.forEach((i, k) => (outcomes[i] = results[k]));
      // Every item went through alone where the batch was refused as a whole: the route is missing.
      if (state.useBatch && err.status !== undefined && NO_ROUTE_STATUSES.has(err.status) && results.every((r) => r.ok)) state.useBatch = false;
      break;
    }
  }
  return outcomes;
}
