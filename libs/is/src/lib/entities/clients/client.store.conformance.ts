import type { CollaboratorStore } from '../collaborators/collaborator.model';
import type { EntityListQuery } from '../common/entity-list';
import { ts, user } from '../identity.store.conformance';
import type { UserStore } from '../users/user.model';
import type { ClientOrder, ClientStore, IsClient } from './client.model';

/**
 * The behaviour every store of OAuth clients must have (with the collaborators table it shares
 * with the other entities), run against each implementation (MySQL and SQLite through TypeORM) by
 * `typeorm-client.store.int-spec.ts`.
 */
export interface ClientStoresUnderTest {
  users: UserStore;
  clients: ClientStore;
  collaborators: CollaboratorStore;
  close(): Promise<void>;
}

export function client(id: string, extra: Partial<IsClient> = {}): IsClient {
  const now = ts();
  return { ids: { client_id: id }, created_at: now, updated_at: now, ...extra };
}

const owner = (userId: string) => ({ ids: { kind: 'user' as const, id: userId }, rights: ['RIGHT_ALL' as const] });
const HASH = 'PBKDF2$sha256$10000$c2FsdHNhbHRzYWx0$a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2U';

function page(order: ClientOrder, extra: Partial<EntityListQuery<ClientOrder>> = {}): EntityListQuery<ClientOrder> {
  return { order, descending: false, deleted: false, limit: 100, offset: 0, ...extra };
}

