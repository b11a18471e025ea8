import {
  ClientIdentifiers,
  CreateClientRequest,
  decodeMessage,
  GetClientRequest,
  ListClientsRequest,
  Right,
  type RpcContext,
  UpdateClientRequest,
  type CallerIdentity,
} from '@lorawan/api';
import { verifySecret } from '@lorawan/crypto';
import type { StackError } from '@lorawan/errors';
import { rpcContext } from '@lorawan/testing';
import { adminCaller, ctxOf, entityKeyCaller, type IdentityTestBed, openIdentityTestBed, userCaller } from '../identity-fixtures.conformance';

const ids = (client_id: string) => decodeMessage(ClientIdentifiers, { client_id });
const ADMIN = ctxOf(adminCaller());
const asUser = (userId: string) => ctxOf(userCaller(userId));

describe('ClientRegistryService (SQLite)', () => {
  let bed: IdentityTestBed;
  const create = (id: string, userId: string, client: object = {}, ctx: RpcContext = ADMIN) =>
    bed.clients.create(
      decodeMessage(CreateClientRequest, { client: { ids: { client_id: id }, ...client }, collaborator: { user_ids: { user_id: userId } } }),
      ctx,
    );
  const get = (id: string, field_mask?: string) =>
    bed.clients.get(decodeMessage(GetClientRequest, { client_ids: { client_id: id }, ...(field_mask ? { field_mask } : {}) }));
  const list = (caller: CallerIdentity, query: object = {}) => bed.clients.list(decodeMessage(ListClientsRequest, query), caller);
  const update = (id: string, client: object, paths: string[], ctx: RpcContext = ADMIN) =>
    bed.clients.update(decodeMessage(UpdateClientRequest, { client: { ids: { client_id: id }, ...client }, field_mask: { paths } }), ctx);

  beforeAll(async () => {
    bed = await openIdentityTestBed();
    await bed.users.ensureAdminUser();
    for (const id of ['alice', 'bob', 'lina', 'lars'])
      await bed.stores.users.create({
        ids: { user_id: id },
        created_at: '2024-05-01T10:00:00.000000Z',
        updated_at: '2024-05-01T10:00:00.000000Z',
        state: 'STATE_APPROVED',
      });
  });
  afterAll(async () => bed.close());

  describe('Create', () => {
    it('stores the client with the collaborator holding RIGHT_ALL, so the user holds every client right; contacts default to the collaborator', async () => {
      const cli = await create('cli-one', 'alice', {
        name: 'Console',
        description: 'about',
        attributes: { key: 'v' },
        redirect_uris: ['https://console.example.com/oauth/callback'],
        logout_redirect_uris: ['https://console.example.com/'],
        state: 'STATE_APPROVED',
        endorsed: true,
        skip_authorization: true,
        grants: ['GRANT_AUTHORIZATION_CODE', 'GRANT_REFRESH_TOKEN'],
        rights: ['RIGHT_USER_INFO', 'RIGHT_APPLICATION_INFO'],
      });
      const { secret, ...stored } = cli;
      expect(stored).toEqual({
        ids: { client_id: 'cli-one' },
        created_at: cli.created_at,
        updated_at: cli.created_at,
        name: 'Console',
        description: 'about',
        attributes: { key: 'v' },
        redirect_uris: ['https://console.example.com/oauth/callback'],
        logout_redirect_uris: ['https://console.example.com/'],
        state: 'STATE_APPROVED',
        endorsed: true,
        skip_authorization: true,
        grants: ['GRANT_AUTHORIZATION_CODE', 'GRANT_REFRESH_TOKEN'],
        rights: ['RIGHT_USER_INFO', 'RIGHT_APPLICATION_INFO'],
        administrative_contact: { user_ids: { user_id: 'alice' } },
        technical_contact: { user_ids: { user_id: 'alice' } },
      });
      expect(await bed.stores.clients.get('cli-one')).toEqual(stored);
      expect(await bed.directory.collaboratorRights('alice', { kind: 'client', id: 'cli-one' })).toEqual(['RIGHT_ALL']);
      expect(await bed.directory.exists({ kind: 'client', id: 'cli-one' })).toBe(true);
      expect(secret).toMatch(/^[A-Z2-7]{52}$/);
    });

    it('generates the secret (TTS: 32 random bytes, base32) and keeps only its PBKDF2 hash', async () => {
      const { secret } = await create('cli-secret', 'alice');
      const hash = (await bed.stores.clients.secretHash('cli-secret')) ?? '';
      expect(hash).toMatch(/^PBKDF2\$sha256\$\d+\$/);
      expect(hash).not.toContain(secret);
      expect(await verifySecret(secret, hash)).toBe(true);
      expect(JSON.stringify(await bed.stores.clients.get('cli-secret'))).not.toContain(secret);
      expect((await create('cli-secret-2', 'alice')).secret).not.toBe(secret);
    });

    it('takes a secret the request gives (TTS), returning it once', async () => {
      const { secret } = await create('cli-given', 'alice', { secret: 'my-own-secret' });
      expect(secret).toBe('my-own-secret');
      expect(await verifySecret('my-own-secret', (await bed.stores.clients.secretHash('cli-given')) ?? '')).toBe(true);
    });

    it("a non-admin's client awaits approval: state REQUESTED, never endorsed nor skipping authorization", async () => {
      const cli = await create(
        'cli-user',
        'bob',
        { state: 'STATE_APPROVED', state_description: 'ok', endorsed: true, skip_authorization: true },
        asUser('bob'),
      );
      expect(cli).toMatchObject({ state: 'STATE_REQUESTED', state_description: 'admin approval required' });
      expect(cli.endorsed).toBeUndefined();
      expect(cli.skip_authorization).toBeUndefined();
    });

    it('refuses a taken ID (also of a soft-deleted client) with id_taken, storing nothing', async () => {
      await create('cli-taken', 'alice', { name: 'first' });
      const err = await create('cli-taken', 'bob', { name: 'second' }).catch((e: StackError) => e);
      expect(err).toMatchObject({ namespace: 'pkg/util/store', errorName: 'id_taken', code: 6 });
      expect((await get('cli-taken', 'name')).name).toBe('first');
      expect(await bed.directory.collaboratorRights('bob', { kind: 'client', id: 'cli-taken' })).toEqual([]);
      await bed.clients.delete(ids('cli-taken'), ADMIN);
      await expect(create('cli-taken', 'bob')).rejects.toMatchObject({ errorName: 'id_taken' });
    });

    it('needs an existing user or organization as collaborator, and contacts that are the collaborator', async () => {
      await expect(create('cli-ghost', 'ghost')).rejects.toMatchObject({ errorName: 'user_not_found', code: 5 });
      const org = decodeMessage(CreateClientRequest, {
        client: { ids: { client_id: 'cli-org' } },
        collaborator: { organization_ids: { organization_id: 'org1' } },
      });
      await expect(bed.clients.create(org, ADMIN)).rejects.toMatchObject({ errorName: 'organization_not_found', code: 5 });
      await expect(create('cli-contact', 'alice', { technical_contact: { user_ids: { user_id: 'bob' } } })).rejects.toMatchObject({
        errorName: 'contact_no_collaborator',
      });
      expect(await bed.stores.clients.get('cli-ghost', 'any')).toBeUndefined();
      expect(await bed.stores.clients.get('cli-contact', 'any')).toBeUndefined();
    });

    it('validates the client ID as TTS does', () => {
      for (const bad of ['Cli', 'c', 'cli_1', '-cli', 'x'.repeat(37)]) {
        expect(() => decodeMessage(CreateClientRequest, { client: { ids: { client_id: bad } }, collaborator: { user_ids: { user_id: 'alice' } } })).toThrow(
          expect.objectContaining({ errorName: 'validation', code: 3 }),
        );
      }
    });
  });

  describe('Get', () => {
    it('answers ids and timestamps by default, and the masked fields; never a secret', async () => {
      const cli = await create('cli-get', 'alice', { name: 'N', redirect_uris: ['https://a.example/cb'] });
      expect(await get('cli-get')).toEqual({ ids: { client_id: 'cli-get' }, created_at: cli.created_at, updated_at: cli.updated_at });
      expect(await get('cli-get', 'name,redirect_uris,administrative_contact')).toEqual({
        ids: { client_id: 'cli-get' },
        created_at: cli.created_at,
        updated_at: cli.updated_at,
        name: 'N',
        redirect_uris: ['https://a.example/cb'],
        administrative_contact: { user_ids: { user_id: 'alice' } },
      });
    });

    it('refuses `secret` and paths outside the allowed list (TTS: secret is not selectable)', async () => {
      await expect(get('cli-get', 'name,secret')).rejects.toMatchObject({
        namespace: 'pkg/rpcmiddleware/validator',
        errorName: 'field_mask_paths',
        attributes: { forbidden_paths: ['secret'] },
      });
    });

    it('does not find missing or soft-deleted clients', async () => {
      await expect(get('cli-missing')).rejects.toMatchObject({
        namespace: 'pkg/identityserver/store',
        errorName: 'client_not_found',
        code: 5,
        attributes: { client_id: 'cli-missing' },
      });
      await expect(get('cli-taken')).rejects.toMatchObject({ errorName: 'client_not_found' });
    });
  });

  describe('List', () => {
    beforeAll(async () => {
      for (const [id, name] of [
        ['lst-c', 'Charlie'],
        ['lst-a', 'Alpha'],
        ['lst-b', 'Bravo'],
      ])
        await create(id, 'lina', { name });
      await create('lst-lars', 'lars', { name: 'Lars' });
      await create('lst-gone', 'lina');
      await bed.clients.delete(ids('lst-gone'), ADMIN);
    });

    it("a user key lists the user's live clients, ordered and paginated, with the total", async () => {
      const first = await list(userCaller('lina'), { field_mask: 'name', order: '-name', limit: 2 });
      expect(first.total).toBe(3);
      expect(first.body.clients?.map((c) => [c.ids?.client_id, c.name])).toEqual([
        ['lst-c', 'Charlie'],
        ['lst-b', 'Bravo'],
      ]);
      const second = await list(userCaller('lina'), { field_mask: 'name', order: '-name', limit: 2, page: 2 });
      expect(second.body.clients).toEqual([expect.objectContaining({ ids: { client_id: 'lst-a' }, name: 'Alpha' })]);
      expect(Object.keys(second.body.clients?.[0] ?? {}).sort()).toEqual(['created_at', 'ids', 'name', 'updated_at']);
    });

    it("lists the named user's clients; deleted ones only when asked; everything for an admin", async () => {
      expect((await list(adminCaller(), { collaborator: { user_ids: { user_id: 'lars' } } })).body.clients?.map((c) => c.ids?.client_id)).toEqual(['lst-lars']);
      const deleted = await list(userCaller('lina'), { collaborator: { user_ids: { user_id: 'lina' } }, deleted: true });
      expect(deleted.body.clients?.map((c) => c.ids?.client_id)).toEqual(['lst-gone']);
      const all = await list(adminCaller(), { limit: 1000 });
      const listed = all.body.clients?.map((c) => c.ids?.client_id) ?? [];
      expect(listed).toEqual(expect.arrayContaining(['lst-a', 'lst-b', 'lst-c', 'lst-lars', 'cli-one']));
      expect(listed).not.toContain('lst-gone');
    });

    it('refuses `secret` in the mask; entries without RIGHT_CLIENT_INFO show only identifiers and timestamps', async () => {
      await expect(list(userCaller('lina'), { field_mask: 'secret' })).rejects.toMatchObject({ errorName: 'field_mask_paths' });
      const listOnly = userCaller('lina', [Right.RIGHT_USER_CLIENTS_LIST]);
      const { body } = await list(listOnly, { field_mask: 'name' });
      for (const cli of body.clients ?? []) expect(Object.keys(cli).sort()).toEqual(['created_at', 'ids', 'updated_at']);
    });

    it('needs RIGHT_USER_CLIENTS_LIST on its own user; an application key lists nothing', async () => {
      await expect(list(userCaller('lina', [Right.RIGHT_CLIENT_INFO]))).rejects.toMatchObject({
        errorName: 'insufficient_user_rights',
        attributes: { uid: 'lina', missing: ['RIGHT_USER_CLIENTS_LIST'] },
      });
      expect(await list(entityKeyCaller({ kind: 'application', id: 'app-1' }))).toEqual({ body: {}, total: 0 });
    });
  });

  describe('Update', () => {
    it('changes the masked fields only, bumping updated_at', async () => {
      const cli = await create('cli-upd', 'alice', { name: 'before', description: 'keep', redirect_uris: ['https://a.example/cb'] });
      const out = await update('cli-upd', { name: 'after', description: 'ignored', redirect_uris: [] }, ['name', 'redirect_uris']);
      expect(out).toEqual({ ids: { client_id: 'cli-upd' }, created_at: cli.created_at, updated_at: out.updated_at, name: 'after' });
      expect((out.updated_at ?? '') > cli.updated_at).toBe(true);
      expect(await get('cli-upd', 'name,description,redirect_uris')).toMatchObject({ name: 'after', description: 'keep' });
      expect((await get('cli-upd', 'redirect_uris')).redirect_uris).toBeUndefined();
    });

    it('keeps identifiers read-only and the admin fields for admins (TTS update_admin_field)', async () => {
      await expect(update('cli-upd', {}, ['ids.client_id'])).rejects.toMatchObject({ errorName: 'read_only_field', attributes: { field: 'ids.client_id' } });
      for (const field of ['state', 'state_description', 'skip_authorization', 'endorsed', 'grants']) {
        await expect(update('cli-upd', {}, [field], asUser('alice'))).rejects.toMatchObject({
          namespace: 'pkg/identityserver',
          errorName: 'update_admin_field',
          code: 7,
          attributes: { field },
        });
      }
      await expect(update('cli-upd', { description: 'by alice' }, ['description'], asUser('alice'))).resolves.toMatchObject({ description: 'by alice' });
    });

    it("an admin's new state without a description clears the old description", async () => {
      await create('cli-state', 'bob', {}, asUser('bob'));
      const out = await update('cli-state', { state: 'STATE_APPROVED' }, ['state']);
      expect(out.state).toBe('STATE_APPROVED');
      expect(out.state_description).toBeUndefined();
      expect(await get('cli-state', 'state,state_description')).toMatchObject({ state: 'STATE_APPROVED' });
      expect((await get('cli-state', 'state_description')).state_description).toBeUndefined();
    });

    it('sets a new secret, stored hashed and not returned; the event names the path only', async () => {
      await create('cli-rotate', 'alice');
      await bed.events.take();
      const out = await update('cli-rotate', { secret: 'rotated-secret', name: 'n' }, ['secret', 'name'], rpcContext('ClientRegistry.Update', adminCaller()));
      expect(out).not.toHaveProperty('secret');
      expect(JSON.stringify(out)).not.toContain('rotated-secret');
      expect(await verifySecret('rotated-secret', (await bed.stores.clients.secretHash('cli-rotate')) ?? '')).toBe(true);
      const [event] = await bed.events.take();
      expect(event).toMatchObject({ name: 'client.update', identifiers: [{ client_ids: { client_id: 'cli-rotate' } }], data: { value: ['secret', 'name'] } });
      expect(JSON.stringify(bed.events.all)).not.toContain('rotated-secret');
      await update('cli-rotate', {}, ['secret']);
      expect(await bed.stores.clients.secretHash('cli-rotate')).toBeUndefined();
    });

    it('takes only collaborators as contacts', async () => {
      await expect(update('cli-upd', { technical_contact: { user_ids: { user_id: 'bob' } } }, ['technical_contact'])).rejects.toMatchObject({
        errorName: 'contact_no_collaborator',
      });
    });
  });

  describe('Delete, Restore, Purge', () => {
    it('soft-deletes (rights lapse, ID stays taken), restores, purges (ID free again)', async () => {
      await create('cli-del', 'alice');
      await bed.clients.delete(ids('cli-del'), ADMIN);
      expect(await bed.directory.collaboratorRights('alice', { kind: 'client', id: 'cli-del' })).toEqual([]);
      expect(await bed.directory.exists({ kind: 'client', id: 'cli-del' })).toBe(false);
      expect(bed.invalidations).toContainEqual({ entity: { kind: 'client', id: 'cli-del' } });
      await expect(bed.clients.delete(ids('cli-del'), ADMIN)).rejects.toMatchObject({ errorName: 'client_not_found' });
      await bed.clients.restore(ids('cli-del'), ADMIN);
      expect(await bed.directory.collaboratorRights('alice', { kind: 'client', id: 'cli-del' })).toEqual(['RIGHT_ALL']);
      await expect(bed.clients.restore(ids('cli-del'), ADMIN)).rejects.toMatchObject({ errorName: 'client_not_found' });
      await bed.clients.purge(ids('cli-del'), ADMIN);
      expect(await bed.stores.clients.get('cli-del', 'any')).toBeUndefined();
      await expect(bed.clients.purge(ids('cli-del'), ADMIN)).rejects.toMatchObject({ errorName: 'client_not_found' });
      await create('cli-del', 'bob');
      expect(await bed.directory.collaboratorRights('alice', { kind: 'client', id: 'cli-del' })).toEqual([]);
    });
  });

  describe('events', () => {
    it('client.create|update|delete|restore|purge, one each, about the client, visible with RIGHT_CLIENT_INFO, without the secret', async () => {
      await bed.events.take();
      const ctxs = ['Create', 'Update', 'Delete', 'Restore', 'Purge'].map((m) => rpcContext(`ClientRegistry.${m}`, adminCaller()));
      const { secret } = await create('cli-ev', 'alice', {}, ctxs[0]);
      await update('cli-ev', { name: 'N' }, ['name'], ctxs[1]);
      await bed.clients.delete(ids('cli-ev'), ctxs[2]);
      await bed.clients.restore(ids('cli-ev'), ctxs[3]);
      await bed.clients.purge(ids('cli-ev'), ctxs[4]);
      const names = ['create', 'update', 'delete', 'restore', 'purge'];
      expect(await bed.events.take()).toEqual(
        names.map((name, i) => ({
          name: `client.${name}`,
          identifiers: [{ client_ids: { client_id: 'cli-ev' } }],
          ...(name === 'update' ? { data: { '@type': 'type.googleapis.com/google.protobuf.Value', value: ['name'] } } : {}),
          correlation_ids: ctxs[i].correlation_ids,
          visibility: { rights: ['RIGHT_CLIENT_INFO'] },
        })),
      );
      expect(JSON.stringify(bed.events.all)).not.toContain(secret);
    });

    it('nothing for a failed operation', async () => {
      await bed.events.take();
      await expect(create('cli-one', 'alice')).rejects.toHaveProperty('code');
      await expect(update('cli-ghost', { name: 'x' }, ['name'])).rejects.toHaveProperty('code');
      await expect(bed.clients.delete(ids('cli-ghost'), ADMIN)).rejects.toHaveProperty('code');
      expect(await bed.events.take()).toEqual([]);
    });
  });
});
