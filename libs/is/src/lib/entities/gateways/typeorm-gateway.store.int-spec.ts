import { IS_TEST_DATABASE_ENGINES, testGatewaySecrets } from '../../is-test-databases.conformance';
import { TypeOrmGatewayStore } from './typeorm-gateway.store';

describe.each(IS_TEST_DATABASE_ENGINES)('gateway secrets at rest (%s)', (_engine, open) => {
  it('seals lbs_lns_secret and target_cups_key in the row (AES-GCM, the KEK label as key_id) and opens them when read', async () => {
    const db = await open();
    try {
      const store = new TypeOrmGatewayStore(db.ds, testGatewaySecrets());
      const now = '2024-05-01T10:00:00.000000Z';
      const lns = Buffer.from('NNSXS.LNS-SECRET-VALUE').toString('base64');
      const cups = Buffer.from('NNSXS.CUPS-SECRET-VALUE').toString('base64');
      const gateway = {
        ids: { gateway_id: 'gtw-sealed' },
        created_at: now,
        updated_at: now,
        lbs_lns_secret: { value: lns },
        target_cups_uri: 'https://cups.example.com',
        target_cups_key: { value: cups },
      };
      expect(await store.create(gateway, { ids: { kind: 'user', id: 'u' }, rights: ['RIGHT_ALL'] })).toEqual({ ok: true });
      const [row] = (await db.ds.query('SELECT fields FROM gateways WHERE gateway_id = ?', ['gtw-sealed'])) as Array<{ fields: string }>;
      const stored = JSON.parse(row.fields) as Record<string, { key_id?: string; value?: string }>;
      expect(stored['lbs_lns_secret'].key_id).toBe('is-test');
      expect(stored['target_cups_key'].key_id).toBe('is-test');
      expect(row.fields).not.toContain(lns);
      expect(row.fields).not.toContain(cups);
      expect(row.fields).not.toContain('SECRET-VALUE');
      expect(await store.get('gtw-sealed')).toEqual(gateway);
      // Sealed anew on each write (a random nonce), still opening to the same secret.
      expect(await store.replace({ ...gateway, updated_at: '2024-05-01T10:00:01.000000Z' }, now)).toEqual({ ok: true });
      const [again] = (await db.ds.query('SELECT fields FROM gateways WHERE gateway_id = ?', ['gtw-sealed'])) as Array<{ fields: string }>;
      expect((JSON.parse(again.fields) as typeof stored)['lbs_lns_secret'].value).not.toBe(stored['lbs_lns_secret'].value);
      expect((await store.get('gtw-sealed'))?.lbs_lns_secret).toEqual({ value: lns });
    } finally {
      await db.close();
    }
  });
});
