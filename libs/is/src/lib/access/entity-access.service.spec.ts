import { Logger } from '@nestjs/common';
import { ALL_ADMIN_RIGHTS, ALL_RIGHTS, type CallerIdentity, impliedRights, rightsOfKind, type RpcContext, sortRights } from '@lorawan/api';
import type { StackConfig } from '@lorawan/config';
import { EventPublisher } from '@lorawan/component';
import type { StackError } from '@lorawan/errors';
import { InProcessBroker } from '@lorawan/transport';
import { AccessInvalidator } from '../access-invalidator';
import { caller, InMemoryApiKeyStore, InMemoryIdentityDirectory } from './access-fixtures.conformance';
import { ApiKeyService } from './api-key.service';
import { CredentialVerifier } from './credential-verifier';
import { EntityAccessService } from './entity-access.service';
import { RightsResolver } from './rights-resolver';

const ADMIN_KEY = 'the-admin-key-of-this-stack';
const ctx = (who?: CallerIdentity): RpcContext => ({ request_id: 'r', correlation_ids: [], caller: who });

async function failure(p: Promise<unknown>) {
  try {
    await p;
  } catch (err) {
    return (err as StackError).toDetails();
  }
  throw new Error('expected a failure');
}

beforeAll(() => Logger.overrideLogger(false));

