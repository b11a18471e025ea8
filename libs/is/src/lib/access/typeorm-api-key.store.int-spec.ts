import type { DataSource } from 'typeorm';
import { IS_TEST_DATABASES, type OpenedDatabase, openIsMysql } from '../is-test-databases.conformance';
import { apiKey, describeApiKeyStoreConformance, keyId } from './api-key.store.conformance';
import { TypeOrmApiKeyStore } from './typeorm-api-key.store';

for (const [name, open] of IS_TEST_DATABASES) {
  describeApiKeyStoreConformance(name, async () => {
    const { ds, close } = await open();
    return { store: new TypeOrmApiKeyStore(ds), close };
  });
}

describe('MySQL query plans: key lookup and every List order use indexes', () => {
  let db: OpenedDatabase;
  let ds: DataSource;
  beforeAll(async () => {
    db = await openIsMysql();
    ({ ds } = db);
    const store = new TypeOrmApiKeyStore(ds);
    for (let a = 0; a < 4; a++) {
      await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          store.create(
            apiKey({ kind: 'application', id: `app-${a}` }, a * 1000 + i, { name: `n${i % 7}`, expires_at: i % 3 ? '2030-01-01T00:00:00.000000Z' : undefined }),
          ),
        ),
      );
    }
    await ds.query('ANALYZE TABLE api_keys');
  });
  afterAll(async () => db.close());

  it('the credential lookup is a primary-key lookup', async () => {
    const [row] = (await ds.query('EXPLAIN SELECT * FROM api_keys WHERE id = ?', [keyId(2005)])) as Array<{ type: string; key: string | null }>;
    expect(row.type).toBe('const');
    expect(row.key).toBe('PRIMARY');
  });

  it.each([
    ['id', 'idx_api_keys_entity'],
    ['name', 'idx_api_keys_entity_name'],
    ['created_at', 'idx_api_keys_entity_created_at'],
    ['expires_at', 'idx_api_keys_entity_expires_at'],
  ])('List ordered by %s walks %s without a filesort, both directions', async (column, index) => {
    for (const dir of ['ASC', 'DESC']) {
      const order = column === 'id' ? `id ${dir}` : `${column} ${dir}, id ${dir}`;
      const [row] = (await ds.query(`EXPLAIN SELECT * FROM api_keys WHERE entity_kind = ? AND entity_id = ? ORDER BY ${order} LIMIT 20 OFFSET 20`, [
        'application',
        'app-2',
      ])) as Array<{
        type: string;
        key: string | null;
        Extra: string | null;
      }>;
      expect(row.key).toBe(index);
      expect(row.Extra ?? '').not.toContain('filesort');
    }
  });
});
