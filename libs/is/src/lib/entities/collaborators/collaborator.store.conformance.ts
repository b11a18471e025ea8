import type { Right } from '@lorawan/api';
import type { ApplicationStore } from '../applications/application.model';
import type { GatewayStore } from '../gateways/gateway.model';
import { application, gateway, ts, user } from '../identity.store.conformance';
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
  collaborators: CollaboratorStore;
  close(): Promise<void>;
}

const page = (extra: Partial<CollaboratorPage> = {}): CollaboratorPage => ({ order: 'id', descending: false, limit: 100, offset: 0, ...extra });
const owner = (userId: string) => ({ user_id: userId, rights: ['RIGHT_ALL' as const] });
const set = (rights: Right[]) => () => rights;

export function describeCollaboratorStoreConformance(name: string, open: () => Promise<CollaboratorStoresUnderTest>): void {
  describe(`Collaborator store conformance: ${name}`, () => {
    let sut: CollaboratorStoresUnderTest;
    const app = (id: string): CollaboratedRef => ({ kind: 'application', id });
    const ids = async (entity: CollaboratedRef, p: Partial<CollaboratorPage> = {}) => {
      const { collaborators, total } = await sut.collaborators.list(entity, page(p));
      return { ids: collaborators.map((c) => c.user_id), total };
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
      expect(await sut.collaborators.change(app('app-c'), 'bob', set(['RIGHT_APPLICATION_DEVICES_READ']), now)).toEqual({ outcome: 'changed' });
      expect(await sut.collaborators.rightsOf('bob', app('app-c'))).toEqual(['RIGHT_APPLICATION_DEVICES_READ']);
      expect(await sut.collaborators.change(app('app-c'), 'bob', set(['RIGHT_APPLICATION_INFO', 'RIGHT_APPLICATION_LINK']), ts())).toEqual({
        outcome: 'changed',
        previous: ['RIGHT_APPLICATION_DEVICES_READ'],
      });
      expect(await sut.collaborators.rightsOf('bob', app('app-c'))).toEqual(['RIGHT_APPLICATION_INFO', 'RIGHT_APPLICATION_LINK']);
      expect(await sut.collaborators.change(app('app-c'), 'bob', set([]), ts())).toEqual({
        outcome: 'changed',
        previous: ['RIGHT_APPLICATION_INFO', 'RIGHT_APPLICATION_LINK'],
      });
      expect(await sut.collaborators.rightsOf('bob', app('app-c'))).toEqual([]);
      expect(await ids(app('app-c'))).toEqual({ ids: ['alice'], total: 1 });
    });

    it('decides on the state read with the write: the user’s rights, every collaborator, the contacts', async () => {
      await sut.collaborators.change(app('app-c'), 'carol', set(['RIGHT_APPLICATION_ALL']), ts());
      const seen: CollaboratorState[] = [];
      await sut.collaborators.change(
        app('app-c'),
        'carol',
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
            { user_id: 'alice', rights: ['RIGHT_ALL'] },
            { user_id: 'carol', rights: ['RIGHT_APPLICATION_ALL'] },
          ],
          contacts: ['alice', 'bob'],
        },
      ]);
      const fresh: CollaboratorState[] = [];
      await sut.collaborators.change(app('app-c'), 'erin', (state) => (fresh.push(state), ['RIGHT_APPLICATION_INFO']), ts());
      expect(fresh[0].current).toBeUndefined();
      await sut.collaborators.change(app('app-c'), 'erin', set([]), ts());
    });

    it('writes nothing when the decision throws', async () => {
      const refuse = () => {
        throw new Error('refused');
      };
      await expect(sut.collaborators.change(app('app-c'), 'dave', refuse, ts())).rejects.toThrow('refused');
      await expect(sut.collaborators.change(app('app-c'), 'carol', refuse, ts())).rejects.toThrow('refused');
      expect(await sut.collaborators.rightsOf('dave', app('app-c'))).toEqual([]);
      expect(await sut.collaborators.rightsOf('carol', app('app-c'))).toEqual(['RIGHT_APPLICATION_ALL']);
    });

    it('changes nothing on a missing or deleted entity, or for a missing or deleted user (without deciding)', async () => {
      const decide = jest.fn(set(['RIGHT_APPLICATION_INFO']));
      expect(await sut.collaborators.change(app('nope'), 'bob', decide, ts())).toEqual({ outcome: 'entity_not_found' });
      expect(await sut.collaborators.change(app('app-deleted'), 'bob', decide, ts())).toEqual({ outcome: 'entity_not_found' });
      expect(await sut.collaborators.change({ kind: 'gateway', id: 'app-c' }, 'bob', decide, ts())).toEqual({ outcome: 'entity_not_found' });
      expect(await sut.collaborators.change(app('app-c'), 'nobody', decide, ts())).toEqual({ outcome: 'user_not_found' });
      expect(await sut.collaborators.change(app('app-c'), 'gone', decide, ts())).toEqual({ outcome: 'user_not_found' });
      expect(decide).not.toHaveBeenCalled();
      expect(await sut.collaborators.rightsOf('nobody', app('app-c'))).toEqual([]);
    });

    it('lists the collaborators of a live entity by ID or rights, paginated, with the total', async () => {
      await sut.collaborators.change(app('app-c'), 'bob', set(['RIGHT_APPLICATION_DEVICES_READ']), ts());
      await sut.collaborators.change(app('app-c'), 'dave', set(['RIGHT_APPLICATION_INFO']), ts());
      expect(await ids(app('app-c'))).toEqual({ ids: ['alice', 'bob', 'carol', 'dave'], total: 4 });
      expect(await ids(app('app-c'), { descending: true })).toEqual({ ids: ['dave', 'carol', 'bob', 'alice'], total: 4 });
      expect(await ids(app('app-c'), { order: 'rights' })).toEqual({ ids: ['alice', 'carol', 'bob', 'dave'], total: 4 });
      expect(await ids(app('app-c'), { limit: 3, offset: 3 })).toEqual({ ids: ['dave'], total: 4 });
      expect((await sut.collaborators.list(app('app-c'), page({ limit: 1, offset: 1 }))).collaborators).toEqual([
        { user_id: 'bob', rights: ['RIGHT_APPLICATION_DEVICES_READ'] },
      ]);
      expect(await ids(app('app-other'))).toEqual({ ids: ['dave'], total: 1 });
      expect(await ids(app('app-deleted'))).toEqual({ ids: [], total: 0 });
      expect(await ids(app('nope'))).toEqual({ ids: [], total: 0 });
      expect(await ids({ kind: 'gateway', id: 'gtw-c' })).toEqual({ ids: ['alice'], total: 1 });
    });

    it('runs concurrent changes of one entity one after the other: a rule over all collaborators holds', async () => {
      const gtw: CollaboratedRef = { kind: 'gateway', id: 'gtw-c' };
      const holders = ['bob', 'carol', 'dave', 'erin'];
      for (const id of holders) await sut.collaborators.change(gtw, id, set(['RIGHT_GATEWAY_ALL']), ts());
      // Each removes one holder of GATEWAY_ALL, but only while another one stays.
      const keepOne = (userId: string) => (state: CollaboratorState) => {
        if (!state.collaborators.some((c) => c.user_id !== userId && c.rights.some((r) => r === 'RIGHT_ALL' || r === 'RIGHT_GATEWAY_ALL')))
          throw new Error('last holder');
        return [];
      };
      const results = await Promise.allSettled(['alice', ...holders].map((id) => sut.collaborators.change(gtw, id, keepOne(id), ts())));
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(4);
      expect(results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason))).toEqual(['Error: last holder']);
      expect((await ids(gtw)).total).toBe(1);
    });
  });
}
