import { CreateUserRequest, decodeMessage, GetUserRequest, ListUsersRequest, UpdateUserRequest, UserIdentifiers, type CallerIdentity } from '@lorawan/api';
import { verifySecret } from '@lorawan/crypto';
import { adminCaller, CTX, ctxOf, type IdentityTestBed, openIdentityTestBed, userCaller } from '../identity-fixtures.conformance';
import { AdminUserBootstrap } from './admin-user.bootstrap';

describe('UserRegistryService (SQLite)', () => {
  let bed: IdentityTestBed;
  const create = (user: object) => bed.users.create(decodeMessage(CreateUserRequest, { user }), CTX);
  const get = (id: string, field_mask?: string) =>
    bed.users.get(decodeMessage(GetUserRequest, { user_ids: { user_id: id }, ...(field_mask ? { field_mask } : {}) }));
  const update = (id: string, user: object, paths: string[], caller: CallerIdentity) =>
    bed.users.update(decodeMessage(UpdateUserRequest, { user: { ids: { user_id: id }, ...user }, field_mask: { paths } }), ctxOf(caller));

  beforeAll(async () => {
    bed = await openIdentityTestBed();
  });
  afterAll(async () => bed.close());

  describe('bootstrap', () => {
    it('creates the admin user once, approved, even when replicas start together', async () => {
      const results = await Promise.all(Array.from({ length: 5 }, () => bed.users.ensureAdminUser()));
      expect(results.filter(Boolean)).toHaveLength(1);
      await new AdminUserBootstrap(bed.users).onApplicationBootstrap();
      expect(await get('admin', 'admin,state')).toMatchObject({ ids: { user_id: 'admin' }, admin: true, state: 'STATE_APPROVED' });
      expect(await bed.directory.user('admin')).toEqual({ user_id: 'admin', admin: true, state: 'STATE_APPROVED' });
      expect((await bed.users.list(decodeMessage(ListUsersRequest, {}))).total).toBe(1);
    });
  });

  describe('Create', () => {
    it('stores the password only as a PBKDF2 hash and never returns it', async () => {
      const user = await create({
        ids: { user_id: 'alice' },
        name: 'Alice',
        primary_email_address: 'alice@example.com',
        password: 'Secret-Passw0rd',
        state: 'STATE_APPROVED',
      });
      expect(user).toEqual({
        ids: { user_id: 'alice' },
        created_at: user.created_at,
        updated_at: user.created_at,
        password_updated_at: user.created_at,
        name: 'Alice',
        primary_email_address: 'alice@example.com',
        state: 'STATE_APPROVED',
      });
      const hash = (await bed.stores.users.passwordHash('alice')) ?? '';
      expect(hash).toMatch(/^PBKDF2\$sha256\$20000\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]{43}$/);
      expect(await verifySecret('Secret-Passw0rd', hash)).toBe(true);
      expect(JSON.stringify(await get('alice', 'name,primary_email_address,password_updated_at'))).not.toContain('PBKDF2');
      await expect(get('alice', 'password')).rejects.toMatchObject({ errorName: 'field_mask_paths', attributes: { forbidden_paths: ['password'] } });
    });

    it('refuses weak passwords and taken IDs, storing nothing', async () => {
      await expect(create({ ids: { user_id: 'weak' }, password: 'short1A' })).rejects.toMatchObject({
        errorName: 'password_strength_min_length',
        code: 3,
        attributes: { n: 8 },
      });
      await expect(create({ ids: { user_id: 'weak' }, password: 'nouppercase1' })).rejects.toMatchObject({ errorName: 'password_strength_uppercase' });
      await expect(create({ ids: { user_id: 'weak' }, password: 'NoDigitsHere' })).rejects.toMatchObject({ errorName: 'password_strength_digits' });
      expect(await bed.stores.users.get('weak', 'any')).toBeUndefined();
      await expect(create({ ids: { user_id: 'alice' }, name: 'Other' })).rejects.toMatchObject({ namespace: 'pkg/util/store', errorName: 'id_taken', code: 6 });
      expect((await get('alice', 'name')).name).toBe('Alice');
    });

    it('leaves zero values out: a user created without a state is requested', async () => {
      const user = await create({ ids: { user_id: 'bob' }, admin: false, state: 'STATE_REQUESTED' });
      expect(Object.keys(user).sort()).toEqual(['created_at', 'ids', 'updated_at']);
      expect(await bed.directory.user('bob')).toEqual({ user_id: 'bob', admin: false, state: 'STATE_REQUESTED' });
    });
  });

  describe('Update', () => {
    it('lets users change their own basic fields, not the admin fields', async () => {
      const out = await update('alice', { name: 'Alice A.', description: 'hi' }, ['name', 'description'], userCaller('alice'));
      expect(out).toMatchObject({ ids: { user_id: 'alice' }, name: 'Alice A.', description: 'hi' });
      for (const field of ['admin', 'state', 'state_description', 'require_password_update', 'primary_email_address_validated_at']) {
        await expect(update('alice', { admin: true, state: 'STATE_APPROVED' }, [field], userCaller('alice'))).rejects.toMatchObject({
          namespace: 'pkg/identityserver',
          errorName: 'user_update_admin_field',
          code: 7,
          attributes: { field },
        });
      }
      expect((await get('alice', 'admin')).admin).toBeUndefined();
    });

    it('lets admins change admin and state; a new state without a description clears the old one', async () => {
      await update('bob', { state: 'STATE_SUSPENDED', state_description: 'spam' }, ['state', 'state_description'], adminCaller());
      expect(await get('bob', 'state,state_description')).toMatchObject({ state: 'STATE_SUSPENDED', state_description: 'spam' });
      const out = await update('bob', { state: 'STATE_APPROVED', admin: true }, ['state', 'admin'], adminCaller());
      expect(out).toMatchObject({ state: 'STATE_APPROVED', admin: true });
      expect((await get('bob', 'state_description')).state_description).toBeUndefined();
      expect(await bed.directory.user('bob')).toEqual({ user_id: 'bob', admin: true, state: 'STATE_APPROVED' });
    });

    it("invalidates the gateways' cached access of the user's keys when admin or state changes, not for other fields", async () => {
      const before = bed.invalidations.length;
      await update('bob', { name: 'Bob' }, ['name'], adminCaller());
      expect(bed.invalidations).toHaveLength(before);
      await update('bob', { state: 'STATE_FLAGGED' }, ['state'], adminCaller());
      await update('bob', { admin: true }, ['admin'], adminCaller());
      expect(bed.invalidations.slice(before)).toEqual([{ entity: { kind: 'user', id: 'bob' } }, { entity: { kind: 'user', id: 'bob' } }]);
    });

    it("a new e-mail address is not validated; identifiers are read-only; timestamps are the server's", async () => {
      await update('alice', { primary_email_address_validated_at: '2024-01-01T00:00:00Z' }, ['primary_email_address_validated_at'], adminCaller());
      await update('alice', { primary_email_address: 'alice@example.com' }, ['primary_email_address'], userCaller('alice'));
      expect((await get('alice', 'primary_email_address_validated_at')).primary_email_address_validated_at).toBe('2024-01-01T00:00:00.000000Z');
      await update('alice', { primary_email_address: 'new@example.com' }, ['primary_email_address'], userCaller('alice'));
      expect((await get('alice', 'primary_email_address_validated_at')).primary_email_address_validated_at).toBeUndefined();
      await expect(update('alice', {}, ['ids.user_id'], adminCaller())).rejects.toMatchObject({
        errorName: 'read_only_field',
        attributes: { field: 'ids.user_id' },
      });
      const before = await get('alice', 'password_updated_at');
      const out = await update(
        'alice',
        { password_updated_at: '2000-01-01T00:00:00Z', created_at: '2000-01-01T00:00:00Z' },
        ['password_updated_at', 'created_at'],
        adminCaller(),
      );
      expect(out.created_at).toBe(before.created_at);
      expect((await get('alice', 'password_updated_at')).password_updated_at).toBe(before.password_updated_at);
      await expect(update('alice', { password: 'Other-Passw0rd' }, ['password'], adminCaller())).rejects.toMatchObject({ errorName: 'field_mask_paths' });
    });
  });

  describe('List', () => {
    it('paginates in the requested order with the total; deleted users only when asked', async () => {
      for (const id of ['carl', 'dora', 'eric']) await create({ ids: { user_id: id }, name: id.toUpperCase() });
      const first = await bed.users.list(decodeMessage(ListUsersRequest, { order: '-user_id', limit: 2, field_mask: 'name' }));
      expect(first.total).toBe(6);
      expect(first.body.users).toEqual([
        expect.objectContaining({ ids: { user_id: 'eric' }, name: 'ERIC' }),
        expect.objectContaining({ ids: { user_id: 'dora' }, name: 'DORA' }),
      ]);
      const last = await bed.users.list(decodeMessage(ListUsersRequest, { order: '-user_id', limit: 2, page: 3 }));
      expect(last.body.users?.map((u) => u.ids?.user_id)).toEqual(['alice', 'admin']);
      expect(await bed.users.list(decodeMessage(ListUsersRequest, { deleted: true }))).toEqual({ body: {}, total: 0 });
    });
  });

  describe('Delete', () => {
    it('soft-deletes: the ID stays taken, access is invalidated; the bootstrap admin stays', async () => {
      await expect(bed.users.delete(decodeMessage(UserIdentifiers, { user_id: 'admin' }), CTX)).rejects.toMatchObject({
        namespace: 'pkg/identityserver',
        errorName: 'delete_bootstrap_admin',
        code: 9,
      });
      expect(await bed.users.delete(decodeMessage(UserIdentifiers, { user_id: 'carl' }), CTX)).toEqual({});
      expect(bed.invalidations.at(-1)).toEqual({ entity: { kind: 'user', id: 'carl' } });
      await expect(get('carl')).rejects.toMatchObject({
        namespace: 'pkg/identityserver/store',
        errorName: 'user_not_found',
        code: 5,
        attributes: { user_id: 'carl' },
      });
      await expect(bed.users.delete(decodeMessage(UserIdentifiers, { user_id: 'carl' }), CTX)).rejects.toMatchObject({ errorName: 'user_not_found' });
      await expect(create({ ids: { user_id: 'carl' } })).rejects.toMatchObject({ errorName: 'id_taken' });
      expect(await bed.directory.user('carl')).toBeUndefined();
      expect((await bed.users.list(decodeMessage(ListUsersRequest, { deleted: true }))).body.users?.map((u) => u.ids?.user_id)).toEqual(['carl']);
    });
  });
});
