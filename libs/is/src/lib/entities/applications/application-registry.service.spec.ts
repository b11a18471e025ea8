import {
  ApplicationIdentifiers,
  CreateApplicationRequest,
  decodeMessage,
  GetApplicationRequest,
  ListApplicationsRequest,
  Right,
  UpdateApplicationRequest,
  type CallerIdentity,
} from '@lorawan/api';
import type { StackError } from '@lorawan/errors';
import { adminCaller, CTX, entityKeyCaller, type IdentityTestBed, openIdentityTestBed, userCaller } from '../identity-fixtures.conformance';

const ids = (application_id: string) => decodeMessage(ApplicationIdentifiers, { application_id });

describe('ApplicationRegistryService (SQLite)', () => {
  let bed: IdentityTestBed;
  const create = (id: string, userId: string, application: object = {}) =>
    bed.applications.create(
      decodeMessage(CreateApplicationRequest, {
        application: { ids: { application_id: id }, ...application },
        collaborator: { user_ids: { user_id: userId } },
      }),
      CTX,
    );
  const get = (id: string, field_mask?: string) =>
    bed.applications.get(decodeMessage(GetApplicationRequest, { application_ids: { application_id: id }, ...(field_mask ? { field_mask } : {}) }));
  const list = (caller: CallerIdentity, query: object = {}) => bed.applications.list(decodeMessage(ListApplicationsRequest, query), caller);
  const update = (id: string, application: object, paths: string[]) =>
    bed.applications.update(
      decodeMessage(UpdateApplicationRequest, { application: { ids: { application_id: id }, ...application }, field_mask: { paths } }),
      CTX,
    );

  beforeAll(async () => {
    bed = await openIdentityTestBed();
    await bed.users.ensureAdminUser();
    for (const [id, state] of [
      ['alice', 'STATE_APPROVED'],
      ['bob', 'STATE_APPROVED'],
      ['rita', 'STATE_REQUESTED'],
    ]) {
      await bed.stores.users.create({ ids: { user_id: id }, created_at: '2024-05-01T10:00:00.000000Z', updated_at: '2024-05-01T10:00:00.000000Z', state });
    }
  });
  afterAll(async () => bed.close());

  describe('Create', () => {
    it('stores the application with the collaborator holding RIGHT_ALL; contacts default to the collaborator', async () => {
      const app = await create('app-one', 'alice', {
        name: 'App 1',
        description: 'about',
        attributes: { key: 'v' },
        network_server_address: 'ns.example.com',
        dev_eui_counter: 7,
      });
      expect(app).toEqual({
        ids: { application_id: 'app-one' },
        created_at: app.created_at,
        updated_at: app.created_at,
        name: 'App 1',
        description: 'about',
        attributes: { key: 'v' },
        network_server_address: 'ns.example.com',
        administrative_contact: { user_ids: { user_id: 'alice' } },
        technical_contact: { user_ids: { user_id: 'alice' } },
      });
      expect(app.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
      expect(await bed.stores.applications.get('app-one')).toEqual(app);
      expect(await bed.directory.collaboratorRights('alice', { kind: 'application', id: 'app-one' })).toEqual(['RIGHT_ALL']);
    });

    it('refuses a taken ID (also of a soft-deleted application) with id_taken, caused by already_exists, storing nothing', async () => {
      await create('app-taken', 'alice', { name: 'first' });
      const err = await create('app-taken', 'bob', { name: 'second' }).catch((e: StackError) => e);
      expect(err).toMatchObject({ namespace: 'pkg/util/store', errorName: 'id_taken', code: 6 });
      expect((err as StackError).toDetails().cause).toMatchObject({ namespace: 'pkg/util/store', name: 'already_exists' });
      expect((await get('app-taken', 'name')).name).toBe('first');
      expect(await bed.directory.collaboratorRights('bob', { kind: 'application', id: 'app-taken' })).toEqual([]);
      await bed.applications.delete(ids('app-taken'), CTX);
      await expect(create('app-taken', 'bob')).rejects.toMatchObject({ errorName: 'id_taken' });
    });

    it('needs an existing user or organization as collaborator', async () => {
      await expect(create('app-ghost', 'ghost')).rejects.toMatchObject({
        namespace: 'pkg/identityserver/store',
        errorName: 'user_not_found',
        code: 5,
        attributes: { user_id: 'ghost' },
      });
      const org = decodeMessage(CreateApplicationRequest, {
        application: { ids: { application_id: 'app-org' } },
        collaborator: { organization_ids: { organization_id: 'org1' } },
      });
      await expect(bed.applications.create(org, CTX)).rejects.toMatchObject({ errorName: 'organization_not_found', code: 5 });
      expect(await bed.stores.applications.get('app-ghost', 'any')).toBeUndefined();
      expect(await bed.stores.applications.get('app-org', 'any')).toBeUndefined();
    });

    it('takes contacts only when they are the collaborator', async () => {
      await expect(create('app-contact', 'alice', { technical_contact: { user_ids: { user_id: 'bob' } } })).rejects.toMatchObject({
        namespace: 'pkg/identityserver',
        errorName: 'contact_no_collaborator',
        code: 3,
        attributes: { contact: 'bob' },
      });
      await expect(create('app-contact', 'alice', { technical_contact: { user_ids: { user_id: 'alice' } } })).resolves.toMatchObject({
        technical_contact: { user_ids: { user_id: 'alice' } },
      });
    });
  });

  describe('Get', () => {
    it('answers ids and timestamps by default, and the masked fields', async () => {
      const app = await create('app-get', 'alice', { name: 'N', description: 'D' });
      expect(await get('app-get')).toEqual({ ids: { application_id: 'app-get' }, created_at: app.created_at, updated_at: app.updated_at });
      expect(await get('app-get', 'name,administrative_contact')).toEqual({
        ids: { application_id: 'app-get' },
        created_at: app.created_at,
        updated_at: app.updated_at,
        name: 'N',
        administrative_contact: { user_ids: { user_id: 'alice' } },
      });
    });

    it('refuses paths outside the allowed list', async () => {
      await expect(get('app-get', 'name,password,administrative_contact.user_ids')).rejects.toMatchObject({
        namespace: 'pkg/rpcmiddleware/validator',
        errorName: 'field_mask_paths',
        attributes: { forbidden_paths: ['password', 'administrative_contact.user_ids'] },
      });
    });

    it('does not find missing or soft-deleted applications', async () => {
      await expect(get('app-missing')).rejects.toMatchObject({
        namespace: 'pkg/identityserver/store',
        errorName: 'application_not_found',
        code: 5,
        attributes: { application_id: 'app-missing' },
      });
      await expect(get('app-taken')).rejects.toMatchObject({ errorName: 'application_not_found' });
    });
  });

  describe('List', () => {
    beforeAll(async () => {
      for (const user of ['lina', 'lars'])
        await bed.stores.users.create({
          ids: { user_id: user },
          created_at: '2024-05-01T10:00:00.000000Z',
          updated_at: '2024-05-01T10:00:00.000000Z',
          state: 'STATE_APPROVED',
        });
      for (const [id, name] of [
        ['lst-3', 'Charlie'],
        ['lst-1', 'Alpha'],
        ['lst-2', 'Bravo'],
      ]) {
        await create(id, 'lina', { name });
      }
      await create('lst-lars', 'lars', { name: 'Lars' });
      await create('lst-gone', 'lina');
      await bed.applications.delete(ids('lst-gone'), CTX);
    });

    it("a user key lists the user's live applications, ordered and paginated, with the total", async () => {
      const first = await list(userCaller('lina'), { field_mask: 'name', order: '-name', limit: 2 });
      expect(first.total).toBe(3);
      expect(first.body.applications?.map((a) => [a.ids?.application_id, a.name])).toEqual([
        ['lst-3', 'Charlie'],
        ['lst-2', 'Bravo'],
      ]);
      const second = await list(userCaller('lina'), { field_mask: 'name', order: '-name', limit: 2, page: 2 });
      expect(second).toMatchObject({ total: 3, body: { applications: [{ ids: { application_id: 'lst-1' }, name: 'Alpha' }] } });
      expect(Object.keys(second.body.applications?.[0] ?? {}).sort()).toEqual(['created_at', 'ids', 'name', 'updated_at']);
      const past = await list(userCaller('lina'), { limit: 2, page: 3 });
      expect(past).toMatchObject({ total: 3, body: {} });
      expect(past.body).toEqual({});
    });

    it("GET /users/{id}/applications lists that user's applications; deleted ones only when asked", async () => {
      const mine = await list(adminCaller(), { collaborator: { user_ids: { user_id: 'lars' } } });
      expect(mine.body.applications?.map((a) => a.ids?.application_id)).toEqual(['lst-lars']);
      const deleted = await list(userCaller('lina'), { collaborator: { user_ids: { user_id: 'lina' } }, deleted: true });
      expect(deleted.body.applications?.map((a) => a.ids?.application_id)).toEqual(['lst-gone']);
      expect(deleted.total).toBe(1);
    });

    it('an admin without a collaborator lists every live application', async () => {
      const all = await list(adminCaller(), { limit: 1000 });
      const listed = all.body.applications?.map((a) => a.ids?.application_id) ?? [];
      expect(listed).toEqual(expect.arrayContaining(['lst-1', 'lst-2', 'lst-3', 'lst-lars', 'app-one']));
      expect(listed).not.toContain('lst-gone');
      expect(all.total).toBe(listed.length);
    });

    it('an application or gateway key lists nothing', async () => {
      expect(await list(entityKeyCaller({ kind: 'application', id: 'lst-1' }))).toEqual({ body: {}, total: 0 });
      expect(await list(entityKeyCaller({ kind: 'gateway', id: 'gtw-1' }))).toEqual({ body: {}, total: 0 });
    });

    it('entries the caller lacks RIGHT_APPLICATION_INFO on show only their identifiers and timestamps', async () => {
      const listOnly = userCaller('lina', [Right.RIGHT_USER_APPLICATIONS_LIST, Right.RIGHT_APPLICATION_DEVICES_READ]);
      const { body } = await list(listOnly, { field_mask: 'name,description' });
      for (const app of body.applications ?? []) expect(Object.keys(app).sort()).toEqual(['created_at', 'ids', 'updated_at']);
      const { body: admins } = await list(adminCaller(), { collaborator: { user_ids: { user_id: 'lina' } }, field_mask: 'name' });
      expect(admins.applications?.every((a) => a.name !== undefined)).toBe(true);
    });

    it("needs RIGHT_USER_APPLICATIONS_LIST on the caller's own user, which must be approved", async () => {
      await expect(list(userCaller('lina', [Right.RIGHT_APPLICATION_INFO]))).rejects.toMatchObject({
        namespace: 'pkg/auth/rights',
        errorName: 'insufficient_user_rights',
        code: 7,
        attributes: { uid: 'lina', missing: ['RIGHT_USER_APPLICATIONS_LIST'] },
      });
      await expect(list(userCaller('rita'))).rejects.toMatchObject({ errorName: 'no_user_rights', code: 7 });
    });

    it('lists nothing as {} with a total of 0', async () => {
      expect(await list(userCaller('bob'))).toEqual({ body: {}, total: 0 });
    });
  });

  describe('Update', () => {
    it('changes the masked fields only, bumping updated_at', async () => {
      const app = await create('app-upd', 'alice', { name: 'before', description: 'keep', attributes: { aaa: '1' } });
      const out = await update('app-upd', { name: 'after', description: 'ignored', attributes: {} }, ['name', 'attributes']);
      expect(out).toEqual({ ids: { application_id: 'app-upd' }, created_at: app.created_at, updated_at: out.updated_at, name: 'after' });
      expect((out.updated_at ?? '') > app.updated_at).toBe(true);
      expect(await get('app-upd', 'name,description,attributes')).toMatchObject({ name: 'after', description: 'keep' });
      expect((await get('app-upd', 'attributes')).attributes).toBeUndefined();
    });

    it('keeps identifiers read-only, ignores server timestamps, refuses paths outside the list', async () => {
      await expect(update('app-upd', {}, ['ids.application_id'])).rejects.toMatchObject({
        namespace: 'pkg/identityserver',
        errorName: 'read_only_field',
        code: 3,
        attributes: { field: 'ids.application_id' },
      });
      await expect(update('app-upd', {}, ['ids'])).rejects.toMatchObject({ errorName: 'read_only_field' });
      await expect(update('app-upd', { dev_eui_counter: 3 }, ['dev_eui_counter'])).rejects.toMatchObject({
        errorName: 'field_mask_paths',
        attributes: { forbidden_paths: ['dev_eui_counter'] },
      });
      const before = await get('app-upd', 'created_at');
      const out = await update('app-upd', { created_at: '2000-01-01T00:00:00Z', name: 'again' }, ['created_at', 'name']);
      expect(out.created_at).toBe(before.created_at);
      expect(out.name).toBe('again');
    });

    it('takes only collaborators as contacts', async () => {
      await expect(update('app-upd', { technical_contact: { user_ids: { user_id: 'bob' } } }, ['technical_contact'])).rejects.toMatchObject({
        errorName: 'contact_no_collaborator',
        attributes: { contact: 'bob' },
      });
      await expect(update('app-upd', { technical_contact: { organization_ids: { organization_id: 'org' } } }, ['technical_contact'])).rejects.toMatchObject({
        errorName: 'contact_no_collaborator',
      });
      const out = await update('app-upd', { administrative_contact: { user_ids: { user_id: 'alice' } } }, ['administrative_contact']);
      expect(out.administrative_contact).toEqual({ user_ids: { user_id: 'alice' } });
    });

    it('does not find soft-deleted applications', async () => {
      await expect(update('app-taken', { name: 'x' }, ['name'])).rejects.toMatchObject({ errorName: 'application_not_found' });
    });

    it('applies concurrent updates of different fields without losing one', async () => {
      await create('app-race', 'alice');
      await Promise.all([
        update('app-race', { name: 'n' }, ['name']),
        update('app-race', { description: 'd' }, ['description']),
        update('app-race', { attributes: { xyz: 'y' } }, ['attributes']),
      ]);
      expect(await get('app-race', 'name,description,attributes')).toMatchObject({ name: 'n', description: 'd', attributes: { xyz: 'y' } });
    });
  });

  describe('Delete, Restore, Purge', () => {
    it('refuses to delete while the IS holds devices of the application, then soft-deletes and invalidates access', async () => {
      await create('app-del', 'alice');
      await bed.addDevice('app-del', 'dev-1');
      await bed.addDevice('app-del', 'dev-2');
      await expect(bed.applications.delete(ids('app-del'), CTX)).rejects.toMatchObject({
        namespace: 'pkg/identityserver',
        errorName: 'application_has_devices',
        code: 9,
        attributes: { count: 2 },
      });
      expect(await get('app-del')).toBeDefined();
      await bed.devices.delete('app-del', 'dev-1');
      await bed.devices.delete('app-del', 'dev-2');
      const published = bed.invalidations.length;
      expect(await bed.applications.delete(ids('app-del'), CTX)).toEqual({});
      expect(bed.invalidations.slice(published)).toEqual([{ entity: { kind: 'application', id: 'app-del' } }]);
      await expect(get('app-del')).rejects.toMatchObject({ errorName: 'application_not_found' });
      await expect(bed.applications.delete(ids('app-del'), CTX)).rejects.toMatchObject({ errorName: 'application_not_found' });
      expect(await bed.directory.exists({ kind: 'application', id: 'app-del' })).toBe(false);
    });

    it('restores only soft-deleted applications', async () => {
      await expect(bed.applications.restore(ids('app-one'), CTX)).rejects.toMatchObject({ errorName: 'application_not_found' });
      expect(await bed.applications.restore(ids('app-del'), CTX)).toEqual({});
      expect(await get('app-del')).toMatchObject({ ids: { application_id: 'app-del' } });
    });

    it('purges with the API keys first, not while devices exist, and frees the ID', async () => {
      await bed.addDevice('app-del', 'dev-3');
      await expect(bed.applications.purge(ids('app-del'), CTX)).rejects.toMatchObject({ errorName: 'application_has_devices', attributes: { count: 1 } });
      expect(bed.keyCleanups).toEqual([]);
      await bed.devices.delete('app-del', 'dev-3');
      await bed.applications.delete(ids('app-del'), CTX);
      expect(await bed.applications.purge(ids('app-del'), CTX)).toEqual({});
      expect(bed.keyCleanups).toEqual([{ kind: 'application', id: 'app-del' }]);
      expect(bed.invalidations.at(-1)).toEqual({ entity: { kind: 'application', id: 'app-del' } });
      expect(await bed.stores.applications.get('app-del', 'any')).toBeUndefined();
      await expect(bed.applications.purge(ids('app-del'), CTX)).rejects.toMatchObject({ errorName: 'application_not_found' });
      await expect(create('app-del', 'bob')).resolves.toMatchObject({ ids: { application_id: 'app-del' } });
      expect(await bed.directory.collaboratorRights('alice', { kind: 'application', id: 'app-del' })).toEqual([]);
    });
  });
});