describe('EntityAccessService', () => {
  const store = new InMemoryApiKeyStore();
  const directory = new InMemoryIdentityDirectory()
    .addUser('admin', { admin: true })
    .addUser('alice')
    .addEntity({ kind: 'application', id: 'app1' }, { alice: ['RIGHT_APPLICATION_ALL'] })
    .addEntity({ kind: 'application', id: 'app2' });
  const resolver = new RightsResolver(directory);
  const access = new EntityAccessService(
    new CredentialVerifier({ adminApiKey: ADMIN_KEY, adminUserId: 'admin' } as StackConfig, store, directory),
    resolver,
    store,
  );
  const transport = new InProcessBroker();
  const keys = new ApiKeyService(store, directory, new AccessInvalidator(transport), new EventPublisher(transport));
  const self = (userId: string) =>
    ctx(
      caller({ kind: 'user', id: userId }, [...rightsOfKind('user')], {
        owner: { kind: 'user', id: userId },
        key_rights: sortRights(impliedRights(['RIGHT_ALL'])),
      }),
    );

  describe('authorize', () => {
    it('resolves an application key to a caller with its rights on the requested entity', async () => {
      const key = await keys.create(
        { kind: 'application', id: 'app1' },
        { rights: ['RIGHT_APPLICATION_LINK'] },
        ctx(caller({ kind: 'application', id: 'app1' }, [...rightsOfKind('application')])),
      );
      const authorization = `Bearer ${key.key}`;
      expect(await access.authorize({ authorization, entity: { kind: 'application', id: 'app1' } })).toEqual({
        kind: 'api-key',
        id: key.id,
        owner: { kind: 'application', id: 'app1' },
        is_admin: false,
        key_rights: sortRights(impliedRights(['RIGHT_APPLICATION_LINK'])),
        universal: false,
        entity: { kind: 'application', id: 'app1' },
        rights: sortRights(impliedRights(['RIGHT_APPLICATION_LINK'])),
      });
      expect(await access.authorize({ authorization, entity: { kind: 'application', id: 'app2' } })).toMatchObject({
        entity: { kind: 'application', id: 'app2' },
        rights: [],
      });
      const bare = await access.authorize({ authorization });
      expect(bare.rights).toEqual([]);
      expect(bare).not.toHaveProperty('entity');
    });

    it('resolves the admin key: admin rights on entities it does not collaborate on, none of the device keys', async () => {
      const admin = await access.authorize({ authorization: `Bearer ${ADMIN_KEY}`, entity: { kind: 'application', id: 'app2' } });
      expect(admin).toMatchObject({ kind: 'admin-key', id: 'admin-api-key', owner: { kind: 'user', id: 'admin' }, is_admin: true });
      expect(admin.rights).toContain('RIGHT_APPLICATION_DEVICES_READ');
      expect(admin.rights).not.toContain('RIGHT_APPLICATION_DEVICES_READ_KEYS');
    });

    it('fails as the credential check does (malformed: 400)', async () => {
      expect(await failure(access.authorize({ authorization: 'Bearer nope' }))).toMatchObject({ namespace: 'pkg/auth', name: 'token', code: 3 });
    });
  });

  describe('auth_info', () => {
    it('describes an application key: its entity and the key with its rights implied, never the secret', async () => {
      const appCaller = ctx(caller({ kind: 'application', id: 'app1' }, [...rightsOfKind('application')]));
      const key = await keys.create({ kind: 'application', id: 'app1' }, { name: 'link', rights: ['RIGHT_APPLICATION_LINK'] }, appCaller);
      const who = await access.authorize({ authorization: `Bearer ${key.key}` });
      const info = await access.authInfo(ctx(who));
      expect(info).toEqual({
        api_key: {
          entity_ids: { application_ids: { application_id: 'app1' } },
          api_key: {
            id: key.id,
            name: 'link',
            rights: sortRights(impliedRights(['RIGHT_APPLICATION_LINK'])),
            created_at: key.created_at,
            updated_at: key.updated_at,
          },
        },
      });
      expect(JSON.stringify(info)).not.toContain((key.key as string).split('.')[2]);
    });

    it('describes an admin’s user key: universal rights = admin rights ∩ key rights, is_admin', async () => {
      const key = await keys.create(
        { kind: 'user', id: 'admin' },
        { rights: ['RIGHT_USER_INFO', 'RIGHT_APPLICATION_INFO', 'RIGHT_APPLICATION_DEVICES_READ_KEYS'] },
        self('admin'),
      );
      const who = await access.authorize({ authorization: `Bearer ${key.key}` });
      expect(await access.authInfo(ctx(who))).toMatchObject({
        api_key: { entity_ids: { user_ids: { user_id: 'admin' } }, api_key: { id: key.id } },
        universal_rights: { rights: ['RIGHT_APPLICATION_INFO', 'RIGHT_USER_INFO'] },
        is_admin: true,
      });
    });

    it('describes a non-admin user key without universal rights or is_admin', async () => {
      const key = await keys.create({ kind: 'user', id: 'alice' }, { rights: ['RIGHT_ALL'] }, self('alice'));
      const info = await access.authInfo(ctx(await access.authorize({ authorization: `Bearer ${key.key}` })));
      expect(info).toEqual({
        api_key: { entity_ids: { user_ids: { user_id: 'alice' } }, api_key: expect.objectContaining({ id: key.id, rights: sortRights(ALL_RIGHTS) }) },
      });
    });

    it('describes the admin key as admin-api-key of the admin user, with every right', async () => {
      const info = await access.authInfo(ctx(await access.authorize({ authorization: `Bearer ${ADMIN_KEY}` })));
      expect(info).toEqual({
        api_key: { entity_ids: { user_ids: { user_id: 'admin' } }, api_key: { id: 'admin-api-key', rights: sortRights(ALL_RIGHTS) } },
        universal_rights: { rights: sortRights(ALL_ADMIN_RIGHTS) },
        is_admin: true,
      });
      expect(JSON.stringify(info)).not.toContain(ADMIN_KEY);
    });

    it('a key deleted since it was resolved: 401 api_key_not_found; no caller: 401 unauthenticated', async () => {
      const gone = caller({ kind: 'application', id: 'app1' }, [], { id: 'A'.repeat(39), owner: { kind: 'application', id: 'app1' } });
      expect(await failure(access.authInfo(ctx(gone)))).toMatchObject({ namespace: 'pkg/identityserver', name: 'api_key_not_found', code: 16 });
      expect(await failure(access.authInfo(ctx()))).toMatchObject({ namespace: 'pkg/identityserver', name: 'unauthenticated', code: 16 });
    });
  });

  describe('list rights', () => {
    it('answers the caller’s rights on the entity, sorted; {} for none', () => {
      const who = caller({ kind: 'application', id: 'app1' }, ['RIGHT_APPLICATION_TRAFFIC_READ', 'RIGHT_APPLICATION_INFO']);
      expect(access.listRights({ kind: 'application', id: 'app1' }, ctx(who))).toEqual({
        rights: ['RIGHT_APPLICATION_INFO', 'RIGHT_APPLICATION_TRAFFIC_READ'],
      });
      expect(access.listRights({ kind: 'application', id: 'app2' }, ctx(who))).toEqual({});
      expect(access.listRights({ kind: 'gateway', id: 'g' }, ctx(caller({ kind: 'gateway', id: 'g' }, [], { universal: true })))).toEqual({
        rights: sortRights(rightsOfKind('gateway')),
      });
    });
  });
});
