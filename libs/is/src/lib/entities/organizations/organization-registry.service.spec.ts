import {
  CreateOrganizationRequest,
  decodeMessage,
  GetOrganizationRequest,
  ListOrganizationsRequest,
  OrganizationIdentifiers,
  Right,
  UpdateOrganizationRequest,
  type CallerIdentity,
} from '@lorawan/api';
import type { StackError } from '@lorawan/errors';
import { rpcContext } from '@lorawan/testing';
import { adminCaller, CTX, ctxOf, entityKeyCaller, type IdentityTestBed, openIdentityTestBed, userCaller } from '../identity-fixtures.conformance';

const ids = (organization_id: string) => decodeMessage(OrganizationIdentifiers, { organization_id });
const T0 = '2024-05-01T10:00:00.000000Z';

describe('OrganizationRegistryService (SQLite)', () => {
  let bed: IdentityTestBed;
  const create = (id: string, userId: string, organization: object = {}) =>
    bed.organizations.create(
      decodeMessage(CreateOrganizationRequest, {
        organization: { ids: { organization_id: id }, ...organization },
        collaborator: { user_ids: { user_id: userId } },
      }),
      CTX,
    );
  const get = (id: string, field_mask?: string) =>
    bed.organizations.get(decodeMessage(GetOrganizationRequest, { organization_ids: { organization_id: id }, ...(field_mask ? { field_mask } : {}) }));
  const list = (caller: CallerIdentity, query: object = {}) => bed.organizations.list(decodeMessage(ListOrganizationsRequest, query), caller);
  const update = (id: string, organization: object, paths: string[]) =>
    bed.organizations.update(
      decodeMessage(UpdateOrganizationRequest, { organization: { ids: { organization_id: id }, ...organization }, field_mask: { paths } }),
      CTX,
    );
  /** The events of that name published since the last look (all others are dropped). */
  const eventsNamed = async (name: string) => (await bed.events.take()).filter((e) => e.name === name);
  /** The organization collaborating on a new application of `owner`. */
  const collaborateOnApplication = async (organizationId: string, applicationId: string, owner = 'alice') => {
    await bed.stores.applications.create(
      { ids: { application_id: applicationId }, created_at: T0, updated_at: T0 },
      { ids: { kind: 'user', id: owner }, rights: [Right.RIGHT_ALL] },
    );
    await bed.stores.collaborators.change(
      { kind: 'application', id: applicationId },
      { kind: 'organization', id: organizationId },
      () => [Right.RIGHT_APPLICATION_INFO],
      T0,
    );
  };

  beforeAll(async () => {
    bed = await openIdentityTestBed();
    await bed.users.ensureAdminUser();
    for (const [id, state] of [
      ['alice', 'STATE_APPROVED'],
      ['bob', 'STATE_APPROVED'],
      ['rita', 'STATE_REQUESTED'],
    ]) {
      await bed.stores.users.create({ ids: { user_id: id }, created_at: T0, updated_at: T0, state });
    }
  });
  afterAll(async () => bed.close());

  describe('Create', () => {
    it('stores the organization with the user as member holding RIGHT_ALL; contacts default to it; publishes organization.create', async () => {
      const org = await bed.organizations.create(
        decodeMessage(CreateOrganizationRequest, {
          organization: { ids: { organization_id: 'org-one' }, name: 'Org 1', description: 'about', attributes: { key: 'v' }, fanout_notifications: true },
          collaborator: { user_ids: { user_id: 'alice' } },
        }),
        ctxOf(userCaller('alice')),
      );
      expect(org).toEqual({
        ids: { organization_id: 'org-one' },
        created_at: org.created_at,
        updated_at: org.created_at,
        name: 'Org 1',
        description: 'about',
        attributes: { key: 'v' },
        fanout_notifications: true,
        administrative_contact: { user_ids: { user_id: 'alice' } },
        technical_contact: { user_ids: { user_id: 'alice' } },
      });
      expect(org.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
      expect(await bed.stores.organizations.get('org-one')).toEqual(org);
      expect(await bed.stores.collaborators.rightsOf('alice', { kind: 'organization', id: 'org-one' })).toEqual(['RIGHT_ALL']);
      expect(await bed.directory.exists({ kind: 'organization', id: 'org-one' })).toBe(true);
      expect(await eventsNamed('organization.create')).toEqual([
        expect.objectContaining({ identifiers: [{ organization_ids: { organization_id: 'org-one' } }], visibility: { rights: ['RIGHT_ORGANIZATION_INFO'] } }),
      ]);
    });

    it('refuses an ID taken by an organization (also soft-deleted) or a user with id_taken, caused by already_exists', async () => {
      await create('org-taken', 'alice', { name: 'first' });
      const err = await create('org-taken', 'bob', { name: 'second' }).catch((e: StackError) => e);
      expect(err).toMatchObject({ namespace: 'pkg/util/store', errorName: 'id_taken', code: 6 });
      expect((err as StackError).toDetails().cause).toMatchObject({ namespace: 'pkg/util/store', name: 'already_exists' });
      expect((await get('org-taken', 'name')).name).toBe('first');
      expect(await bed.stores.collaborators.rightsOf('bob', { kind: 'organization', id: 'org-taken' })).toEqual([]);
      await bed.organizations.delete(ids('org-taken'), CTX);
      await expect(create('org-taken', 'bob')).rejects.toMatchObject({ errorName: 'id_taken' });
      await expect(create('bob', 'alice')).rejects.toMatchObject({ errorName: 'id_taken' });
      expect(await bed.stores.organizations.get('bob', 'any')).toBeUndefined();
    });

    it('needs an existing user as first member; an organization is refused as nested', async () => {
      await expect(create('org-ghost', 'ghost')).rejects.toMatchObject({
        namespace: 'pkg/identityserver/store',
        errorName: 'user_not_found',
        code: 5,
        attributes: { user_id: 'ghost' },
      });
      const nested = decodeMessage(CreateOrganizationRequest, {
        organization: { ids: { organization_id: 'org-nested' } },
        collaborator: { organization_ids: { organization_id: 'org-one' } },
      });
      await expect(bed.organizations.create(nested, CTX)).rejects.toMatchObject({
        namespace: 'pkg/identityserver',
        errorName: 'nested_organizations',
        code: 3,
      });
      expect(await bed.stores.organizations.get('org-ghost', 'any')).toBeUndefined();
      expect(await bed.stores.organizations.get('org-nested', 'any')).toBeUndefined();
    });

    it('takes contacts only when they are the first member', async () => {
      await expect(create('org-contact', 'alice', { technical_contact: { user_ids: { user_id: 'bob' } } })).rejects.toMatchObject({
        namespace: 'pkg/identityserver',
        errorName: 'contact_no_collaborator',
        code: 3,
        attributes: { contact: 'bob' },
      });
      await expect(create('org-contact', 'alice', { technical_contact: { user_ids: { user_id: 'alice' } } })).resolves.toMatchObject({
        technical_contact: { user_ids: { user_id: 'alice' } },
      });
    });
  });

  describe('Get', () => {
    it('answers ids and timestamps by default, and the masked fields', async () => {
      const org = await create('org-get', 'alice', { name: 'N', description: 'D' });
      expect(await get('org-get')).toEqual({ ids: { organization_id: 'org-get' }, created_at: org.created_at, updated_at: org.updated_at });
      expect(await get('org-get', 'name,administrative_contact')).toEqual({
        ids: { organization_id: 'org-get' },
        created_at: org.created_at,
        updated_at: org.updated_at,
        name: 'N',
        administrative_contact: { user_ids: { user_id: 'alice' } },
      });
    });

    it('refuses paths outside the allowed list', async () => {
      await expect(get('org-get', 'name,network_server_address,contact_info')).rejects.toMatchObject({
        namespace: 'pkg/rpcmiddleware/validator',
        errorName: 'field_mask_paths',
        attributes: { forbidden_paths: ['network_server_address', 'contact_info'] },
      });
    });

    it('does not find missing or soft-deleted organizations', async () => {
      await expect(get('org-missing')).rejects.toMatchObject({
        namespace: 'pkg/identityserver/store',
        errorName: 'organization_not_found',
        code: 5,
        attributes: { organization_id: 'org-missing' },
      });
      await expect(get('org-taken')).rejects.toMatchObject({ errorName: 'organization_not_found' });
    });
  });

  describe('List', () => {
    beforeAll(async () => {
      for (const user of ['lina', 'lars']) await bed.stores.users.create({ ids: { user_id: user }, created_at: T0, updated_at: T0, state: 'STATE_APPROVED' });
      for (const [id, name] of [
        ['lst-3', 'Charlie'],
        ['lst-1', 'Alpha'],
        ['lst-2', 'Bravo'],
      ]) {
        await create(id, 'lina', { name });
      }
      await create('lst-lars', 'lars', { name: 'Lars' });
      await create('lst-gone', 'lina');
      await bed.organizations.delete(ids('lst-gone'), CTX);
    });

    it("a user key lists the user's live organizations, ordered and paginated, with the total", async () => {
      const first = await list(userCaller('lina'), { field_mask: 'name', order: '-name', limit: 2 });
      expect(first.total).toBe(3);
      expect(first.body.organizations?.map((o) => [o.ids?.organization_id, o.name])).toEqual([
        ['lst-3', 'Charlie'],
        ['lst-2', 'Bravo'],
      ]);
      const second = await list(userCaller('lina'), { field_mask: 'name', order: '-name', limit: 2, page: 2 });
      expect(second).toMatchObject({ total: 3, body: { organizations: [{ ids: { organization_id: 'lst-1' }, name: 'Alpha' }] } });
      expect(Object.keys(second.body.organizations?.[0] ?? {}).sort()).toEqual(['created_at', 'ids', 'name', 'updated_at']);
      const past = await list(userCaller('lina'), { limit: 2, page: 3 });
      expect(past).toEqual({ body: {}, total: 3 });
    });

    it("GET /users/{id}/organizations lists that user's organizations; deleted ones only when asked", async () => {
      const theirs = await list(adminCaller(), { collaborator: { user_ids: { user_id: 'lars' } } });
      expect(theirs.body.organizations?.map((o) => o.ids?.organization_id)).toEqual(['lst-lars']);
      const deleted = await list(userCaller('lina'), { collaborator: { user_ids: { user_id: 'lina' } }, deleted: true });
      expect(deleted.body.organizations?.map((o) => o.ids?.organization_id)).toEqual(['lst-gone']);
      expect(deleted.total).toBe(1);
    });

    it('an admin without a collaborator lists every live organization', async () => {
      const all = await list(adminCaller(), { limit: 1000 });
      const listed = all.body.organizations?.map((o) => o.ids?.organization_id) ?? [];
      expect(listed).toEqual(expect.arrayContaining(['lst-1', 'lst-2', 'lst-3', 'lst-lars', 'org-one']));
      expect(listed).not.toContain('lst-gone');
      expect(all.total).toBe(listed.length);
    });

    it('organizations do not nest: an organization as collaborator, or an organization key, is refused', async () => {
      await expect(list(adminCaller(), { collaborator: { organization_ids: { organization_id: 'lst-1' } } })).rejects.toMatchObject({
        errorName: 'nested_organizations',
      });
      await expect(list(entityKeyCaller({ kind: 'organization', id: 'lst-1' }))).rejects.toMatchObject({ errorName: 'nested_organizations' });
      expect(await list(entityKeyCaller({ kind: 'application', id: 'app-1' }))).toEqual({ body: {}, total: 0 });
    });

    it('entries the caller lacks RIGHT_ORGANIZATION_INFO on show only their identifiers and timestamps', async () => {
      const listOnly = userCaller('lina', [Right.RIGHT_USER_ORGANIZATIONS_LIST, Right.RIGHT_ORGANIZATION_SETTINGS_BASIC]);
      const { body } = await list(listOnly, { field_mask: 'name,description' });
      expect(body.organizations).toHaveLength(3);
      for (const org of body.organizations ?? []) expect(Object.keys(org).sort()).toEqual(['created_at', 'ids', 'updated_at']);
      const { body: admins } = await list(adminCaller(), { collaborator: { user_ids: { user_id: 'lina' } }, field_mask: 'name' });
      expect(admins.organizations?.every((o) => o.name !== undefined)).toBe(true);
      const { body: others } = await list(userCaller('lars'), { collaborator: { user_ids: { user_id: 'lina' } }, field_mask: 'name' });
      expect(others.organizations?.every((o) => o.name === undefined)).toBe(true);
    });

    it("needs RIGHT_USER_ORGANIZATIONS_LIST on the caller's own user, which must be approved", async () => {
      await expect(list(userCaller('lina', [Right.RIGHT_ORGANIZATION_INFO]))).rejects.toMatchObject({
        namespace: 'pkg/auth/rights',
        errorName: 'insufficient_user_rights',
        code: 7,
        attributes: { uid: 'lina', missing: ['RIGHT_USER_ORGANIZATIONS_LIST'] },
      });
      await expect(list(userCaller('rita'))).rejects.toMatchObject({ errorName: 'no_user_rights', code: 7 });
    });

    it('lists nothing as {} with a total of 0', async () => {
      expect(await list(userCaller('bob'))).toEqual({ body: {}, total: 0 });
    });
  });

  describe('Update', () => {
    it('changes the masked fields only, bumping updated_at; the event carries the paths', async () => {
      const org = await create('org-upd', 'alice', { name: 'before', description: 'keep', attributes: { aaa: '1' } });
      const out = await update('org-upd', { name: 'after', description: 'ignored', attributes: {}, fanout_notifications: true }, [
        'name',
        'attributes',
        'fanout_notifications',
      ]);
      expect(out).toEqual({
        ids: { organization_id: 'org-upd' },
        created_at: org.created_at,
        updated_at: out.updated_at,
        name: 'after',
        fanout_notifications: true,
      });
      expect((out.updated_at ?? '') > org.updated_at).toBe(true);
      expect(await get('org-upd', 'name,description,attributes')).toMatchObject({ name: 'after', description: 'keep' });
      expect((await get('org-upd', 'attributes')).attributes).toBeUndefined();
      const [event] = await eventsNamed('organization.update');
      expect(event).toMatchObject({ identifiers: [{ organization_ids: { organization_id: 'org-upd' } }] });
      expect(JSON.stringify(event.data)).toContain('fanout_notifications');
    });

    it('keeps identifiers read-only, ignores server timestamps, refuses paths outside the list', async () => {
      await expect(update('org-upd', {}, ['ids.organization_id'])).rejects.toMatchObject({
        namespace: 'pkg/identityserver',
        errorName: 'read_only_field',
        code: 3,
        attributes: { field: 'ids.organization_id' },
      });
      await expect(update('org-upd', {}, ['contact_info'])).rejects.toMatchObject({ errorName: 'field_mask_paths' });
      const before = await get('org-upd', 'created_at');
      const out = await update('org-upd', { created_at: '2000-01-01T00:00:00Z', name: 'again' }, ['created_at', 'name']);
      expect(out.created_at).toBe(before.created_at);
      expect(out.name).toBe('again');
    });

    it('takes only members as contacts', async () => {
      await expect(update('org-upd', { technical_contact: { user_ids: { user_id: 'bob' } } }, ['technical_contact'])).rejects.toMatchObject({
        errorName: 'contact_no_collaborator',
        attributes: { contact: 'bob' },
      });
      const out = await update('org-upd', { administrative_contact: { user_ids: { user_id: 'alice' } } }, ['administrative_contact']);
      expect(out.administrative_contact).toEqual({ user_ids: { user_id: 'alice' } });
    });

    it('does not find soft-deleted organizations', async () => {
      await expect(update('org-taken', { name: 'x' }, ['name'])).rejects.toMatchObject({ errorName: 'organization_not_found' });
    });
  });

  it('publishes create, update, delete, restore, purge: one event each, in order, with the request correlation IDs', async () => {
    const ctxs = ['Create', 'Update', 'Delete', 'Restore', 'Purge'].map((m) => rpcContext(`OrganizationRegistry.${m}`, adminCaller()));
    await bed.events.take();
    await bed.organizations.create(
      decodeMessage(CreateOrganizationRequest, { organization: { ids: { organization_id: 'ev-org' } }, collaborator: { user_ids: { user_id: 'alice' } } }),
      ctxs[0],
    );
    await bed.organizations.update(
      decodeMessage(UpdateOrganizationRequest, { organization: { ids: { organization_id: 'ev-org' }, name: 'N' }, field_mask: { paths: ['name'] } }),
      ctxs[1],
    );
    await bed.organizations.delete(ids('ev-org'), ctxs[2]);
    await bed.organizations.restore(ids('ev-org'), ctxs[3]);
    await bed.organizations.purge(ids('ev-org'), ctxs[4]);
    const events = await bed.events.take();
    expect(events.map((e) => [e.name, e.correlation_ids])).toEqual(
      ['create', 'update', 'delete', 'restore', 'purge'].map((name, i) => [`organization.${name}`, ctxs[i].correlation_ids]),
    );
    for (const e of events)
      expect(e).toMatchObject({ identifiers: [{ organization_ids: { organization_id: 'ev-org' } }], visibility: { rights: ['RIGHT_ORGANIZATION_INFO'] } });
  });

  describe('Delete, Restore, Purge', () => {
    it('refuses to delete while collaborating on a live application, then soft-deletes and invalidates all access', async () => {
      await create('org-del', 'alice');
      await collaborateOnApplication('org-del', 'org-del-app');
      const err = await bed.organizations.delete(ids('org-del'), CTX).catch((e: StackError) => e);
      expect(err).toMatchObject({ namespace: 'pkg/identityserver', errorName: 'organization_has_entities', code: 9, attributes: { count: 1 } });
      expect((err as StackError).message).toBe('organization still collaborates on `1` entities');
      expect(await get('org-del')).toBeDefined();
      await bed.stores.applications.softDelete('org-del-app', T0);
      const published = bed.invalidations.length;
      expect(await bed.organizations.delete(ids('org-del'), CTX)).toEqual({});
      expect(bed.invalidations.slice(published)).toEqual([{ entity: { kind: 'organization', id: 'org-del' } }, { all: true }]);
      await expect(get('org-del')).rejects.toMatchObject({ errorName: 'organization_not_found' });
      await expect(bed.organizations.delete(ids('org-del'), CTX)).rejects.toMatchObject({ errorName: 'organization_not_found' });
      expect(await bed.directory.exists({ kind: 'organization', id: 'org-del' })).toBe(false);
    });

    it('restores only soft-deleted organizations', async () => {
      await expect(bed.organizations.restore(ids('org-one'), CTX)).rejects.toMatchObject({ errorName: 'organization_not_found' });
      const published = bed.invalidations.length;
      expect(await bed.organizations.restore(ids('org-del'), CTX)).toEqual({});
      expect(bed.invalidations.slice(published)).toEqual([{ entity: { kind: 'organization', id: 'org-del' } }, { all: true }]);
      expect(await get('org-del')).toMatchObject({ ids: { organization_id: 'org-del' } });
    });

    it('purges with the API keys first, with members and collaborations, and frees the ID for users and organizations', async () => {
      await bed.stores.applications.restore('org-del-app');
      expect(await bed.stores.collaborators.rightsOf('org-del', { kind: 'application', id: 'org-del-app' })).toEqual(['RIGHT_APPLICATION_INFO']);
      expect(await bed.organizations.purge(ids('org-del'), CTX)).toEqual({});
      expect(bed.keyCleanups.at(-1)).toEqual({ kind: 'organization', id: 'org-del' });
      expect(bed.invalidations.slice(-2)).toEqual([{ entity: { kind: 'organization', id: 'org-del' } }, { all: true }]);
      expect(await bed.stores.organizations.get('org-del', 'any')).toBeUndefined();
      await expect(bed.organizations.purge(ids('org-del'), CTX)).rejects.toMatchObject({ errorName: 'organization_not_found' });
      await expect(create('org-del', 'bob')).resolves.toMatchObject({ ids: { organization_id: 'org-del' } });
      expect(await bed.stores.collaborators.rightsOf('alice', { kind: 'organization', id: 'org-del' })).toEqual([]);
      expect(await bed.stores.collaborators.rightsOf('org-del', { kind: 'application', id: 'org-del-app' })).toEqual([]);
      expect(await eventsNamed('organization.purge')).toEqual([
        expect.objectContaining({ identifiers: [{ organization_ids: { organization_id: 'org-del' } }] }),
      ]);
    });
  });
});
