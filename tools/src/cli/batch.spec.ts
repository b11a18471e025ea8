import { type BatchRoute, namedItem, sendBatched } from './batch';
import { ApiError, type TtsErrorDetails } from './errors';
import type { JsonObject } from './split';

const apiError = (status: number, details?: TtsErrorDetails) =>
  new ApiError('PUT /x', status, details ? { code: details.code, message: 'error', details: [details] } : undefined, `HTTP ${status}`);

/** The server's answer to a batch whose item `index` failed with `cause` (`pkg/errors:batch_item`). */
const itemError = (index: number, cause: TtsErrorDetails, status = 409) =>
  apiError(status, { namespace: 'pkg/errors', name: 'batch_item', message_format: 'item {index} of the batch failed', attributes: { index }, code: 6, cause });

const ID_TAKEN: TtsErrorDetails = { namespace: 'pkg/util/store', name: 'id_taken', message_format: 'ID already taken', code: 6 };

describe('namedItem', () => {
  it('takes an index attribute and gives the item its own error, the cause', () => {
    const named = namedItem(itemError(2, ID_TAKEN), 5);
    expect(named?.index).toBe(2);
    expect(named?.error.status).toBe(409);
    expect(named?.error.body?.details?.[0]).toEqual(ID_TAKEN);
    expect(named?.error.body?.message).toBe('error:pkg/util/store:id_taken (ID already taken)');
  });

  it('takes end_devices[i] / requests[i] of a validation error, kept whole', () => {
    const validation = (field: string) =>
      apiError(400, {
        namespace: 'pkg/errors',
        name: 'validation',
        attributes: { field },
        code: 3,
        cause: { namespace: 'pkg/errors', name: 'validation', attributes: { field: 'dev_eui' }, code: 3 },
      });
    const err = validation('end_devices[3]');
    expect(namedItem(err, 5)).toEqual({ index: 3, error: err });
    expect(namedItem(validation('requests[0].end_device'), 1)?.index).toBe(0);
  });

  it('finds the index deeper in the cause chain', () => {
    const err = apiError(400, {
      namespace: 'x',
      name: 'outer',
      code: 3,
      cause: { namespace: 'y', name: 'inner', attributes: { field: 'requests[1]' }, code: 3 },
    });
    expect(namedItem(err, 2)?.index).toBe(1);
  });

  it('none when nothing names an item, or the index is out of range', () => {
    expect(namedItem(apiError(403, { namespace: 'pkg/auth/rights', name: 'insufficient_application_rights', code: 7 }), 5)).toBeUndefined();
    expect(namedItem(apiError(503), 5)).toBeUndefined();
    expect(namedItem(itemError(5, ID_TAKEN), 5)).toBeUndefined();
  });
});

/** A route over numbers whose batch fails as `batchFails` says; records every call. */
function fakeRoute(options: { batchFails?: (items: readonly number[]) => ApiError | undefined; singleFails?: (item: number) => ApiError | undefined }) {
  const calls: string[] = [];
  const route: BatchRoute<number> = {
    name: 'test',
    batch: async (items) => {
      calls.push(`batch ${items.join(',')}`);
      const err = options.batchFails?.(items);
      if (err) throw err;
      return items.map((n): JsonObject => ({ n }));
    },
    single: async (item) => {
      calls.push(`single ${item}`);
      const err = options.singleFails?.(item);
      if (err) throw err;
      return { n: item };
    },
  };
  return { route, calls };
}

describe('sendBatched', () => {
  it('one batch when every item is accepted', async () => {
    const { route, calls } = fakeRoute({});
    const outcomes = await sendBatched([1, 2, 3], route, { useBatch: true });
    expect(outcomes).toEqual([1, 2, 3].map((n) => ({ ok: true, body: { n } })));
    expect(calls).toEqual(['batch 1,2,3']);
  });

  it('fails the named items and sends the rest again without them', async () => {
    const bad = new Set([2, 4]);
    const { route, calls } = fakeRoute({
      batchFails: (items) => {
        const i = items.findIndex((n) => bad.has(n));
        return i < 0 ? undefined : itemError(i, ID_TAKEN);
      },
    });
    const outcomes = await sendBatched([1, 2, 3, 4, 5], route, { useBatch: true });
    expect(outcomes.map((o) => o.ok)).toEqual([true, false, true, false, true]);
    const failed = outcomes[1];
    expect(!failed.ok && failed.error.body?.details?.[0].name).toBe('id_taken');
    expect(calls).toEqual(['batch 1,2,3,4,5', 'batch 1,3,4,5', 'batch 1,3,5']);
  });

  it('splits a batch the server finds too large', async () => {
    const { route, calls } = fakeRoute({ batchFails: (items) => (items.length > 2 ? apiError(413) : undefined) });
    const outcomes = await sendBatched([1, 2, 3, 4, 5], route, { useBatch: true });
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(calls).toEqual(['batch 1,2,3,4,5', 'batch 1,2,3', 'batch 1,2', 'single 3', 'batch 4,5']);
  });

  it('a refusal of the whole batch goes item by item, each with its own answer; batches stay on', async () => {
    const forbidden = apiError(403, { namespace: 'pkg/auth/rights', name: 'insufficient_application_rights', code: 7 });
    const { route, calls } = fakeRoute({ batchFails: () => forbidden, singleFails: (n) => (n === 2 ? forbidden : undefined) });
    const state = { useBatch: true };
    const outcomes = await sendBatched([1, 2, 3], route, state);
    expect(outcomes.map((o) => o.ok)).toEqual([true, false, true]);
    expect(calls).toEqual(['batch 1,2,3', 'single 1', 'single 2', 'single 3']);
    expect(state.useBatch).toBe(true);
  });

  it('a server without the batch route: singles, and no more batches', async () => {
    const { route, calls } = fakeRoute({ batchFails: () => apiError(404) });
    const state = { useBatch: true };
    await sendBatched([1, 2], route, state);
    expect(state.useBatch).toBe(false);
    await sendBatched([3, 4], route, state);
    expect(calls).toEqual(['batch 1,2', 'single 1', 'single 2', 'single 3', 'single 4']);
  });

  it('throws what is not an API error', async () => {
    const route: BatchRoute<number> = { name: 'test', batch: () => Promise.reject(new TypeError('bug')), single: () => Promise.resolve({}) };
    await expect(sendBatched([1, 2], route, { useBatch: true })).rejects.toThrow('bug');
  });
});
