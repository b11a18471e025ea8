import type { IsApplication, ApplicationStore } from './applications/application.model';
import type { CollaboratorStore } from './collaborators/collaborator.model';
import type { EntityListQuery } from './common/entity-list';
import type { GatewayStore, IsGateway } from './gateways/gateway.model';
import type { IsUser, UserStore } from './users/user.model';

/**
 * The behaviour every store of users, applications, gateways and collaborators must have, run
 * against each implementation (MySQL and SQLite through TypeORM) by
 * `typeorm-identity.store.int-spec.ts`.
 */
export interface IdentityStoresUnderTest {
  users: UserStore;
  applications: ApplicationStore;
  gateways: GatewayStore;
  collaborators: CollaboratorStore;
  /** An end device of the application in the IS's own table. */
  addDevice(applicationId: string, deviceId: string): Promise<void>;
  removeDevice(applicationId: string, deviceId: string): Promise<void>;
  close(): Promise<void>;
}

let seq = 0;
/** Distinct, increasing timestamps with microseconds. */
export function ts(offsetMs = 0): string {
  seq += 1;
  const micros = String(seq % 1000).padStart(3, '0');
  return new Date(Date.UTC(2024, 4, 1, 10, 0, 0) + offsetMs + seq).toISOString().replace(/\.(\d{3})Z$/, (_, ms: string) => `.${ms}${micros}Z`);
}

export function user(id: string, extra: Partial<IsUser> = {}): IsUser {
  const now = ts();
  return { ids: { user_id: id }, created_at: now, updated_at: now, ...extra };
}

export function application(id: string, extra: Partial<IsApplication> = {}): IsApplication {
  const now = ts();
  return { ids: { application_id: id }, created_at: now, updated_at: now, ...extra };
}

export function gateway(id: string, eui?: string, extra: Partial<IsGateway> = {}): IsGateway {
  const now = ts();
  return { ids: { gateway_id: id, ...(eui ? { eui } : {}) }, created_at: now, updated_at: now, ...extra };
}

const owner = (userId: string) => ({ ids: { kind: 'user' as const, id: userId }, rights: ['RIGHT_ALL' as const] });

function page<O extends string>(order: O, extra: Partial<EntityListQuery<O>> = {}): EntityListQuery<O> {
  return { order, descending: false, deleted: false, limit: 100, offset: 0, ...extra };
}

