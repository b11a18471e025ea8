import type { EntityRef } from '@lorawan/api';
import type { ApiKeyRecord, ApiKeyStore } from './api-key.model';

/**
 * The behaviour every ApiKeyStore must have, run against the TypeORM store on MySQL and SQLite
 * (`typeorm-api-key.store.int-spec.ts`) and against the in-memory test double (unit).
 */
export interface ApiKeyStoreUnderTest {
  store: ApiKeyStore;
  close(): Promise<void>;
}

let seq = 0;
const DIGITS = 'ABCDEFGHIJ';
/** A distinct 39-character base32 ID that sorts as `n` does (digits written as A–J). */
export function keyId(n: number): string {
  return `K${String(n)
    .padStart(6, '0')
    .replace(/\d/g, (d) => DIGITS[Number(d)])}`.padEnd(39, 'Q');
}

/** The `n` of a `keyId(n)`. */
export function keyNumber(id: string): number {
  return Number(id.slice(1, 7).replace(/[A-J]/g, (c) => String(DIGITS.indexOf(c))));
}

function ts(offsetSeconds: number): string {
  return new Date(Date.UTC(2024, 4, 1, 10, 0, offsetSeconds)).toISOString().replace(/\.(\d{3})Z$/, '.$1123Z');
}

export function apiKey(owner: EntityRef, n: number, extra: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  seq += 1;
  return {
    id: keyId(n),
    secret_hash: `PBKDF2$sha256$10000$salt${String(n).padStart(12, '0')}$${'h'.repeat(43)}`,
    name: `key ${n}`,
    rights: ['RIGHT_APPLICATION_INFO'],
    owner,
    created_at: ts(seq),
    updated_at: ts(seq),
    ...extra,
  };
}

