import type { StoredUpRow } from './stored-up.store';
import { StoredUpWriter, type StoredUpWriterOptions } from './stored-up-writer';

const row = (n: number): StoredUpRow => ({ applicationId: 'app', deviceId: 'dev', type: 'uplink_message', receivedAt: n, up: `{"n":${n}}` });

/** A store that records each INSERT's rows, failing the first `failures` calls. */
function store(failures = 0) {
  const batches: number[][] = [];
  let calls = 0;
  return {
    batches,
    insert: async (rows: readonly StoredUpRow[]) => {
      calls++;
      if (calls <= failures) throw new Error('database away');
      batches.push(rows.map((r) => r.receivedAt));
    },
  };
}

const options = (o: Partial<StoredUpWriterOptions> = {}): StoredUpWriterOptions => ({
  bufferMax: 100,
  flushMs: 5,
  batchMax: 10,
  retryMs: 10,
  maxAttempts: 3,
  ...o,
});

describe('StoredUpWriter', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('writes the rows of a few ms as one batch, in order, and later rows as the next', async () => {
    const s = store();
    const writer = new StoredUpWriter(s, options());
    [1, 2, 3].forEach((n) => writer.add(row(n)));
    expect(s.batches).toEqual([]);
    await jest.advanceTimersByTimeAsync(5);
    expect(s.batches).toEqual([[1, 2, 3]]);
    writer.add(row(4));
    await jest.advanceTimersByTimeAsync(5);
    expect(s.batches).toEqual([[1, 2, 3], [4]]);
    expect(writer.pending).toBe(0);
  });

  it('splits a large buffer into batches of batchMax', async () => {
    const s = store();
    const writer = new StoredUpWriter(s, options({ batchMax: 2 }));
    [1, 2, 3, 4, 5].forEach((n) => writer.add(row(n)));
    await jest.advanceTimersByTimeAsync(50);
    expect(s.batches).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('keeps a failed batch ahead of newer rows and tries it again after a backoff', async () => {
    const s = store(2);
    const writer = new StoredUpWriter(s, options());
    writer.add(row(1));
    await jest.advanceTimersByTimeAsync(5);
    writer.add(row(2));
    expect(s.batches).toEqual([]);
    await jest.advanceTimersByTimeAsync(10 + 20);
    expect(s.batches).toEqual([[1, 2]]);
  });

  it('drops a batch that keeps failing, and goes on with the next rows', async () => {
    const s = store(3);
    const writer = new StoredUpWriter(s, options({ batchMax: 1 }));
    writer.add(row(1));
    writer.add(row(2));
    await jest.advanceTimersByTimeAsync(200);
    expect(s.batches).toEqual([[2]]);
  });

  it('refuses rows beyond its bound without throwing', async () => {
    const s = store();
    const writer = new StoredUpWriter(s, options({ bufferMax: 2 }));
    expect([writer.add(row(1)), writer.add(row(2)), writer.add(row(3))]).toEqual([true, true, false]);
    await jest.advanceTimersByTimeAsync(5);
    expect(s.batches).toEqual([[1, 2]]);
  });

  it('writes what is buffered on close, then takes nothing more', async () => {
    const s = store();
    const writer = new StoredUpWriter(s, options({ batchMax: 2 }));
    [1, 2, 3].forEach((n) => writer.add(row(n)));
    await writer.close();
    expect(s.batches).toEqual([[1, 2], [3]]);
    expect(writer.add(row(4))).toBe(false);
  });
});
