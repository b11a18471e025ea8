import {
  ACCESS_INVALIDATION_SUBJECT,
  type AccessInvalidation,
  type CallerIdentity,
  decodeMessage,
  type EntityRef,
  impliedRights,
  type Right,
  rightsOfKind,
  type RpcContext,
  sortRights,
  UpdateApplicationAPIKeyRequest,
  CreateApplicationAPIKeyRequest,
} from '@lorawan/api';
import { EventPublisher } from '@lorawan/component';
import { type EventRecorder, recordEvents, rpcContext } from '@lorawan/testing';
import { verifySecret } from '@lorawan/crypto';
import type { StackError } from '@lorawan/errors';
import { decode, InProcessBroker } from '@lorawan/transport';
import { AccessInvalidator } from '../access-invalidator';
import { caller, InMemoryApiKeyStore, InMemoryIdentityDirectory } from './access-fixtures.conformance';
import { ApiKeyService, type KeyOwner } from './api-key.service';

const app1: KeyOwner = { kind: 'application', id: 'app1' };
const app2: KeyOwner = { kind: 'application', id: 'app2' };
const alice: KeyOwner = { kind: 'user', id: 'alice' };
const ALL_APP = [...rightsOfKind('application')];
const ctx = (who: CallerIdentity | undefined): RpcContext => ({ request_id: 'r', correlation_ids: [], caller: who });
/** A collaborator with every application right, as Authorize resolves it on `entity`. */
const owner = (entity: EntityRef = app1) => ctx(caller(entity, ALL_APP));
const createReq = (body: object) => decodeMessage(CreateApplicationAPIKeyRequest, { application_ids: { application_id: 'app1' }, ...body });
const updateReq = (body: object) => decodeMessage(UpdateApplicationAPIKeyRequest, { application_ids: { application_id: 'app1' }, ...body });
const future = () => new Date(Date.now() + 3_600_000).toISOString();

async function failure(p: Promise<unknown>) {
  try {
    await p;
  } catch (err) {
    return (err as StackError).toDetails();
  }
  throw new Error('expected a failure');
}