export function describeIdentityStoreConformance(name: string, open: () => Promise<IdentityStoresUnderTest>): void {
  describe(`Identity stores conformance: ${name}`, () => {
    let sut: IdentityStoresUnderTest;
    beforeAll(async () => {
      sut = await open();
    });
    afterAll(async () => sut.close());

    describe('users', () => {
      it('creates and gets a user with every field, round-tripped exactly; the password only as its hash', async () => {
        const u = user('usr-rt', {
          name: 'Ünïcode ✓',
          description: 'd'.repeat(2000),
          attributes: { team: 'radio' },
          primary_email_address: 'usr@example.com',
          primary_email_address_validated_at: ts(),
          password_updated_at: ts(),
          require_password_update: true,
          state: 'STATE_SUSPENDED',
          state_description: 'spam',
          admin: true,
        });
        expect(await sut.users.create(u, 'PBKDF2$sha256$1$salt$a2V5')).toEqual({ ok: true });
        expect(await sut.users.get('usr-rt')).toEqual(u);
        expect(await sut.users.passwordHash('usr-rt')).toBe('PBKDF2$sha256$1$salt$a2V5');
      });

      it('leaves zero values out: not admin, state requested, no password', async () => {
        const u = user('usr-zero', { admin: false, state: 'STATE_REQUESTED', require_password_update: false, name: '' });
        await sut.users.create(u);
        expect(await sut.users.get('usr-zero')).toEqual(user('usr-zero', { created_at: u.created_at, updated_at: u.updated_at }));
        expect(await sut.users.passwordHash('usr-zero')).toBeUndefined();
      });

      it('refuses a taken ID and keeps the first user', async () => {
        await sut.users.create(user('usr-dup', { name: 'first' }));
        expect(await sut.users.create(user('usr-dup', { name: 'second' }))).toEqual({ ok: false, conflict: 'id' });
        expect((await sut.users.get('usr-dup'))?.name).toBe('first');
      });

      it('soft-deletes: gone from the live scope, still there deleted, the ID still taken', async () => {
        const u = user('usr-del');
        await sut.users.create(u);
        expect(await sut.users.exists('usr-del')).toBe(true);
        const at = ts(1000);
        expect(await sut.users.softDelete('usr-del', at)).toBe(true);
        expect(await sut.users.exists('usr-del')).toBe(false);
        expect(await sut.users.exists('usr-nope')).toBe(false);
        expect(await sut.users.softDelete('usr-del', at)).toBe(false);
        expect(await sut.users.get('usr-del')).toBeUndefined();
        expect(await sut.users.get('usr-del', 'deleted')).toEqual({ ...u, deleted_at: at });
        expect(await sut.users.get('usr-del', 'any')).toEqual({ ...u, deleted_at: at });
        expect(await sut.users.create(user('usr-del'))).toEqual({ ok: false, conflict: 'id' });
        expect(await sut.users.softDelete('usr-nope', at)).toBe(false);
      });

      it('replaces only against the expected updated_at, keeps the password, never a deleted user', async () => {
        const u = user('usr-rep', { name: 'before' });
        await sut.users.create(u, 'PBKDF2$sha256$1$salt$a2V5');
        const changed = { ...u, name: 'after', admin: true, state: 'STATE_APPROVED', updated_at: ts(60000) };
        expect(await sut.users.replace(changed, u.updated_at)).toBe(true);
        expect(await sut.users.get('usr-rep')).toEqual(changed);
        expect(await sut.users.passwordHash('usr-rep')).toBe('PBKDF2$sha256$1$salt$a2V5');
        expect(await sut.users.replace({ ...changed, name: 'stale' }, u.updated_at)).toBe(false);
        await sut.users.softDelete('usr-rep', ts());
        expect(await sut.users.replace({ ...changed, name: 'late' }, changed.updated_at)).toBe(false);
      });

      it('lists live or deleted users in every order, paginated, with the total', async () => {
        const ids = (await sut.users.list(page('user_id', { limit: 1000 }))).users.map((u) => u.ids.user_id);
        expect(ids).toEqual([...ids].sort());
        expect(ids).not.toContain('usr-del');
        expect((await sut.users.list(page('user_id', { deleted: true }))).users.map((u) => u.ids.user_id)).toEqual(['usr-del', 'usr-rep']);
        const all = await sut.users.list(page('user_id'));
        const second = await sut.users.list(page('user_id', { limit: 1, offset: 1 }));
        expect(second).toEqual({ users: [all.users[1]], total: all.total });
        const desc = await sut.users.list(page('user_id', { descending: true }));
        expect(desc.users.map((u) => u.ids.user_id)).toEqual(all.users.map((u) => u.ids.user_id).reverse());
        const admins = await sut.users.list(page('admin', { descending: true }));
        expect(admins.users[0].ids.user_id).toBe('usr-rt');
        const states = await sut.users.list(page('state', { descending: true }));
        expect(states.users[0].state).toBe('STATE_SUSPENDED');
        const names = (await sut.users.list(page('name'))).users.map((u) => u.name ?? '');
        expect(names).toEqual([...names].sort());
      });
    });

    describe('applications', () => {
      beforeAll(async () => {
        for (const id of ['alice', 'bob']) await sut.users.create(user(id));
      });

      it('creates an application with its collaborator, round-tripped exactly', async () => {
        const app = application('app-rt', {
          name: 'App ✓',
          description: 'about',
          attributes: { k: 'v' },
          administrative_contact: { user_ids: { user_id: 'alice' } },
          technical_contact: { user_ids: { user_id: 'alice' } },
          network_server_address: 'ns.example.com',
          application_server_address: 'as.example.com:8884',
          join_server_address: 'js.example.com',
        });
        expect(await sut.applications.create(app, owner('alice'))).toEqual({ ok: true });
        expect(await sut.applications.get('app-rt')).toEqual(app);
        expect(await sut.collaborators.rightsOf('alice', { kind: 'application', id: 'app-rt' })).toEqual(['RIGHT_ALL']);
        expect(await sut.collaborators.rightsOf('bob', { kind: 'application', id: 'app-rt' })).toEqual([]);
      });

      it('refuses a taken ID and stores nothing of the second attempt', async () => {
        expect(await sut.applications.create(application('app-rt', { name: 'other' }), owner('bob'))).toEqual({ ok: false, conflict: 'id' });
        expect((await sut.applications.get('app-rt'))?.name).toBe('App ✓');
        expect(await sut.collaborators.rightsOf('bob', { kind: 'application', id: 'app-rt' })).toEqual([]);
      });

      it('lets exactly one of concurrent creates of an ID win, with its collaborator only', async () => {
        const results = await Promise.all(['alice', 'bob', 'alice', 'bob'].map((u) => sut.applications.create(application('app-race', { name: u }), owner(u))));
        expect(results.filter((r) => r.ok)).toHaveLength(1);
        const winner = (await sut.applications.get('app-race'))?.name ?? '';
        const loser = winner === 'alice' ? 'bob' : 'alice';
        expect(await sut.collaborators.rightsOf(winner, { kind: 'application', id: 'app-race' })).toEqual(['RIGHT_ALL']);
        expect(await sut.collaborators.rightsOf(loser, { kind: 'application', id: 'app-race' })).toEqual([]);
      });

      it('soft-deletes only without devices; deleted applications keep their ID and grant nothing', async () => {
        const app = application('app-del');
        await sut.applications.create(app, owner('alice'));
        await sut.addDevice('app-del', 'dev-1');
        await sut.addDevice('app-del', 'dev-2');
        expect(await sut.applications.deviceCount('app-del')).toBe(2);
        expect(await sut.applications.softDelete('app-del', ts())).toEqual({ ok: false, reason: 'has_devices', count: 2 });
        expect(await sut.applications.get('app-del')).toEqual(app);
        await sut.removeDevice('app-del', 'dev-1');
        await sut.removeDevice('app-del', 'dev-2');
        const at = ts();
        expect(await sut.applications.exists('app-del')).toBe(true);
        expect(await sut.applications.softDelete('app-del', at)).toEqual({ ok: true });
        expect(await sut.applications.exists('app-del')).toBe(false);
        expect(await sut.applications.softDelete('app-del', at)).toEqual({ ok: false, reason: 'not_found' });
        expect(await sut.applications.get('app-del')).toBeUndefined();
        expect(await sut.applications.get('app-del', 'deleted')).toEqual({ ...app, deleted_at: at });
        expect(await sut.collaborators.rightsOf('alice', { kind: 'application', id: 'app-del' })).toEqual([]);
        expect(await sut.applications.create(application('app-del'), owner('bob'))).toEqual({ ok: false, conflict: 'id' });
        expect(await sut.applications.replace({ ...app, name: 'x', updated_at: ts() }, app.updated_at)).toBe(false);
      });

      it('restores a soft-deleted application, with its collaborators', async () => {
        expect(await sut.applications.restore('app-rt')).toBe(false);
        expect(await sut.applications.restore('app-del')).toBe(true);
        expect(await sut.applications.restore('app-del')).toBe(false);
        expect((await sut.applications.get('app-del'))?.deleted_at).toBeUndefined();
        expect(await sut.collaborators.rightsOf('alice', { kind: 'application', id: 'app-del' })).toEqual(['RIGHT_ALL']);
      });

      it('purges a live or deleted application with its collaborators, not while it has devices; the ID is free again', async () => {
        await sut.applications.create(application('app-purge'), owner('alice'));
        await sut.addDevice('app-purge', 'dev-1');
        expect(await sut.applications.purge('app-purge')).toEqual({ ok: false, reason: 'has_devices', count: 1 });
        expect(await sut.collaborators.rightsOf('alice', { kind: 'application', id: 'app-purge' })).toEqual(['RIGHT_ALL']);
        await sut.removeDevice('app-purge', 'dev-1');
        await sut.applications.softDelete('app-purge', ts());
        expect(await sut.applications.purge('app-purge')).toEqual({ ok: true });
        expect(await sut.applications.purge('app-purge')).toEqual({ ok: false, reason: 'not_found' });
        expect(await sut.applications.get('app-purge', 'any')).toBeUndefined();
        expect(await sut.collaborators.rightsOn('alice', 'application', ['app-purge'])).toEqual(new Map());
        expect(await sut.applications.create(application('app-purge'), owner('bob'))).toEqual({ ok: true });
        expect(await sut.collaborators.rightsOf('alice', { kind: 'application', id: 'app-purge' })).toEqual([]);
        expect(await sut.collaborators.rightsOf('bob', { kind: 'application', id: 'app-purge' })).toEqual(['RIGHT_ALL']);
      });

      it('replaces only against the expected updated_at', async () => {
        const app = application('app-rep', { name: 'before', description: 'keep' });
        await sut.applications.create(app, owner('alice'));
        const changed = { ...app, name: 'after', description: undefined, updated_at: ts(60000) };
        expect(await sut.applications.replace(changed, app.updated_at)).toBe(true);
        expect(await sut.applications.get('app-rep')).toEqual({ ...app, name: 'after', description: undefined, updated_at: changed.updated_at });
        expect(await sut.applications.replace({ ...changed, name: 'stale' }, app.updated_at)).toBe(false);
      });

      describe('list', () => {
        beforeAll(async () => {
          const rows: Array<[string, string, string]> = [
            ['lst-c', 'Bravo', 'carol'],
            ['lst-a', 'alpha', 'carol'],
            ['lst-b', 'Bravo', 'carol'],
            ['lst-d', '', 'dave'],
          ];
          for (const id of ['carol', 'dave']) await sut.users.create(user(id));
          let offset = 0;
          for (const [id, name, by] of rows) {
            const now = ts((offset += 1000));
            await sut.applications.create({ ids: { application_id: id }, created_at: now, updated_at: now, ...(name ? { name } : {}) }, owner(by));
          }
          await sut.applications.create(application('lst-gone'), owner('carol'));
          await sut.applications.softDelete('lst-gone', ts());
        });
        const ids = async (query: EntityListQuery<'application_id' | 'name' | 'created_at'>) => {
          const { applications, total } = await sut.applications.list(query);
          return { ids: applications.map((a) => a.ids.application_id), total };
        };

        it("lists a collaborator's live applications in each order, ties broken by ID in the same direction", async () => {
          expect(await ids(page('application_id', { collaborator: 'carol' }))).toEqual({ ids: ['lst-a', 'lst-b', 'lst-c'], total: 3 });
          expect(await ids(page('application_id', { collaborator: 'carol', descending: true }))).toEqual({ ids: ['lst-c', 'lst-b', 'lst-a'], total: 3 });
          expect(await ids(page('name', { collaborator: 'carol' }))).toEqual({ ids: ['lst-b', 'lst-c', 'lst-a'], total: 3 });
          expect(await ids(page('name', { collaborator: 'carol', descending: true }))).toEqual({ ids: ['lst-a', 'lst-c', 'lst-b'], total: 3 });
          expect(await ids(page('created_at', { collaborator: 'carol' }))).toEqual({ ids: ['lst-c', 'lst-a', 'lst-b'], total: 3 });
          expect(await ids(page('application_id', { collaborator: 'dave' }))).toEqual({ ids: ['lst-d'], total: 1 });
          expect(await ids(page('application_id', { collaborator: 'nobody' }))).toEqual({ ids: [], total: 0 });
        });

        it('paginates with limit and offset, the total counting every match', async () => {
          expect(await ids(page('application_id', { collaborator: 'carol', limit: 2 }))).toEqual({ ids: ['lst-a', 'lst-b'], total: 3 });
          expect(await ids(page('application_id', { collaborator: 'carol', limit: 2, offset: 2 }))).toEqual({ ids: ['lst-c'], total: 3 });
          expect(await ids(page('application_id', { collaborator: 'carol', limit: 2, offset: 4 }))).toEqual({ ids: [], total: 3 });
        });

        it('lists soft-deleted applications only when asked, and all applications without a collaborator', async () => {
          expect(await ids(page('application_id', { collaborator: 'carol', deleted: true }))).toEqual({ ids: ['lst-gone'], total: 1 });
          const all = await ids(page('application_id', { limit: 1000 }));
          expect(all.ids).toEqual(expect.arrayContaining(['lst-a', 'lst-b', 'lst-c', 'lst-d', 'app-rt']));
          expect(all.ids).not.toContain('lst-gone');
          expect(all.total).toBe(all.ids.length);
        });

        it('reads the rights a user holds on many applications at once', async () => {
          expect(await sut.collaborators.rightsOn('carol', 'application', ['lst-a', 'lst-d', 'lst-gone', 'nope'])).toEqual(
            new Map([
              ['lst-a', ['RIGHT_ALL']],
              ['lst-gone', ['RIGHT_ALL']],
            ]),
          );
          expect(await sut.collaborators.rightsOn('carol', 'application', [])).toEqual(new Map());
          expect(await sut.collaborators.rightsOf('carol', { kind: 'organization', id: 'lst-a' })).toEqual([]);
        });
      });
    });

    describe('gateways', () => {
      beforeAll(async () => {
        for (const id of ['gina', 'gus']) await sut.users.create(user(id));
      });

      it('creates a gateway with every field and its collaborator, found by ID and by EUI', async () => {
        const gtw = gateway('gtw-rt', '00800000A0000001', {
          name: 'GW',
          description: 'roof',
          attributes: { site: 'a' },
          administrative_contact: { user_ids: { user_id: 'gina' } },
          technical_contact: { user_ids: { user_id: 'gina' } },
          version_ids: { brand_id: 'rak', model_id: 'rak7289', hardware_version: '1', firmware_version: '2', runtime_version: '3' },
          gateway_server_address: 'gs.example.com',
          auto_update: true,
          update_channel: 'stable',
          frequency_plan_id: 'EU_863_870',
          frequency_plan_ids: ['EU_863_870', 'EU_863_870_TTN'],
          status_public: true,
          location_public: true,
          schedule_downlink_late: true,
          enforce_duty_cycle: true,
          schedule_anytime_delay: '0.530s',
          update_location_from_status: true,
          require_authenticated_connection: true,
          disable_packet_broker_forwarding: true,
          lbs_lns_secret: { value: Buffer.from('NNSXS.LNS-SECRET').toString('base64') },
          target_cups_uri: 'https://cups.example.com',
          target_cups_key: { value: Buffer.from('NNSXS.CUPS-SECRET').toString('base64') },
        });
        expect(await sut.gateways.create(gtw, owner('gina'))).toEqual({ ok: true });
        expect(await sut.gateways.get('gtw-rt')).toEqual(gtw);
        expect(await sut.gateways.getByEui('00800000a0000001')).toEqual(gtw);
        expect(await sut.collaborators.rightsOf('gina', { kind: 'gateway', id: 'gtw-rt' })).toEqual(['RIGHT_ALL']);
      });

      it('keeps EUIs unique, naming the holder, and stores nothing of the refused gateway', async () => {
        expect(await sut.gateways.create(gateway('gtw-other', '00800000A0000001'), owner('gus'))).toEqual({
          ok: false,
          conflict: 'eui',
          holder: await sut.gateways.get('gtw-rt'),
        });
        expect(await sut.gateways.get('gtw-other', 'any')).toBeUndefined();
        expect(await sut.collaborators.rightsOn('gus', 'gateway', ['gtw-other'])).toEqual(new Map());
        expect(await sut.gateways.create(gateway('gtw-rt', '00800000A0000099'), owner('gus'))).toEqual({ ok: false, conflict: 'id' });
        expect(await sut.gateways.getByEui('00800000A0000099', 'any')).toBeUndefined();
      });

      it('under concurrent creates, one gateway wins each EUI and each ID; the others are told why', async () => {
        for (const id of ['racer-a', 'racer-b']) await sut.users.create(user(id));
        const attempts = Array.from({ length: 24 }, (_, i) => ({
          gtw: gateway(`gtw-race-${i % 8}`, `00800000B00000${String(i % 6).padStart(2, '0')}`),
          by: i % 2 === 0 ? 'racer-a' : 'racer-b',
        }));
        const results = await Promise.all(attempts.map(({ gtw, by }) => sut.gateways.create(gtw, owner(by))));
        results.forEach((result, i) => {
          if (result.ok || result.conflict === 'id') return;
          expect(result.holder.ids.eui).toBe(attempts[i].gtw.ids.eui);
        });
        const winners = attempts.filter((_, i) => results[i].ok);
        expect(winners.length).toBeGreaterThan(0);
        expect(new Set(winners.map(({ gtw }) => gtw.ids.gateway_id)).size).toBe(winners.length);
        expect(new Set(winners.map(({ gtw }) => gtw.ids.eui)).size).toBe(winners.length);
        for (const { gtw, by } of winners) {
          expect(await sut.gateways.get(gtw.ids.gateway_id)).toEqual(gtw);
          const loser = by === 'racer-a' ? 'racer-b' : 'racer-a';
          expect(await sut.collaborators.rightsOf(by, { kind: 'gateway', id: gtw.ids.gateway_id })).toEqual(['RIGHT_ALL']);
          expect(await sut.collaborators.rightsOf(loser, { kind: 'gateway', id: gtw.ids.gateway_id })).toEqual([]);
        }
        const listed = await sut.gateways.list(page('gateway_id', { collaborator: 'racer-a' }));
        const listedB = await sut.gateways.list(page('gateway_id', { collaborator: 'racer-b' }));
        expect(listed.total + listedB.total).toBe(winners.length);
      });

      it('allows any number of gateways without an EUI', async () => {
        expect(await sut.gateways.create(gateway('gtw-no-eui-1'), owner('gus'))).toEqual({ ok: true });
        expect(await sut.gateways.create(gateway('gtw-no-eui-2'), owner('gus'))).toEqual({ ok: true });
        expect((await sut.gateways.get('gtw-no-eui-2'))?.ids).toEqual({ gateway_id: 'gtw-no-eui-2' });
      });

      it('a soft-deleted gateway keeps its ID and EUI until purged', async () => {
        const gtw = gateway('gtw-del', '00800000A0000002');
        await sut.gateways.create(gtw, owner('gina'));
        expect(await sut.gateways.exists('gtw-del')).toBe(true);
        const at = ts();
        expect(await sut.gateways.softDelete('gtw-del', at)).toBe(true);
        expect(await sut.gateways.exists('gtw-del')).toBe(false);
        expect(await sut.gateways.softDelete('gtw-del', at)).toBe(false);
        expect(await sut.gateways.getByEui('00800000A0000002')).toBeUndefined();
        expect(await sut.gateways.getByEui('00800000A0000002', 'any')).toEqual({ ...gtw, deleted_at: at });
        expect(await sut.gateways.create(gateway('gtw-new', '00800000A0000002'), owner('gus'))).toMatchObject({
          ok: false,
          conflict: 'eui',
          holder: { ids: { gateway_id: 'gtw-del' } },
        });
        expect(await sut.gateways.create(gateway('gtw-del'), owner('gus'))).toEqual({ ok: false, conflict: 'id' });
        expect(await sut.collaborators.rightsOf('gina', { kind: 'gateway', id: 'gtw-del' })).toEqual([]);
        expect(await sut.gateways.restore('gtw-del')).toBe(true);
        expect(await sut.gateways.exists('gtw-del')).toBe(true);
        expect(await sut.collaborators.rightsOf('gina', { kind: 'gateway', id: 'gtw-del' })).toEqual(['RIGHT_ALL']);
        await sut.gateways.softDelete('gtw-del', ts());
        expect(await sut.gateways.purge('gtw-del')).toBe(true);
        expect(await sut.gateways.purge('gtw-del')).toBe(false);
        expect(await sut.collaborators.rightsOn('gina', 'gateway', ['gtw-del'])).toEqual(new Map());
        expect(await sut.gateways.create(gateway('gtw-new', '00800000A0000002'), owner('gus'))).toEqual({ ok: true });
        expect(await sut.gateways.create(gateway('gtw-del'), owner('gus'))).toEqual({ ok: true });
      });

      it('replaces against the expected updated_at; a new EUI must be free', async () => {
        const gtw = gateway('gtw-rep', '00800000A0000003', { name: 'before' });
        await sut.gateways.create(gtw, owner('gina'));
        const moved = { ...gtw, ids: { gateway_id: 'gtw-rep', eui: '00800000A0000004' }, name: 'after', updated_at: ts(60000) };
        expect(await sut.gateways.replace(moved, gtw.updated_at)).toEqual({ ok: true });
        expect(await sut.gateways.getByEui('00800000A0000004')).toEqual(moved);
        expect(await sut.gateways.getByEui('00800000A0000003')).toBeUndefined();
        expect(await sut.gateways.replace({ ...moved, name: 'stale' }, gtw.updated_at)).toEqual({ ok: false, conflict: 'stale' });
        const taken = { ...moved, ids: { gateway_id: 'gtw-rep', eui: '00800000A0000001' }, updated_at: ts(120000) };
        expect(await sut.gateways.replace(taken, moved.updated_at)).toEqual({ ok: false, conflict: 'eui', holder: await sut.gateways.get('gtw-rt') });
        expect(await sut.gateways.get('gtw-rep')).toEqual(moved);
        const cleared = { ...moved, ids: { gateway_id: 'gtw-rep' }, updated_at: ts(180000) };
        expect(await sut.gateways.replace(cleared, moved.updated_at)).toEqual({ ok: true });
        expect(await sut.gateways.get('gtw-rep')).toEqual(cleared);
      });

      it("lists by EUI, a collaborator's gateways, with the total", async () => {
        const { gateways, total } = await sut.gateways.list(page('gateway_eui', { collaborator: 'gina' }));
        expect(gateways.map((g) => g.ids.gateway_id)).toEqual(['gtw-rep', 'gtw-rt']);
        expect(total).toBe(2);
        const desc = await sut.gateways.list(page('gateway_eui', { collaborator: 'gus', descending: true }));
        expect(desc.gateways.map((g) => g.ids.gateway_id)).toEqual(['gtw-new', 'gtw-no-eui-2', 'gtw-no-eui-1', 'gtw-del']);
      });
    });
  });
}
