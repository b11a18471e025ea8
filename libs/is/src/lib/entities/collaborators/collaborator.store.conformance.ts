import type { Right } from '@lorawan/api';
import type { ApplicationStore } from '../applications/application.model';
import type { GatewayStore } from '../gateways/gateway.model';
import { application, gateway, ts, user } from '../identity.store.conformance';
import type { OrganizationStore } from '../organizations/organization.model';
import { organization } from '../organizations/organization.store.conformance';
import type { UserStore } from '../users/user.model';
import type { CollaboratedRef, CollaboratorPage, CollaboratorState, CollaboratorStore } from './collaborator.model';

/**
 * The behaviour of listing and changing collaborators every CollaboratorStore must have, run
 * against each implementation (MySQL and SQLite through TypeORM) by
 * `typeorm-collaborator.store.int-spec.ts`. (Reads and the collaborators written with their
 * entity are covered by the identity stores' conformance.)
 */
export interface CollaboratorStoresUnderTest {
  users: UserStore;
  applications: ApplicationStore;
  gateways: GatewayStore;
  organizations: OrganizationStore;
  collaborators: CollaboratorStore;
  close(): Promise<void>;
}

const page = (extra: Partial<CollaboratorPage> = {}): CollaboratorPage => ({ order: 'id', descending: false, limit: 100, offset: 0, ...extra });
const owner = (userId: string) => ({ ids: { kind: 'user' as const, id: userId }, rights: ['RIGHT_ALL' as const] });
const set = (rights: Right[]) => () => rights;
const usr = (id: string) => ({ kind: 'user' as const, id });