describe('ApiKeyService', () => {
  let store: InMemoryApiKeyStore;
  let directory: InMemoryIdentityDirectory;
  let transport: InProcessBroker;
  let invalidations: AccessInvalidation[];
  let service: ApiKeyService;
  let output: string[];
  let events: EventRecorder;

  beforeEach(() => {
    store = new InMemoryApiKeyStore();
    directory = new InMemoryIdentityDirectory().addUser('alice').addEntity(app1).addEntity(app2);
    transport = new InProcessBroker();
    invalidations = [];
    transport.subscribe(ACCESS_INVALIDATION_SUBJECT, (payload) => invalidations.push(decode(payload)));
    service = new ApiKeyService(store, directory, new AccessInvalidator(transport), new EventPublisher(transport));
    events = recordEvents(transport);
    output = [];
    for (const stream of [process.stdout, process.stderr]) {
      jest.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => output.push(String(chunk)) > 0);
    }
  });
  afterEach(() => jest.restoreAllMocks());

  const flush = () => new Promise((r) => setImmediate(r));

  describe('create', () => {
    it('returns the key with its token once; stores the ID in clear and the secret as a PBKDF2 hash', async () => {
      const expires = future();
      const key = await service.create(
        app1,
        createReq({ name: 'my key', rights: ['RIGHT_APPLICATION_LINK', 'RIGHT_APPLICATION_DEVICES_READ'], expires_at: expires }),
        owner(),
      );
      const [, id, secret] = (key.key ?? '').split('.');
      expect(key).toEqual({
        id,
        key: `NNSXS.${id}.${secret}`,
        name: 'my key',
        rights: ['RIGHT_APPLICATION_LINK', 'RIGHT_APPLICATION_DEVICES_READ'],
        created_at: expect.stringMatching(/Z$/),
        updated_at: key.created_at,
        expires_at: expires.replace('Z', '000Z'),
      });
      expect(Object.keys(key)).toEqual(['id', 'key', 'name', 'rights', 'created_at', 'updated_at', 'expires_at']);
      const stored = store.keys.get(id);
      expect(stored?.owner).toEqual(app1);
      expect(stored?.secret_hash).toMatch(/^PBKDF2\$sha256\$10000\$/);
      expect(JSON.stringify(stored)).not.toContain(secret);
      expect(await verifySecret(secret, stored?.secret_hash ?? '')).toBe(true);
      expect(output.join('')).toContain(id);
      expect(output.join('')).not.toContain(secret);
    });

    it('an unnamed key without expiry has neither field', async () => {
      const key = await service.create(app1, createReq({ rights: ['RIGHT_APPLICATION_INFO'] }), owner());
      expect(key).not.toHaveProperty('name');
      expect(key).not.toHaveProperty('expires_at');
    });

    it('refuses duplicate rights with a validation error, storing nothing', async () => {
      expect(await failure(service.create(app1, createReq({ rights: ['RIGHT_APPLICATION_INFO', 'RIGHT_APPLICATION_INFO'] }), owner()))).toMatchObject({
        namespace: 'pkg/errors',
        name: 'validation',
        code: 3,
        attributes: { field: 'rights', name: 'CreateApplicationAPIKeyRequestValidationError', reason: 'repeated value must contain unique items' },
      });
      expect(store.keys.size).toBe(0);
    });

    it('refuses an expiry that is not in the future', async () => {
      expect(await failure(service.create(app1, createReq({ rights: ['RIGHT_APPLICATION_INFO'], expires_at: '2020-01-01T00:00:00Z' }), owner()))).toMatchObject(
        {
          name: 'validation',
          attributes: { field: 'expires_at', reason: 'value must be greater than now' },
        },
      );
      expect(store.keys.size).toBe(0);
    });

    it('refuses rights the caller does not hold (403 insufficient, missing listed), storing nothing', async () => {
      const limited = ctx(caller(app1, sortRights(impliedRights(['RIGHT_APPLICATION_SETTINGS_API_KEYS', 'RIGHT_APPLICATION_LINK']))));
      expect(
        await failure(
          service.create(app1, createReq({ rights: ['RIGHT_APPLICATION_INFO', 'RIGHT_APPLICATION_DEVICES_READ_KEYS', 'RIGHT_APPLICATION_ALL'] }), limited),
        ),
      ).toMatchObject({
        namespace: 'pkg/auth/rights',
        name: 'insufficient_application_rights',
        code: 7,
        attributes: { uid: 'app1', missing: ['RIGHT_APPLICATION_ALL', 'RIGHT_APPLICATION_DEVICES_READ_KEYS'] },
      });
      expect(store.keys.size).toBe(0);
    });

    it('an application key holds application rights only', async () => {
      expect(await failure(service.create(app1, createReq({ rights: ['RIGHT_ALL'] }), owner()))).toMatchObject({
        name: 'insufficient_application_rights',
        attributes: { missing: ['RIGHT_ALL'] },
      });
      expect(await failure(service.create(app1, createReq({ rights: ['RIGHT_GATEWAY_INFO'] }), owner()))).toMatchObject({
        attributes: { missing: ['RIGHT_GATEWAY_INFO'] },
      });
    });

    it('a user grants its own key’s reach on a user key; nobody else does', async () => {
      const self = ctx(caller(alice, [...rightsOfKind('user')], { owner: alice, key_rights: sortRights(impliedRights(['RIGHT_ALL'])) }));
      await expect(service.create(alice, { rights: ['RIGHT_ALL'] }, self)).resolves.toMatchObject({ rights: ['RIGHT_ALL'] });
      const admin = ctx(
        caller(
          alice,
          [...rightsOfKind('user')].filter((r) => r !== 'RIGHT_USER_ALL'),
          { owner: { kind: 'user', id: 'admin' }, is_admin: true, key_rights: sortRights(impliedRights(['RIGHT_ALL'])) },
        ),
      );
      await expect(service.create(alice, { rights: ['RIGHT_USER_INFO'] }, admin)).resolves.toMatchObject({ rights: ['RIGHT_USER_INFO'] });
      expect(await failure(service.create(alice, { rights: ['RIGHT_USER_INFO', 'RIGHT_APPLICATION_ALL'] }, admin))).toMatchObject({
        name: 'insufficient_user_rights',
        attributes: { uid: 'alice', missing: ['RIGHT_APPLICATION_ALL'] },
      });
    });

    it('the entity must exist (404 <kind>_not_found)', async () => {
      const ghost: KeyOwner = { kind: 'gateway', id: 'ghost' };
      expect(await failure(service.create(ghost, { rights: ['RIGHT_GATEWAY_INFO'] }, ctx(caller(ghost, [...rightsOfKind('gateway')]))))).toMatchObject({
        namespace: 'pkg/identityserver/store',
        name: 'gateway_not_found',
        code: 5,
        attributes: { gateway_id: 'ghost' },
      });
      expect(store.keys.size).toBe(0);
      const gone: KeyOwner = { kind: 'organization', id: 'gone-org' };
      expect(await failure(service.create(gone, { rights: ['RIGHT_ORGANIZATION_INFO'] }, ctx(caller(gone, [...rightsOfKind('organization')]))))).toMatchObject({
        namespace: 'pkg/identityserver/store',
        name: 'organization_not_found',
        code: 5,
        attributes: { organization_id: 'gone-org' },
      });
      expect(store.keys.size).toBe(0);
    });
  });

  describe('list, get', () => {
    const secrets: string[] = [];
    let ids: string[];
    beforeEach(async () => {
      ids = [];
      for (const name of ['b', 'a', 'c']) {
        const k = await service.create(app1, createReq({ name, rights: ['RIGHT_APPLICATION_INFO'] }), owner());
        ids.push(k.id as string);
        secrets.push((k.key as string).split('.')[2]);
      }
      await service.create(app2, { rights: ['RIGHT_APPLICATION_INFO'] }, owner(app2));
    });

    it('lists the entity’s keys (default order: ID), paginated, with the total; never a key or secret', async () => {
      const page = await service.list(app1, {});
      expect(page.total).toBe(3);
      expect(page.body.api_keys?.map((k) => k.id)).toEqual([...ids].sort());
      const json = JSON.stringify(page.body);
      expect(json).not.toContain('"key"');
      for (const s of secrets) expect(json).not.toContain(s);
      expect((await service.list(app1, { order: '-name', limit: 2, page: 1 })).body.api_keys?.map((k) => k.name)).toEqual(['c', 'b']);
      const second = await service.list(app1, { order: '-name', limit: 2, page: 2 });
      expect(second.body.api_keys?.map((k) => k.name)).toEqual(['a']);
      expect(second.total).toBe(3);
      expect(await service.list(app1, { limit: 2, page: 3 })).toMatchObject({ body: {}, total: 3 });
    });

    it('gets a key of the entity without its secret; another entity’s key is not found', async () => {
      const key = await service.get(app1, ids[0]);
      expect(key).toEqual({ id: ids[0], name: 'b', rights: ['RIGHT_APPLICATION_INFO'], created_at: expect.any(String), updated_at: expect.any(String) });
      expect(await failure(service.get(app2, ids[0]))).toMatchObject({
        namespace: 'pkg/identityserver/store',
        name: 'api_key_not_found',
        code: 5,
        attributes: { entity_type: 'application', entity_id: 'app2', api_key_id: ids[0] },
      });
      expect(await failure(service.get({ kind: 'gateway', id: 'app1' }, ids[0]))).toMatchObject({ name: 'gateway_not_found' });
    });

    it('an entity that no longer exists has no keys to show (404)', async () => {
      directory.remove(app1);
      expect(await failure(service.list(app1, {}))).toMatchObject({ name: 'application_not_found', attributes: { application_id: 'app1' } });
      expect(await failure(service.get(app1, ids[0]))).toMatchObject({ name: 'application_not_found' });
    });

    it('no log line carries a secret', () => {
      const logged = output.join('');
      expect(logged).toContain(ids[0]);
      for (const s of secrets) expect(logged).not.toContain(s);
    });
  });

  describe('update', () => {
    let id: string;
    let secret: string;
    beforeEach(async () => {
      const k = await service.create(
        app1,
        createReq({ name: 'old', rights: ['RIGHT_APPLICATION_INFO', 'RIGHT_APPLICATION_DEVICES_READ'], expires_at: future() }),
        owner(),
      );
      id = k.id as string;
      secret = (k.key as string).split('.')[2];
      await flush();
      invalidations.length = 0;
    });

    it('without a field mask updates name and rights (TTS), keeps the expiry, answers the key without its secret and invalidates it', async () => {
      const before = store.keys.get(id);
      const key = await service.update(app1, updateReq({ api_key: { id, name: 'new', rights: ['RIGHT_APPLICATION_LINK'] } }), owner());
      expect(key).toEqual({
        id,
        name: 'new',
        rights: ['RIGHT_APPLICATION_LINK'],
        created_at: before?.created_at,
        updated_at: expect.any(String),
        expires_at: before?.expires_at,
      });
      expect((key.updated_at ?? '') > (before?.updated_at ?? '')).toBe(true);
      expect(JSON.stringify(key)).not.toContain(secret);
      expect(store.keys.get(id)?.secret_hash).toBe(before?.secret_hash);
      await flush();
      expect(invalidations).toEqual([{ api_key_id: id }]);
    });

    it('with a mask changes only the masked fields; expires_at can be cleared', async () => {
      await service.update(app1, updateReq({ api_key: { id, name: 'renamed', rights: ['RIGHT_APPLICATION_LINK'] }, field_mask: { paths: ['name'] } }), owner());
      expect(store.keys.get(id)).toMatchObject({ name: 'renamed', rights: ['RIGHT_APPLICATION_INFO', 'RIGHT_APPLICATION_DEVICES_READ'] });
      const cleared = await service.update(app1, updateReq({ api_key: { id }, field_mask: 'expires_at' }), owner());
      expect(cleared).not.toHaveProperty('expires_at');
      expect(store.keys.get(id)?.expires_at).toBeUndefined();
      const expires = future();
      await service.update(app1, updateReq({ api_key: { id, expires_at: expires }, field_mask: 'expires_at' }), owner());
      expect(store.keys.get(id)?.expires_at).toBe(expires.replace('Z', '000Z'));
    });

    it('refuses a path outside name, rights, expires_at', async () => {
      expect(await failure(service.update(app1, updateReq({ api_key: { id }, field_mask: 'name,created_at,key' }), owner()))).toMatchObject({
        namespace: 'pkg/rpcmiddleware/validator',
        name: 'field_mask_paths',
        attributes: { forbidden_paths: ['created_at', 'key'] },
      });
    });

    it('deletes the key when an update gives no rights for `rights` (TTS: older clients delete keys that way)', async () => {
      // No mask: `name` and `rights`, as TTS.
      expect(await service.update(app1, updateReq({ api_key: { id, name: 'x' } }), owner())).toEqual({});
      expect(store.keys.get(id)).toBeUndefined();
      await flush();
      expect(invalidations).toEqual([{ api_key_id: id }]);
      expect(await failure(service.update(app1, updateReq({ api_key: { id, rights: [] }, field_mask: 'rights' }), owner()))).toMatchObject({
        name: 'api_key_not_found',
      });
    });

    it('refuses duplicate rights and a past expiry (validation, nested under api_key), changing nothing', async () => {
      const before = store.keys.get(id);
      expect(
        await failure(
          service.update(app1, updateReq({ api_key: { id, rights: ['RIGHT_APPLICATION_INFO', 'RIGHT_APPLICATION_INFO'] }, field_mask: 'rights' }), owner()),
        ),
      ).toMatchObject({
        cause: { attributes: { field: 'rights', reason: 'repeated value must contain unique items' } },
      });
      expect(
        await failure(service.update(app1, updateReq({ api_key: { id, expires_at: '2021-01-01T00:00:00Z' }, field_mask: 'expires_at' }), owner())),
      ).toMatchObject({
        cause: { attributes: { field: 'expires_at', reason: 'value must be greater than now' } },
      });
      expect(store.keys.get(id)).toEqual(before);
      await flush();
      expect(invalidations).toEqual([]);
    });

    it('no escalation: the caller must hold every right of the key and every right it adds, whatever it changes', async () => {
      const held = (...rights: Right[]) => ctx(caller(app1, sortRights(impliedRights(['RIGHT_APPLICATION_SETTINGS_API_KEYS', ...rights]))));
      const weaker = held('RIGHT_APPLICATION_INFO');
      const before = store.keys.get(id);
      // Adds DEVICES_WRITE, which the caller lacks.
      expect(
        await failure(
          service.update(
            app1,
            updateReq({
              api_key: { id, rights: ['RIGHT_APPLICATION_INFO', 'RIGHT_APPLICATION_DEVICES_READ', 'RIGHT_APPLICATION_DEVICES_WRITE'] },
              field_mask: 'rights',
            }),
            held('RIGHT_APPLICATION_INFO', 'RIGHT_APPLICATION_DEVICES_READ'),
          ),
        ),
      ).toMatchObject({
        name: 'insufficient_application_rights',
        attributes: { missing: ['RIGHT_APPLICATION_DEVICES_WRITE'] },
      });
      // A key holding less than the key changes nothing of it: rights (removed or kept), name, expiry.
      const keyRight: Right[] = ['RIGHT_APPLICATION_DEVICES_READ'];
      for (const [api_key, field_mask, missing] of [
        [{ id, rights: ['RIGHT_APPLICATION_INFO'] }, 'rights', keyRight],
        [
          { id, rights: ['RIGHT_APPLICATION_DEVICES_READ', 'RIGHT_APPLICATION_INFO', 'RIGHT_APPLICATION_TRAFFIC_READ'] },
          'rights',
          [...keyRight, 'RIGHT_APPLICATION_TRAFFIC_READ'],
        ],
        [{ id, name: 'renamed' }, 'name', keyRight],
        [{ id, expires_at: future() }, 'expires_at', keyRight],
        [{ id }, 'expires_at', keyRight],
      ] as const) {
        expect(await failure(service.update(app1, updateReq({ api_key, field_mask }), weaker))).toMatchObject({
          namespace: 'pkg/auth/rights',
          name: 'insufficient_application_rights',
          code: 7,
          attributes: { uid: 'app1', missing },
        });
      }
      expect(store.keys.get(id)).toEqual(before);
      // Holding every right of the key and those added: fine.
      const enough = held('RIGHT_APPLICATION_INFO', 'RIGHT_APPLICATION_DEVICES_READ', 'RIGHT_APPLICATION_TRAFFIC_READ');
      await expect(
        service.update(
          app1,
          updateReq({
            api_key: { id, rights: ['RIGHT_APPLICATION_DEVICES_READ', 'RIGHT_APPLICATION_INFO', 'RIGHT_APPLICATION_TRAFFIC_READ'] },
            field_mask: 'rights',
          }),
          enough,
        ),
      ).resolves.toMatchObject({
        rights: ['RIGHT_APPLICATION_DEVICES_READ', 'RIGHT_APPLICATION_INFO', 'RIGHT_APPLICATION_TRAFFIC_READ'],
      });
      await expect(service.update(app1, updateReq({ api_key: { id, name: 'renamed' }, field_mask: 'name' }), enough)).resolves.toMatchObject({
        name: 'renamed',
      });
    });

    it('a key with RIGHT_APPLICATION_ALL is changed only by a caller holding RIGHT_APPLICATION_ALL', async () => {
      const strong = await service.create(app1, createReq({ rights: ['RIGHT_APPLICATION_ALL'] }), owner());
      const allButAll = ctx(
        caller(
          app1,
          ALL_APP.filter((r) => r !== 'RIGHT_APPLICATION_ALL'),
        ),
      );
      expect(await failure(service.update(app1, updateReq({ api_key: { id: strong.id, name: 'x' }, field_mask: 'name' }), allButAll))).toMatchObject({
        name: 'insufficient_application_rights',
        attributes: { missing: ['RIGHT_APPLICATION_ALL'] },
      });
      await expect(service.update(app1, updateReq({ api_key: { id: strong.id, name: 'x' }, field_mask: 'name' }), owner())).resolves.toMatchObject({
        name: 'x',
      });
    });

    it('a key of another entity (or none) is not found', async () => {
      expect(await failure(service.update(app2, updateReq({ api_key: { id, name: 'x', rights: ['RIGHT_APPLICATION_INFO'] } }), owner(app2)))).toMatchObject({
        name: 'api_key_not_found',
        code: 5,
        attributes: { entity_id: 'app2', api_key_id: id },
      });
      expect(await failure(service.update(app1, updateReq({ api_key: { name: 'x' }, field_mask: 'name' }), owner()))).toMatchObject({
        name: 'api_key_not_found',
        attributes: { api_key_id: '' },
      });
      expect(store.keys.get(id)?.name).toBe('old');
    });

    it('retries a lost optimistic round', async () => {
      const replace = store.replace.bind(store);
      let losses = 3;
      jest.spyOn(store, 'replace').mockImplementation(async (k, expected) => (losses-- > 0 ? false : replace(k, expected)));
      await expect(service.update(app1, updateReq({ api_key: { id, name: 'eventually' }, field_mask: 'name' }), owner())).resolves.toMatchObject({
        name: 'eventually',
      });
      expect(store.replace).toHaveBeenCalledTimes(4);
    });

    it('gives up with Aborted when every round is lost', async () => {
      jest.spyOn(store, 'replace').mockResolvedValue(false);
      expect(await failure(service.update(app1, updateReq({ api_key: { id, name: 'never' }, field_mask: 'name' }), owner()))).toMatchObject({
        name: 'api_key_concurrent_update',
        code: 10,
      });
    });
  });

  describe('delete', () => {
    it('deletes the key ({}), invalidates it; a second delete or another entity’s delete is not found', async () => {
      const k = await service.create(app1, createReq({ rights: ['RIGHT_APPLICATION_INFO'] }), owner());
      const id = k.id as string;
      expect(await failure(service.delete(app2, id, owner(app2)))).toMatchObject({ name: 'api_key_not_found', code: 5 });
      expect(store.keys.has(id)).toBe(true);
      expect(await service.delete(app1, id, owner())).toEqual({});
      expect(store.keys.has(id)).toBe(false);
      expect(await failure(service.delete(app1, id, owner()))).toMatchObject({ name: 'api_key_not_found' });
      await flush();
      expect(invalidations).toEqual([{ api_key_id: id }]);
    });

    it('deletes only a key whose every right the caller holds (403 insufficient, missing listed), keeping it otherwise', async () => {
      const strong = await service.create(app1, createReq({ rights: ['RIGHT_APPLICATION_ALL'] }), owner());
      const weak = await service.create(app1, createReq({ rights: ['RIGHT_APPLICATION_INFO'] }), owner());
      const keyManager = ctx(caller(app1, sortRights(impliedRights(['RIGHT_APPLICATION_SETTINGS_API_KEYS', 'RIGHT_APPLICATION_INFO']))));
      expect(await failure(service.delete(app1, strong.id as string, keyManager))).toMatchObject({
        namespace: 'pkg/auth/rights',
        name: 'insufficient_application_rights',
        code: 7,
        attributes: { uid: 'app1', missing: ['RIGHT_APPLICATION_ALL'] },
      });
      expect(store.keys.has(strong.id as string)).toBe(true);
      // Updating the key away to no rights is deleting it: the same rule.
      expect(await failure(service.update(app1, updateReq({ api_key: { id: strong.id, rights: [] }, field_mask: 'rights' }), keyManager))).toMatchObject({
        name: 'insufficient_application_rights',
      });
      expect(store.keys.has(strong.id as string)).toBe(true);
      expect(await service.delete(app1, weak.id as string, keyManager)).toEqual({});
      expect(await service.delete(app1, strong.id as string, owner())).toEqual({});
    });

    it('decides on the key as it is when deleted: rights raised meanwhile are checked again', async () => {
      const k = await service.create(app1, createReq({ rights: ['RIGHT_APPLICATION_INFO'] }), owner());
      const id = k.id as string;
      const keyManager = ctx(caller(app1, sortRights(impliedRights(['RIGHT_APPLICATION_SETTINGS_API_KEYS', 'RIGHT_APPLICATION_INFO']))));
      const del = store.delete.bind(store);
      jest.spyOn(store, 'delete').mockImplementationOnce(async (o, keyId, expected) => {
        // Another request raises the key's rights between the read and the delete.
        const current = store.keys.get(keyId);
        if (current) store.keys.set(keyId, { ...current, rights: ['RIGHT_APPLICATION_ALL'], updated_at: `${current.updated_at}1` });
        return del(o, keyId, expected);
      });
      expect(await failure(service.delete(app1, id, keyManager))).toMatchObject({ attributes: { missing: ['RIGHT_APPLICATION_ALL'] } });
      expect(store.keys.get(id)?.rights).toEqual(['RIGHT_APPLICATION_ALL']);
    });

    it('deleteKeysOf (purge) deletes every key of the entity and invalidates each', async () => {
      const a = await service.create(app1, createReq({ rights: ['RIGHT_APPLICATION_INFO'] }), owner());
      const b = await service.create(app1, createReq({ rights: ['RIGHT_APPLICATION_INFO'] }), owner());
      const other = await service.create(app2, { rights: ['RIGHT_APPLICATION_INFO'] }, owner(app2));
      directory.remove(app1);
      await service.deleteKeysOf(app1);
      expect([...store.keys.keys()]).toEqual([other.id]);
      await flush();
      expect(invalidations.map((m) => m.api_key_id).sort()).toEqual([a.id, b.id].sort());
    });
  });

  describe('events (<entity>.api-key.*, published once the operation succeeded, never with the secret)', () => {
    const gtw1: KeyOwner = { kind: 'gateway', id: 'gtw1' };
    const org1: KeyOwner = { kind: 'organization', id: 'org1' };
    const owners = [
      {
        owner: app1,
        ids: { application_ids: { application_id: 'app1' } },
        rights: ['RIGHT_APPLICATION_INFO'],
        visibility: ['RIGHT_APPLICATION_SETTINGS_API_KEYS'],
      },
      { owner: gtw1, ids: { gateway_ids: { gateway_id: 'gtw1' } }, rights: ['RIGHT_GATEWAY_INFO'], visibility: ['RIGHT_GATEWAY_SETTINGS_API_KEYS'] },
      { owner: alice, ids: { user_ids: { user_id: 'alice' } }, rights: ['RIGHT_USER_INFO'], visibility: ['RIGHT_USER_SETTINGS_API_KEYS'] },
      {
        owner: org1,
        ids: { organization_ids: { organization_id: 'org1' } },
        rights: ['RIGHT_ORGANIZATION_INFO'],
        visibility: ['RIGHT_ORGANIZATION_SETTINGS_API_KEYS'],
      },
    ] as const;
    const API_KEY = 'type.googleapis.com/ttn.lorawan.v3.APIKey';
    const as = (who: KeyOwner, rpc: `${string}.${string}`) => rpcContext(rpc, caller(who, [...rightsOfKind(who.kind)]));

    beforeEach(() => directory.addEntity(gtw1).addEntity(org1));

    it.each(owners)(
      '$owner.kind keys: create, update and delete each publish once, about the owning entity, data = the key without its secret',
      async ({ owner: who, ids, rights, visibility }) => {
        const access = `${who.kind[0].toUpperCase()}${who.kind.slice(1)}Access`;
        const create = as(who, `${access}.CreateAPIKey`);
        const expires = future();
        const key = await service.create(who, { name: 'k', rights: [...rights], expires_at: expires }, create);
        const { key: token, ...withoutSecret } = key;
        expect(token).toBeDefined();
        expect(await events.take()).toEqual([
          {
            name: `${who.kind}.api-key.create`,
            identifiers: [ids],
            data: { '@type': API_KEY, ...withoutSecret },
            correlation_ids: create.correlation_ids,
            visibility: { rights: visibility },
          },
        ]);
        expect(Object.keys(withoutSecret).sort()).toEqual(['created_at', 'expires_at', 'id', 'name', 'rights', 'updated_at']);

        const update = as(who, `${access}.UpdateAPIKey`);
        const updated = await service.update(who, { api_key: { id: key.id, name: 'renamed' }, field_mask: { paths: ['name'] } }, update);
        expect(await events.take()).toEqual([
          {
            name: `${who.kind}.api-key.update`,
            identifiers: [ids],
            data: { '@type': API_KEY, ...updated },
            correlation_ids: update.correlation_ids,
            visibility: { rights: visibility },
          },
        ]);
        expect(updated).toMatchObject({ id: key.id, name: 'renamed' });

        const del = as(who, `${access}.DeleteAPIKey`);
        await service.delete(who, key.id as string, del);
        expect(await events.take()).toEqual([
          { name: `${who.kind}.api-key.delete`, identifiers: [ids], correlation_ids: del.correlation_ids, visibility: { rights: visibility } },
        ]);

        const secret = (token ?? '').split('.')[2];
        expect(secret).toHaveLength(52);
        for (const event of events.all) expect(JSON.stringify(event)).not.toMatch(new RegExp(`${secret}|"key"|secret_hash|PBKDF2`));
      },
    );

    it('nothing is published for a failed create, update or delete', async () => {
      const key = await service.create(app1, createReq({ rights: ['RIGHT_APPLICATION_INFO'] }), owner());
      await events.take();
      const id = key.id as string;
      const limited = ctx(caller(app1, sortRights(impliedRights(['RIGHT_APPLICATION_SETTINGS_API_KEYS']))));
      await failure(service.create(app1, createReq({ rights: ['RIGHT_APPLICATION_INFO', 'RIGHT_APPLICATION_INFO'] }), owner()));
      await failure(service.create(app1, createReq({ rights: ['RIGHT_APPLICATION_DEVICES_READ'] }), limited));
      await failure(
        service.create({ kind: 'application', id: 'ghost' }, createReq({ rights: ['RIGHT_APPLICATION_INFO'] }), owner({ kind: 'application', id: 'ghost' })),
      );
      await failure(service.update(app1, updateReq({ api_key: { id, rights: ['RIGHT_APPLICATION_DEVICES_READ'] }, field_mask: 'rights' }), limited));
      await failure(service.update(app1, updateReq({ api_key: { id: 'NOSUCHKEY', name: 'x' }, field_mask: 'name' }), owner()));
      await failure(service.update(app2, updateReq({ api_key: { id, name: 'x' }, field_mask: 'name' }), owner(app2)));
      jest.spyOn(store, 'replace').mockResolvedValue(false);
      await failure(service.update(app1, updateReq({ api_key: { id, name: 'x' }, field_mask: 'name' }), owner()));
      await failure(service.delete(app2, id, owner(app2)));
      await failure(service.delete(app1, 'NOSUCHKEY', owner()));
      expect(await events.take()).toEqual([]);
    });
  });
});
