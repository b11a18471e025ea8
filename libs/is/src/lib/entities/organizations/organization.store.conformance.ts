import type { ApplicationStore } from '../applications/application.model';
import type { ClientStore } from '../clients/client.model';
import type { Collaborator, CollaboratorStore } from '../collaborators/collaborator.model';
import type { EntityListQuery } from '../common/entity-list';
import { application, ts, user } from '../identity.store.conformance';
import type { UserStore } from '../users/user.model';
import type { IsOrganization, OrganizationOrder, OrganizationStore } from './organization.model';

/**
 * The behaviour every store of organizations must have (with the accounts and collaborators tables
 * it shares with users and the other entities), run against each implementation (MySQL and SQLite
 * through TypeORM) by `typeorm-organization.store.int-spec.ts`.
 */
export interface OrganizationStoresUnderTest {
  users: UserStore;
  organizations: OrganizationStore;
  applications: ApplicationStore;
  clients: ClientStore;
  collaborators: CollaboratorStore;
  close(): Promise<void>;
}

export function organization(id: string, extra: Partial<IsOrganization> = {}): IsOrganization {
  const now = ts();
  return { ids: { organization_id: id }, created_at: now, updated_at: now, ...extra };
}

const member = (userId: string): Collaborator => ({ ids: { kind: 'user', id: userId }, rights: ['RIGHT_ALL'] });
const orgCollaborator = (organizationId: string): Collaborator => ({ ids: { kind: 'organization', id: organizationId }, rights: ['RIGHT_APPLICATION_ALL'] });
const orgRef = (id: string) => ({ kind: 'organization' as const, id });

function page(order: OrganizationOrder, extra: Partial<EntityListQuery<OrganizationOrder>> = {}): EntityListQuery<OrganizationOrder> {
  return { order, descending: false, deleted: false, limit: 100, offset: 0, ...extra };
}