export function describeCollaboratorStoreConformance(name: string, open: () => Promise<CollaboratorStoresUnderTest>): void {
  describe(`Collaborator store conformance: ${name}`, () => {
    let sut: CollaboratorStoresUnderTest;
    const app = (id: string): CollaboratedRef => ({ kind: 'application', id });
    const ids = async (entity: CollaboratedRef, p: Partial<CollaboratorPage> = {}) => {
      const { collaborators, total } = await sut.collaborators.list(entity, page(p));
      return { ids: collaborators.map((c) => c.ids.id), total };
    };

    beforeAll(async () => {
      sut = await open();
      for (const id of ['alice', 'bob', 'carol', 'dave', 'erin']) await sut.users.create(user(id));
      await sut.users.create(user('gone'));
      await sut.users.softDelete('gone', ts());
      const contacts = { administrative_contact: { user_ids: { user_id: 'alice' } }, technical_contact: { user_ids: { user_id: 'bob' } } };
      await sut.applications.create(application('app-c', contacts), owner('alice'));
      await sut.applications.create(application('app-other'), owner('dave'));
      await sut.applications.create(application('app-deleted'), owner('alice'));
      await sut.applications.softDelete('app-deleted', ts());
      await sut.gateways.create(gateway('gtw-c'), owner('alice'));
    });
    afterAll(async () => sut.close());

    it('adds, updates and removes a collaborator, answering the rights held before', async () => {
      const now = ts();
      expect(await sut.collaborators.change(app('app-c'), usr('bob'), set(['RIGHT_APPLICATION_DEVICES_READ']), now)).toEqual({ outcome: 'changed' });
      expect(await sut.collaborators.rightsOf('bob', app('app-c'))).toEqual(['RIGHT_APPLICATION_DEVICES_READ']);
      expect(await sut.collaborators.change(app('app-c'), usr('bob'), set(['RIGHT_APPLICATION_INFO', 'RIGHT_APPLICATION_LINK']), ts())).toEqual({
        outcome: 'changed',
        previous: ['RIGHT_APPLICATION_DEVICES_READ'],
      });
      expect(await sut.collaborators.rightsOf('bob', app('app-c'))).toEqual(['RIGHT_APPLICATION_INFO', 'RIGHT_APPLICATION_LINK']);
      expect(await sut.collaborators.change(app('app-c'), usr('bob'), set([]), ts())).toEqual({
        outcome: 'changed',
        previous: ['RIGHT_APPLICATION_INFO', 'RIGHT_APPLICATION_LINK'],
      });
      expect(await sut.collaborators.rightsOf('bob', app('app-c'))).toEqual([]);
      expect(await ids(app('app-c'))).toEqual({ ids: ['alice'], total: 1 });
    });

    it('decides on the state read with the write: the user’s rights, every collaborator, the contacts', async () => {
      await sut.collaborators.change(app('app-c'), usr('carol'), set(['RIGHT_APPLICATION_ALL']), ts());
      const seen: CollaboratorState[] = [];
      await sut.collaborators.change(
        app('app-c'),
        usr('carol'),
        (state) => {
          seen.push(state);
          return state.current ?? [];
        },
        ts(),
      );
      expect(seen).toEqual([
        {
          current: ['RIGHT_APPLICATION_ALL'],
          collaborators: [
            { ids: { kind: 'user' as const, id: 'alice' }, rights: ['RIGHT_ALL'] },
            { ids: { kind: 'user' as const, id: 'carol' }, rights: ['RIGHT_APPLICATION_ALL'] },
          ],
          contacts: ['alice', 'bob'],
        },
      ]);
      const fresh: CollaboratorState[] = [];
      await sut.collaborators.change(app('app-c'), usr('erin'), (state) => (fresh.push(state), ['RIGHT_APPLICATION_INFO']), ts());
      expect(fresh[0].current).toBeUndefined();
      await sut.collaborators.change(app('app-c'), usr('erin'), set([]), ts());
    });

    it('writes nothing when the decision throws', async () => {
      const refuse = () => {
        throw new Error('refused');
      };
      await expect(sut.collaborators.change(app('app-c'), usr('dave'), refuse, ts())).rejects.toThrow('refused');
      await expect(sut.collaborators.change(app('app-c'), usr('carol'), refuse, ts())).rejects.toThrow('refused');
      expect(await sut.collaborators.rightsOf('dave', app('app-c'))).toEqual([]);
      expect(await sut.collaborators.rightsOf('carol', app('app-c'))).toEqual(['RIGHT_APPLICATION_ALL']);
    });

    it('changes nothing on a missing or deleted entity, or for a missing or deleted user (without deciding)', async () => {
      const decide = jest.fn(set(['RIGHT_APPLICATION_INFO']));
      expect(await sut.collaborators.change(app('nope'), usr('bob'), decide, ts())).toEqual({ outcome: 'entity_not_found' });
      expect(await sut.collaborators.change(app('app-deleted'), usr('bob'), decide, ts())).toEqual({ outcome: 'entity_not_found' });
      expect(await sut.collaborators.change({ kind: 'gateway', id: 'app-c' }, usr('bob'), decide, ts())).toEqual({ outcome: 'entity_not_found' });
      expect(await sut.collaborators.change(app('app-c'), usr('nobody'), decide, ts())).toEqual({ outcome: 'account_not_found' });
      expect(await sut.collaborators.change(app('app-c'), usr('gone'), decide, ts())).toEqual({ outcome: 'account_not_found' });
      expect(decide).not.toHaveBeenCalled();
      expect(await sut.collaborators.rightsOf('nobody', app('app-c'))).toEqual([]);
    });

    it('lists the collaborators of a live entity by ID or rights, paginated, with the total', async () => {
      await sut.collaborators.change(app('app-c'), usr('bob'), set(['RIGHT_APPLICATION_DEVICES_READ']), ts());
      await sut.collaborators.change(app('app-c'), usr('dave'), set(['RIGHT_APPLICATION_INFO']), ts());
      expect(await ids(app('app-c'))).toEqual({ ids: ['alice', 'bob', 'carol', 'dave'], total: 4 });
      expect(await ids(app('app-c'), { descending: true })).toEqual({ ids: ['dave', 'carol', 'bob', 'alice'], total: 4 });
      expect(await ids(app('app-c'), { order: 'rights' })).toEqual({ ids: ['alice', 'carol', 'bob', 'dave'], total: 4 });
      expect(await ids(app('app-c'), { limit: 3, offset: 3 })).toEqual({ ids: ['dave'], total: 4 });
      expect((await sut.collaborators.list(app('app-c'), page({ limit: 1, offset: 1 }))).collaborators).toEqual([
        { ids: { kind: 'user' as const, id: 'bob' }, rights: ['RIGHT_APPLICATION_DEVICES_READ'] },
      ]);
      expect(await ids(app('app-other'))).toEqual({ ids: ['dave'], total: 1 });
      expect(await ids(app('app-deleted'))).toEqual({ ids: [], total: 0 });
      expect(await ids(app('nope'))).toEqual({ ids: [], total: 0 });
      expect(await ids({ kind: 'gateway', id: 'gtw-c' })).toEqual({ ids: ['alice'], total: 1 });
    });

    it('runs concurrent changes of one entity one after the other: a rule over all collaborators holds', async () => {
      const gtw: CollaboratedRef = { kind: 'gateway', id: 'gtw-c' };
      const holders = ['bob', 'carol', 'dave', 'erin'];
      for (const id of holders) await sut.collaborators.change(gtw, usr(id), set(['RIGHT_GATEWAY_ALL']), ts());
      // Each removes one holder of GATEWAY_ALL, but only while another one stays.
      const keepOne = (userId: string) => (state: CollaboratorState) => {
        if (!state.collaborators.some((c) => c.ids.id !== userId && c.rights.some((r) => r === 'RIGHT_ALL' || r === 'RIGHT_GATEWAY_ALL')))
          throw new Error('last holder');
        return [];
      };
      const results = await Promise.allSettled(['alice', ...holders].map((id) => sut.collaborators.change(gtw, usr(id), keepOne(id), ts())));
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(4);
      expect(results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason))).toEqual(['Error: last holder']);
      expect((await ids(gtw)).total).toBe(1);
    });

    describe('organizations: members, and what they reach through them (TTS membership chains)', () => {
      const org = (id: string): CollaboratedRef => ({ kind: 'organization', id });
      const orgApp = app('app-org');
      const READ = ['RIGHT_APPLICATION_DEVICES_READ', 'RIGHT_APPLICATION_INFO'] as Right[];

      beforeAll(async () => {
        for (const id of ['mia', 'ned', 'ola']) await sut.users.create(user(id));
        await sut.organizations.create(organization('org-c'), owner('alice'));
        await sut.collaborators.change(org('org-c'), usr('mia'), set(['RIGHT_APPLICATION_ALL', 'RIGHT_ORGANIZATION_INFO']), ts());
        await sut.collaborators.change(org('org-c'), usr('ola'), set(['RIGHT_ORGANIZATION_ALL']), ts());
        await sut.applications.create(application('app-org'), { ids: { kind: 'organization', id: 'org-c' }, rights: READ });
      });

      it('lists an organization’s members and an entity’s organization collaborators with their kinds', async () => {
        expect((await sut.collaborators.list(org('org-c'), page())).collaborators).toEqual([
          { ids: { kind: 'user', id: 'alice' }, rights: ['RIGHT_ALL'] },
          { ids: { kind: 'user', id: 'mia' }, rights: ['RIGHT_APPLICATION_ALL', 'RIGHT_ORGANIZATION_INFO'] },
          { ids: { kind: 'user', id: 'ola' }, rights: ['RIGHT_ORGANIZATION_ALL'] },
        ]);
        expect((await sut.collaborators.list(orgApp, page())).collaborators).toEqual([{ ids: { kind: 'organization', id: 'org-c' }, rights: READ }]);
      });

      it('gives a member the organization’s rights intersected with its own on the organization, both implied', async () => {
        // APPLICATION_ALL on the organization ∩ the organization's grant on the application.
        expect(await sut.collaborators.membershipRights('mia', orgApp)).toEqual(READ);
        // RIGHT_ALL on the organization: all of the organization's grant.
        expect(await sut.collaborators.membershipRights('alice', orgApp)).toEqual(READ);
        // Organization rights only: nothing on its applications.
        expect(await sut.collaborators.membershipRights('ola', orgApp)).toEqual([]);
        expect(await sut.collaborators.membershipRights('ned', orgApp)).toEqual([]);
        // The organization itself: its grant as stored; a member's own grant on the organization as stored.
        expect(await sut.collaborators.membershipRights('org-c', orgApp)).toEqual(READ);
        expect(await sut.collaborators.membershipRights('mia', org('org-c'))).toEqual(['RIGHT_APPLICATION_ALL', 'RIGHT_ORGANIZATION_INFO']);
        // Stored rights are only the direct ones.
        expect(await sut.collaborators.rightsOf('mia', orgApp)).toEqual([]);
        expect(await sut.collaborators.rightsOf('org-c', orgApp)).toEqual(READ);
        expect(await sut.collaborators.rightsOn('mia', 'application', ['app-org', 'app-c', 'nope'])).toEqual(new Map([['app-org', READ]]));
      });

      it('unites a direct grant with what the organization gives, and loses the latter with the membership', async () => {
        await sut.collaborators.change(orgApp, usr('ned'), set(['RIGHT_APPLICATION_SETTINGS_BASIC']), ts());
        await sut.collaborators.change(org('org-c'), usr('ned'), set(['RIGHT_APPLICATION_DEVICES_READ']), ts());
        expect(await sut.collaborators.membershipRights('ned', orgApp)).toEqual(['RIGHT_APPLICATION_DEVICES_READ', 'RIGHT_APPLICATION_SETTINGS_BASIC']);
        await sut.collaborators.change(org('org-c'), usr('ned'), set([]), ts());
        expect(await sut.collaborators.membershipRights('ned', orgApp)).toEqual(['RIGHT_APPLICATION_SETTINGS_BASIC']);
        await sut.collaborators.change(orgApp, usr('ned'), set([]), ts());
      });

      it('lists a user’s entities reached through its organizations, an organization’s own only', async () => {
        const appIds = async (collaborator: string) =>
          (await sut.applications.list({ collaborator, deleted: false, order: 'application_id', descending: false, limit: 100, offset: 0 })).applications.map(
            (a) => a.ids.application_id,
          );
        expect(await appIds('mia')).toEqual(['app-org']);
        expect(await appIds('org-c')).toEqual(['app-org']);
        expect(await appIds('alice')).toEqual(expect.arrayContaining(['app-c', 'app-org']));
        expect(await appIds('ned')).toEqual([]);
      });

      it('reads, for an actor, its own grant on the organization named, with the rest of the state (none: [])', async () => {
        const seen: CollaboratorState[] = [];
        const record = (rights: Right[]) => (state: CollaboratorState) => (seen.push(state), rights);
        const orgC = { kind: 'organization' as const, id: 'org-c' };
        await sut.collaborators.change(app('app-other'), orgC, record(['RIGHT_APPLICATION_INFO']), ts(), { actor: 'mia' });
        await sut.collaborators.change(app('app-other'), orgC, record([]), ts(), { actor: 'ned' });
        // Without an actor, or naming a user, there is nothing to read.
        await sut.collaborators.change(app('app-other'), orgC, record(['RIGHT_APPLICATION_INFO']), ts());
        await sut.collaborators.change(app('app-other'), usr('mia'), record(['RIGHT_APPLICATION_INFO']), ts(), { actor: 'mia' });
        expect(seen.map((s) => s.actorGrant)).toEqual([['RIGHT_APPLICATION_ALL', 'RIGHT_ORGANIZATION_INFO'], [], undefined, undefined]);
        for (const account of [orgC, usr('mia')]) await sut.collaborators.change(app('app-other'), account, set([]), ts());
      });

      it('refuses an organization that does not exist as collaborator (without deciding)', async () => {
        const decide = jest.fn(set(['RIGHT_APPLICATION_INFO']));
        expect(await sut.collaborators.change(app('app-c'), { kind: 'organization', id: 'org-none' }, decide, ts())).toEqual({ outcome: 'account_not_found' });
        expect(await sut.collaborators.change(org('org-none'), usr('mia'), decide, ts())).toEqual({ outcome: 'entity_not_found' });
        expect(decide).not.toHaveBeenCalled();
      });
    });
  });
}