export function describeApiKeyStoreConformance(name: string, open: () => Promise<ApiKeyStoreUnderTest>): void {
  describe(`ApiKeyStore conformance: ${name}`, () => {
    let sut: ApiKeyStoreUnderTest;
    let store: ApiKeyStore;
    beforeAll(async () => {
      sut = await open();
      store = sut.store;
    });
    afterAll(async () => sut.close());

    const app1: EntityRef = { kind: 'application', id: 'app-1' };
    const app2: EntityRef = { kind: 'application', id: 'app-2' };
    const gtw1: EntityRef = { kind: 'gateway', id: 'app-1' };
    const usr1: EntityRef = { kind: 'user', id: 'usr-1' };

    it('creates a key and finds it by ID exactly as stored (rights in the given order, no expiry)', async () => {
      const k = apiKey(app1, 1, { name: 'Kéy ✓', rights: ['RIGHT_APPLICATION_LINK', 'RIGHT_APPLICATION_DEVICES_READ', 'RIGHT_APPLICATION_INFO'] });
      await store.create(k);
      expect(await store.findById(k.id)).toEqual(k);
      expect(await store.get(app1, k.id)).toEqual(k);
    });

    it('round-trips an expiry with microseconds and an empty name', async () => {
      const k = apiKey(usr1, 2, { name: '', rights: ['RIGHT_ALL'], expires_at: '2031-02-03T04:05:06.123456Z' });
      await store.create(k);
      expect(await store.findById(k.id)).toEqual(k);
    });

    it('a key belongs to one entity: another entity (same ID, other kind) does not see it', async () => {
      expect(await store.get(app2, keyId(1))).toBeUndefined();
      expect(await store.get(gtw1, keyId(1))).toBeUndefined();
      expect(await store.findById(keyId(999))).toBeUndefined();
      expect(await store.delete(app2, keyId(1))).toBe(false);
      expect(await store.findById(keyId(1))).toBeDefined();
    });

    it('refuses a second key with the same ID', async () => {
      await expect(store.create(apiKey(app2, 1))).rejects.toBeDefined();
      expect((await store.findById(keyId(1)))?.owner).toEqual(app1);
    });

    describe('list', () => {
      const owner: EntityRef = { kind: 'gateway', id: 'gtw-list' };
      const created: ApiKeyRecord[] = [];
      beforeAll(async () => {
        // IDs ascending 100..104; names and expiry in another order; two unnamed, two without expiry.
        const specs: Array<Partial<ApiKeyRecord>> = [
          { name: 'delta', expires_at: '2030-01-01T00:00:00.000000Z' },
          { name: 'alpha' },
          { name: '', expires_at: '2029-01-01T00:00:00.000000Z' },
          { name: 'charlie', expires_at: '2030-01-01T00:00:00.000000Z' },
          { name: '' },
        ];
        for (const [i, extra] of specs.entries()) {
          const k = apiKey(owner, 100 + i, { rights: ['RIGHT_GATEWAY_INFO'], ...extra });
          created.push(k);
          await store.create(k);
        }
        await store.create(apiKey({ kind: 'gateway', id: 'gtw-other' }, 200));
      });

      const ids = (keys: ApiKeyRecord[]) => keys.map((k) => keyNumber(k.id));
      const list = (order: 'api_key_id' | 'name' | 'created_at' | 'expires_at', descending = false, limit = 100, offset = 0) =>
        store.list(owner, { order, descending, limit, offset });

      it('counts only the entity’s keys and returns them whole', async () => {
        const { keys, total } = await list('api_key_id');
        expect(total).toBe(5);
        expect(keys).toEqual(created);
      });

      it.each([
        ['api_key_id', false, [100, 101, 102, 103, 104]],
        ['api_key_id', true, [104, 103, 102, 101, 100]],
        ['name', false, [102, 104, 101, 103, 100]],
        ['name', true, [100, 103, 101, 104, 102]],
        ['created_at', false, [100, 101, 102, 103, 104]],
        ['created_at', true, [104, 103, 102, 101, 100]],
        // No expiry sorts first ascending (NULL), ties broken by ID in the same direction.
        ['expires_at', false, [101, 104, 102, 100, 103]],
        ['expires_at', true, [103, 100, 102, 104, 101]],
      ] as const)('orders by %s (descending: %s)', async (order, descending, expected) => {
        expect(ids((await list(order, descending)).keys)).toEqual(expected);
      });

      it('pages with limit and offset, the total unchanged', async () => {
        expect(ids((await list('name', false, 2, 0)).keys)).toEqual([102, 104]);
        const page = await list('name', false, 2, 4);
        expect(ids(page.keys)).toEqual([100]);
        expect(page.total).toBe(5);
        expect(await list('name', false, 2, 6)).toEqual({ keys: [], total: 5 });
      });

      it('an entity without keys lists nothing', async () => {
        expect(await store.list({ kind: 'gateway', id: 'gtw-none' }, { order: 'api_key_id', descending: false, limit: 10, offset: 0 })).toEqual({
          keys: [],
          total: 0,
        });
      });
    });

    describe('replace', () => {
      it('replaces name, rights and expiry only while the key still has the expected updated_at', async () => {
        const k = apiKey(app2, 300, { expires_at: '2030-01-01T00:00:00.000000Z' });
        await store.create(k);
        const next: ApiKeyRecord = { ...k, name: 'renamed', rights: ['RIGHT_APPLICATION_ALL'], updated_at: '2024-06-01T00:00:00.000001Z' };
        delete next.expires_at;
        expect(await store.replace(next, k.updated_at)).toBe(true);
        expect(await store.findById(k.id)).toEqual(next);
        // Stale: the key changed since.
        expect(await store.replace({ ...next, name: 'lost' }, k.updated_at)).toBe(false);
        const again = { ...next, expires_at: '2032-01-01T00:00:00.500000Z', updated_at: '2024-06-02T00:00:00.000000Z' };
        expect(await store.replace(again, next.updated_at)).toBe(true);
        expect(await store.findById(k.id)).toEqual(again);
      });

      it('never moves a key to another entity, nor touches its secret or creation time', async () => {
        const k = apiKey(app2, 301);
        await store.create(k);
        expect(await store.replace({ ...k, owner: app1, name: 'moved', updated_at: '2024-06-01T00:00:00.000000Z' }, k.updated_at)).toBe(false);
        expect(
          await store.replace(
            { ...k, secret_hash: 'other', created_at: '2020-01-01T00:00:00.000000Z', updated_at: '2024-06-01T00:00:00.000000Z' },
            k.updated_at,
          ),
        ).toBe(true);
        expect(await store.findById(k.id)).toMatchObject({ owner: app2, secret_hash: k.secret_hash, created_at: k.created_at });
      });

      it('a deleted key cannot be replaced', async () => {
        const k = apiKey(app2, 302);
        await store.create(k);
        expect(await store.delete(app2, k.id)).toBe(true);
        expect(await store.replace({ ...k, name: 'ghost' }, k.updated_at)).toBe(false);
        expect(await store.findById(k.id)).toBeUndefined();
        expect(await store.delete(app2, k.id)).toBe(false);
      });

      it('deletes a key with an expected updated_at only while it still has it', async () => {
        const k = apiKey(app2, 303);
        await store.create(k);
        const next: ApiKeyRecord = { ...k, rights: ['RIGHT_APPLICATION_ALL'], updated_at: '2024-06-03T00:00:00.000001Z' };
        expect(await store.replace(next, k.updated_at)).toBe(true);
        // Stale: the key changed since it was read.
        expect(await store.delete(app2, k.id, k.updated_at)).toBe(false);
        expect(await store.findById(k.id)).toEqual(next);
        expect(await store.delete(app1, k.id, next.updated_at)).toBe(false);
        expect(await store.delete(app2, k.id, next.updated_at)).toBe(true);
        expect(await store.findById(k.id)).toBeUndefined();
      });
    });

    it('deleteAllOf removes every key of the entity, answers their IDs and leaves other entities alone', async () => {
      const owner: EntityRef = { kind: 'application', id: 'app-purge' };
      for (const n of [400, 401, 402]) await store.create(apiKey(owner, n));
      const other = apiKey({ kind: 'user', id: 'app-purge' }, 403);
      await store.create(other);
      expect((await store.deleteAllOf(owner)).sort()).toEqual([keyId(400), keyId(401), keyId(402)]);
      expect((await store.list(owner, { order: 'api_key_id', descending: false, limit: 10, offset: 0 })).total).toBe(0);
      expect(await store.findById(other.id)).toEqual(other);
      expect(await store.deleteAllOf(owner)).toEqual([]);
    });
  });
}
