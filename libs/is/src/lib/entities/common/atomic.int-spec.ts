/** runAtomically (@lorawan/persistence) against the IS schema, on MySQL and SQLite. */
import { isDuplicateKeyError, runAtomically } from '@lorawan/persistence';
import type { DataSource } from 'typeorm';
import { IS_TEST_DATABASE_ENGINES } from '../../is-test-databases.conformance';

const insert = (entityId: string, userId: string) => ({
  sql: "INSERT INTO collaborators (entity_kind, entity_id, account_id, rights, created_at, updated_at) VALUES ('application', ?, ?, '[]', ?, ?)",
  params: [entityId, userId, '2024-05-01 10:00:00.000000', '2024-05-01 10:00:00.000000'],
});

describe.each(IS_TEST_DATABASE_ENGINES)('runAtomically on %s', (_, open) => {
  let ds: DataSource;
  let close: () => Promise<void>;
  const count = async (entityId: string) =>
    Number(((await ds.query('SELECT COUNT(*) AS n FROM collaborators WHERE entity_id = ?', [entityId])) as Array<{ n: number | string }>)[0].n);
  beforeAll(async () => {
    ({ ds, close } = await open());
  });
  afterAll(async () => close());

  it('applies every statement and answers the rows each changed', async () => {
    expect(
      await runAtomically(ds, [insert('ok', 'a'), insert('ok', 'b'), { sql: 'DELETE FROM collaborators WHERE entity_id = ?', params: ['nothing'] }]),
    ).toEqual([1, 1, 0]);
    expect(await count('ok')).toBe(2);
  });

  it('applies nothing when a later statement fails', async () => {
    // Matched by code: a native driver error may come from another test file's realm, failing `instanceof Error`.
    const err = await runAtomically(ds, [insert('half', 'a'), insert('half', 'a')]).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isDuplicateKeyError(err)).toBe(true);
    expect(await count('half')).toBe(0);
  });

  it('runs many batches side by side, each all or nothing', async () => {
    const batches = Array.from({ length: 20 }, (_, i) =>
      runAtomically(ds, i % 2 === 0 ? [insert(`par-${i}`, 'a'), insert(`par-${i}`, 'b')] : [insert(`par-${i}`, 'a'), insert(`par-${i}`, 'a')]),
    );
    const results = await Promise.allSettled(batches);
    for (let i = 0; i < 20; i++) {
      expect(results[i].status).toBe(i % 2 === 0 ? 'fulfilled' : 'rejected');
      expect(await count(`par-${i}`)).toBe(i % 2 === 0 ? 2 : 0);
    }
  });

  it('never joins a transaction another caller holds open on the connection', async () => {
    const other = ds.transaction(async (manager) => {
      await manager.query(insert('theirs', 'a').sql, insert('theirs', 'a').params);
      await new Promise((resolve) => setTimeout(resolve, 30));
      throw new Error('their rollback');
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const mine = runAtomically(ds, [insert('mine', 'a')]);
    await expect(other).rejects.toThrow('their rollback');
    await mine;
    expect(await count('theirs')).toBe(0);
    expect(await count('mine')).toBe(1);
  });
});