export function describeClientStoreConformance(name: string, open: () => Promise<ClientStoresUnderTest>): void {
  describe(`Client store conformance: ${name}`, () => {
    let sut: ClientStoresUnderTest;
    beforeAll(async () => {
      sut = await open();
      for (const id of ['cs-alice', 'cs-bob']) await sut.users.create(user(id, { state: 'STATE_APPROVED' }));
    });
    afterAll(async () => sut.close());

    it('creates a client with every field, its secret hash and its collaborator, round-tripped exactly', async () => {
      const c = client('cs-rt', {
        name: 'Ünïcode ✓',
        description: 'd'.repeat(2000),
        attributes: { team: 'radio' },
        administrative_contact: { user_ids: { user_id: 'cs-alice' } },
        technical_contact: { user_ids: { user_id: 'cs-alice' } },
        redirect_uris: ['https://a.example/cb', 'http://localhost:8080/cb'],
        logout_redirect_uris: ['https://a.example/'],
        state: 'STATE_APPROVED',
        state_description: 'ok',
        skip_authorization: true,
        endorsed: true,
        grants: ['GRANT_AUTHORIZATION_CODE', 'GRANT_REFRESH_TOKEN'],
        rights: ['RIGHT_USER_INFO', 'RIGHT_APPLICATION_INFO'],
      });
      expect(await sut.clients.create(c, HASH, owner('cs-alice'))).toEqual({ ok: true });
      expect(await sut.clients.get('cs-rt')).toEqual(c);
      expect(await sut.clients.secretHash('cs-rt')).toBe(HASH);
      expect(await sut.clients.exists('cs-rt')).toBe(true);
      expect(await sut.collaborators.rightsOf('cs-alice', { kind: 'client', id: 'cs-rt' })).toEqual(['RIGHT_ALL']);
      expect(await sut.collaborators.rightsOf('cs-bob', { kind: 'client', id: 'cs-rt' })).toEqual([]);
    });

    it('stores a client without a secret', async () => {
      expect(await sut.clients.create(client('cs-nosecret'), undefined, owner('cs-alice'))).toEqual({ ok: true });
      expect(await sut.clients.secretHash('cs-nosecret')).toBeUndefined();
    });

    it('refuses a taken ID and stores nothing of the second attempt', async () => {
      await sut.clients.create(client('cs-taken', { name: 'first' }), HASH, owner('cs-alice'));
      expect(await sut.clients.create(client('cs-taken', { name: 'second' }), undefined, owner('cs-bob'))).toEqual({ ok: false, conflict: 'id' });
      expect((await sut.clients.get('cs-taken'))?.name).toBe('first');
      expect(await sut.clients.secretHash('cs-taken')).toBe(HASH);
      expect(await sut.collaborators.rightsOf('cs-bob', { kind: 'client', id: 'cs-taken' })).toEqual([]);
    });

    it('lets exactly one of concurrent creates of an ID win, with its collaborator only', async () => {
      const results = await Promise.all(['cs-alice', 'cs-bob'].map((u) => sut.clients.create(client('cs-race', { name: u }), HASH, owner(u))));
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      const winner = (await sut.clients.get('cs-race'))?.name ?? '';
      const loser = winner === 'cs-alice' ? 'cs-bob' : 'cs-alice';
      expect(await sut.collaborators.rightsOf(winner, { kind: 'client', id: 'cs-race' })).toEqual(['RIGHT_ALL']);
      expect(await sut.collaborators.rightsOf(loser, { kind: 'client', id: 'cs-race' })).toEqual([]);
    });

    it('soft-deletes: gone from the live scope, the ID still taken, its collaborators grant nothing; restores', async () => {
      await sut.clients.create(client('cs-del'), HASH, owner('cs-alice'));
      expect(await sut.clients.softDelete('cs-del', ts())).toBe(true);
      expect(await sut.clients.softDelete('cs-del', ts())).toBe(false);
      expect(await sut.clients.get('cs-del')).toBeUndefined();
      expect(await sut.clients.exists('cs-del')).toBe(false);
      expect(await sut.clients.secretHash('cs-del')).toBeUndefined();
      expect((await sut.clients.get('cs-del', 'deleted'))?.deleted_at).toBeDefined();
      expect(await sut.collaborators.rightsOf('cs-alice', { kind: 'client', id: 'cs-del' })).toEqual([]);
      expect(await sut.clients.create(client('cs-del'), undefined, owner('cs-bob'))).toEqual({ ok: false, conflict: 'id' });
      expect(await sut.clients.restore('cs-del')).toBe(true);
      expect(await sut.clients.restore('cs-del')).toBe(false);
      expect(await sut.collaborators.rightsOf('cs-alice', { kind: 'client', id: 'cs-del' })).toEqual(['RIGHT_ALL']);
      expect(await sut.clients.secretHash('cs-del')).toBe(HASH);
    });

    it('purges a live or deleted client with its collaborators; the ID is free again', async () => {
      await sut.clients.create(client('cs-purge'), HASH, owner('cs-alice'));
      await sut.clients.softDelete('cs-purge', ts());
      expect(await sut.clients.purge('cs-purge')).toBe(true);
      expect(await sut.clients.purge('cs-purge')).toBe(false);
      expect(await sut.clients.get('cs-purge', 'any')).toBeUndefined();
      expect(await sut.clients.create(client('cs-purge'), undefined, owner('cs-bob'))).toEqual({ ok: true });
      expect(await sut.collaborators.rightsOf('cs-alice', { kind: 'client', id: 'cs-purge' })).toEqual([]);
      expect(await sut.collaborators.rightsOf('cs-bob', { kind: 'client', id: 'cs-purge' })).toEqual(['RIGHT_ALL']);
    });

    it('replaces only against the expected updated_at; keeps, replaces or removes the secret hash as told', async () => {
      const c = client('cs-upd', { name: 'a' });
      await sut.clients.create(c, HASH, owner('cs-alice'));
      const next = { ...c, name: 'b', redirect_uris: ['https://b.example/cb'], updated_at: ts() };
      expect(await sut.clients.replace(next, c.updated_at)).toBe(true);
      expect(await sut.clients.replace({ ...next, name: 'stale' }, c.updated_at)).toBe(false);
      expect(await sut.clients.get('cs-upd')).toEqual(next);
      expect(await sut.clients.secretHash('cs-upd')).toBe(HASH);
      const again = { ...next, updated_at: ts() };
      expect(await sut.clients.replace(again, next.updated_at, 'PBKDF2$sha256$1$new$a2V5')).toBe(true);
      expect(await sut.clients.secretHash('cs-upd')).toBe('PBKDF2$sha256$1$new$a2V5');
      const cleared = { ...again, updated_at: ts() };
      expect(await sut.clients.replace(cleared, again.updated_at, null)).toBe(true);
      expect(await sut.clients.secretHash('cs-upd')).toBeUndefined();
      await sut.clients.softDelete('cs-upd', ts());
      expect(await sut.clients.replace({ ...cleared, updated_at: ts() }, cleared.updated_at)).toBe(false);
    });

    describe('list', () => {
      beforeAll(async () => {
        await sut.users.create(user('cs-lina', { state: 'STATE_APPROVED' }));
        for (const [id, name] of [
          ['cs-l3', 'Charlie'],
          ['cs-l1', 'Alpha'],
          ['cs-l2', 'Alpha'],
        ])
          await sut.clients.create(client(id, { name }), undefined, owner('cs-lina'));
        await sut.clients.create(client('cs-l-gone'), undefined, owner('cs-lina'));
        await sut.clients.softDelete('cs-l-gone', ts());
      });
      const idsOf = (clients: IsClient[]) => clients.map((c) => c.ids.client_id);

      it("lists a collaborator's live clients in each order, ties broken by ID in the same direction, with the total", async () => {
        expect(idsOf((await sut.clients.list(page('client_id', { collaborator: 'cs-lina' }))).clients)).toEqual(['cs-l1', 'cs-l2', 'cs-l3']);
        expect(idsOf((await sut.clients.list(page('name', { collaborator: 'cs-lina', descending: true }))).clients)).toEqual(['cs-l3', 'cs-l2', 'cs-l1']);
        expect(idsOf((await sut.clients.list(page('created_at', { collaborator: 'cs-lina' }))).clients)).toEqual(['cs-l3', 'cs-l1', 'cs-l2']);
        const second = await sut.clients.list(page('client_id', { collaborator: 'cs-lina', limit: 2, offset: 2 }));
        expect(second).toMatchObject({ total: 3 });
        expect(idsOf(second.clients)).toEqual(['cs-l3']);
      });

      it('lists soft-deleted clients only when asked, and all clients without a collaborator', async () => {
        expect(idsOf((await sut.clients.list(page('client_id', { collaborator: 'cs-lina', deleted: true }))).clients)).toEqual(['cs-l-gone']);
        const all = idsOf((await sut.clients.list(page('client_id', { limit: 1000 }))).clients);
        expect(all).toEqual(expect.arrayContaining(['cs-l1', 'cs-l2', 'cs-l3', 'cs-rt']));
        expect(all).not.toContain('cs-l-gone');
      });

      it('reads the rights a user holds on many clients at once', async () => {
        const held = await sut.collaborators.rightsOn('cs-lina', 'client', ['cs-l1', 'cs-l3', 'cs-rt']);
        expect([...held.entries()].sort()).toEqual([
          ['cs-l1', ['RIGHT_ALL']],
          ['cs-l3', ['RIGHT_ALL']],
        ]);
      });
    });
  });
}