export function describeOrganizationStoreConformance(name: string, open: () => Promise<OrganizationStoresUnderTest>): void {
  describe(`Organization store conformance: ${name}`, () => {
    let sut: OrganizationStoresUnderTest;
    beforeAll(async () => {
      sut = await open();
      for (const id of ['os-alice', 'os-bob']) await sut.users.create(user(id, { state: 'STATE_APPROVED' }));
    });
    afterAll(async () => sut.close());

    it('creates an organization with every field and its first member, round-tripped exactly', async () => {
      const org = organization('os-rt', {
        name: 'Ünïcode ✓',
        description: 'd'.repeat(2000),
        attributes: { team: 'radio' },
        administrative_contact: { user_ids: { user_id: 'os-alice' } },
        technical_contact: { user_ids: { user_id: 'os-alice' } },
        fanout_notifications: true,
      });
      expect(await sut.organizations.create(org, member('os-alice'))).toEqual({ ok: true });
      expect(await sut.organizations.get('os-rt')).toEqual(org);
      expect(await sut.organizations.exists('os-rt')).toBe(true);
      expect(await sut.collaborators.rightsOf('os-alice', orgRef('os-rt'))).toEqual(['RIGHT_ALL']);
      expect(await sut.collaborators.rightsOf('os-bob', orgRef('os-rt'))).toEqual([]);
    });

    it('refuses an ID taken by an organization, live or soft-deleted, and stores nothing of the second attempt', async () => {
      await sut.organizations.create(organization('os-taken', { name: 'first' }), member('os-alice'));
      expect(await sut.organizations.create(organization('os-taken', { name: 'second' }), member('os-bob'))).toEqual({ ok: false, conflict: 'id' });
      expect((await sut.organizations.get('os-taken'))?.name).toBe('first');
      expect(await sut.collaborators.rightsOf('os-bob', orgRef('os-taken'))).toEqual([]);
      expect(await sut.organizations.softDelete('os-taken', ts())).toEqual({ ok: true });
      expect(await sut.organizations.create(organization('os-taken'), member('os-bob'))).toEqual({ ok: false, conflict: 'id' });
    });

    it('shares one ID namespace with users: neither takes the ID of the other, live or soft-deleted', async () => {
      expect(await sut.organizations.create(organization('os-alice'), member('os-bob'))).toEqual({ ok: false, conflict: 'id' });
      expect(await sut.organizations.get('os-alice', 'any')).toBeUndefined();
      await sut.users.create(user('os-gone-user'));
      await sut.users.softDelete('os-gone-user', ts());
      expect(await sut.organizations.create(organization('os-gone-user'), member('os-bob'))).toEqual({ ok: false, conflict: 'id' });
      expect(await sut.users.create(user('os-rt'))).toEqual({ ok: false, conflict: 'id' });
      expect(await sut.users.get('os-rt', 'any')).toBeUndefined();
    });

    it('lets exactly one of concurrent creates of an ID win, with its member only', async () => {
      const results = await Promise.all(['os-alice', 'os-bob'].map((u) => sut.organizations.create(organization('os-race', { name: u }), member(u))));
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      const winner = (await sut.organizations.get('os-race'))?.name ?? '';
      const loser = winner === 'os-alice' ? 'os-bob' : 'os-alice';
      expect(await sut.collaborators.rightsOf(winner, orgRef('os-race'))).toEqual(['RIGHT_ALL']);
      expect(await sut.collaborators.rightsOf(loser, orgRef('os-race'))).toEqual([]);
    });

    it('refuses to soft-delete while collaborating on live entities, counting only live ones', async () => {
      await sut.organizations.create(organization('os-busy'), member('os-alice'));
      await sut.applications.create(application('os-busy-app'), orgCollaborator('os-busy'));
      await sut.clients.create({ ids: { client_id: 'os-busy-cli' }, created_at: ts(), updated_at: ts() }, undefined, {
        ids: { kind: 'organization', id: 'os-busy' },
        rights: ['RIGHT_CLIENT_ALL'],
      });
      expect(await sut.organizations.collaborationCount('os-busy')).toBe(2);
      expect(await sut.organizations.softDelete('os-busy', ts())).toEqual({ ok: false, reason: 'has_entities', count: 2 });
      expect(await sut.organizations.exists('os-busy')).toBe(true);
      await sut.clients.softDelete('os-busy-cli', ts());
      expect(await sut.organizations.softDelete('os-busy', ts())).toEqual({ ok: false, reason: 'has_entities', count: 1 });
      await sut.applications.softDelete('os-busy-app', ts());
      expect(await sut.organizations.collaborationCount('os-busy')).toBe(0);
      expect(await sut.organizations.softDelete('os-busy', ts())).toEqual({ ok: true });
      expect(await sut.organizations.softDelete('os-busy', ts())).toEqual({ ok: false, reason: 'not_found' });
      expect(await sut.organizations.softDelete('os-missing', ts())).toEqual({ ok: false, reason: 'not_found' });
    });

    it('soft-deletes: gone from the live scope, the ID still taken, its members hold nothing; restores', async () => {
      await sut.organizations.create(organization('os-del'), member('os-alice'));
      expect(await sut.organizations.softDelete('os-del', ts())).toEqual({ ok: true });
      expect(await sut.organizations.get('os-del')).toBeUndefined();
      expect(await sut.organizations.exists('os-del')).toBe(false);
      expect((await sut.organizations.get('os-del', 'deleted'))?.deleted_at).toBeDefined();
      expect(await sut.collaborators.rightsOf('os-alice', orgRef('os-del'))).toEqual([]);
      expect(await sut.organizations.restore('os-del')).toBe(true);
      expect(await sut.organizations.restore('os-del')).toBe(false);
      expect(await sut.collaborators.rightsOf('os-alice', orgRef('os-del'))).toEqual(['RIGHT_ALL']);
    });

    it('purges a live or deleted organization with its members, collaborations and account; the ID is free again', async () => {
      await sut.organizations.create(organization('os-purge'), member('os-alice'));
      await sut.applications.create(application('os-purge-app'), member('os-bob'));
      await sut.collaborators.change({ kind: 'application', id: 'os-purge-app' }, orgRef('os-purge'), () => ['RIGHT_APPLICATION_INFO'], ts());
      expect(await sut.collaborators.rightsOf('os-purge', { kind: 'application', id: 'os-purge-app' })).toEqual(['RIGHT_APPLICATION_INFO']);
      expect(await sut.organizations.purge('os-purge')).toBe(true);
      expect(await sut.organizations.purge('os-purge')).toBe(false);
      expect(await sut.organizations.get('os-purge', 'any')).toBeUndefined();
      const { collaborators } = await sut.collaborators.list(
        { kind: 'application', id: 'os-purge-app' },
        { order: 'id', descending: false, limit: 10, offset: 0 },
      );
      expect(collaborators.map((c) => c.ids)).toEqual([{ kind: 'user', id: 'os-bob' }]);
      // A user may take the ID now, and holds nothing the organization held.
      expect(await sut.users.create(user('os-purge'))).toEqual({ ok: true });
      expect(await sut.collaborators.rightsOf('os-purge', { kind: 'application', id: 'os-purge-app' })).toEqual([]);
      await sut.organizations.create(organization('os-purge2'), member('os-alice'));
      await sut.organizations.softDelete('os-purge2', ts());
      expect(await sut.organizations.purge('os-purge2')).toBe(true);
      expect(await sut.organizations.create(organization('os-purge2'), member('os-bob'))).toEqual({ ok: true });
      expect(await sut.collaborators.rightsOf('os-alice', orgRef('os-purge2'))).toEqual([]);
      expect(await sut.collaborators.rightsOf('os-bob', orgRef('os-purge2'))).toEqual(['RIGHT_ALL']);
    });

    it('does not free the ID of a user of the same name when purging nothing', async () => {
      expect(await sut.organizations.purge('os-alice')).toBe(false);
      expect(await sut.organizations.create(organization('os-alice'), member('os-bob'))).toEqual({ ok: false, conflict: 'id' });
    });

    it('replaces only against the expected updated_at, and only live organizations', async () => {
      const org = organization('os-upd', { name: 'a' });
      await sut.organizations.create(org, member('os-alice'));
      const next = { ...org, name: 'b', fanout_notifications: true, updated_at: ts() };
      expect(await sut.organizations.replace(next, org.updated_at)).toBe(true);
      expect(await sut.organizations.replace({ ...next, name: 'stale' }, org.updated_at)).toBe(false);
      expect(await sut.organizations.get('os-upd')).toEqual(next);
      await sut.organizations.softDelete('os-upd', ts());
      expect(await sut.organizations.replace({ ...next, updated_at: ts() }, next.updated_at)).toBe(false);
    });

    describe('list', () => {
      beforeAll(async () => {
        for (const id of ['os-lina', 'os-lars']) await sut.users.create(user(id, { state: 'STATE_APPROVED' }));
        for (const [id, name] of [
          ['os-l3', 'Charlie'],
          ['os-l1', 'Alpha'],
          ['os-l2', 'Alpha'],
        ])
          await sut.organizations.create(organization(id, { name }), member('os-lina'));
        await sut.organizations.create(organization('os-l-lars'), member('os-lars'));
        await sut.organizations.create(organization('os-l-gone'), member('os-lina'));
        await sut.organizations.softDelete('os-l-gone', ts());
      });
      const idsOf = (orgs: IsOrganization[]) => orgs.map((o) => o.ids.organization_id);

      it("lists a member's live organizations in each order, ties broken by ID in the same direction, with the total", async () => {
        const of = (extra: Partial<EntityListQuery<OrganizationOrder>>, order: OrganizationOrder = 'organization_id') =>
          sut.organizations.list(page(order, { collaborator: 'os-lina', ...extra }));
        expect(idsOf((await of({})).organizations)).toEqual(['os-l1', 'os-l2', 'os-l3']);
        expect(idsOf((await of({ descending: true }, 'name')).organizations)).toEqual(['os-l3', 'os-l2', 'os-l1']);
        expect(idsOf((await of({}, 'created_at')).organizations)).toEqual(['os-l3', 'os-l1', 'os-l2']);
        const second = await of({ limit: 2, offset: 2 });
        expect(second).toMatchObject({ total: 3 });
        expect(idsOf(second.organizations)).toEqual(['os-l3']);
      });

      it('lists soft-deleted organizations only when asked, and all organizations without a collaborator', async () => {
        expect(idsOf((await sut.organizations.list(page('organization_id', { collaborator: 'os-lina', deleted: true }))).organizations)).toEqual(['os-l-gone']);
        const all = idsOf((await sut.organizations.list(page('organization_id', { limit: 1000 }))).organizations);
        expect(all).toEqual(expect.arrayContaining(['os-l1', 'os-l2', 'os-l3', 'os-l-lars', 'os-rt']));
        expect(all).not.toContain('os-l-gone');
      });

      it('reads the rights a user holds on many organizations at once', async () => {
        const held = await sut.collaborators.rightsOn('os-lina', 'organization', ['os-l1', 'os-l3', 'os-l-lars']);
        expect([...held.entries()].sort()).toEqual([
          ['os-l1', ['RIGHT_ALL']],
          ['os-l3', ['RIGHT_ALL']],
        ]);
      });
    });
  });
}
