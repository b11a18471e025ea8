import { Module, type Provider } from '@nestjs/common';
import { ALL_ADMIN_RIGHTS, ALL_RIGHTS, type CallerIdentity, type EntityRef, type Right, type RpcContext, type RpcName } from '@lorawan/api';
import { loadConfig } from '@lorawan/config';
import type { ErrorDetails } from '@lorawan/errors';
import { recordEvents, rpcContext, startTestComponent, type TestComponent } from '@lorawan/testing';
import { InProcessBroker } from '@lorawan/transport';
import { DataSource } from 'typeorm';
import { AccessInvalidator } from '../access-invalidator';
import { RightsResolver } from '../access/rights-resolver';
import { API_KEY_CLEANUP } from '../identity.contracts';
import { openIdentityDatabase } from './identity-fixtures.conformance';
import { IDENTITY_CONTROLLERS, IDENTITY_PROVIDERS } from './index';

/**
 * The entity side as the gateway reaches it: the real providers and handlers in a component on an
 * in-process transport, on an in-memory SQLite database, the RPC server's decoding and rights
 * checks in front. Callers are what Authorize would have resolved.
 */
describe('IS entity RPCs over the transport', () => {
  const broker = new InProcessBroker();
  let dataSource: DataSource;
  const purgedKeys: EntityRef[] = [];
  const events = recordEvents(broker);
  let component: TestComponent;

  beforeAll(async () => {
    jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
    dataSource = await openIdentityDatabase();
    @Module({
      controllers: IDENTITY_CONTROLLERS,
      providers: [
        ...(IDENTITY_PROVIDERS as Provider[]),
        AccessInvalidator,
        RightsResolver,
        { provide: DataSource, useValue: dataSource },
        { provide: API_KEY_CLEANUP, useValue: { deleteKeysOf: async (entity: EntityRef) => void purgedKeys.push(entity) } },
      ],
    })
    class EntitiesTestModule {}
    component = await startTestComponent(EntitiesTestModule, { component: 'is', config: loadConfig({ ADMIN_USER_ID: 'root', LOG_LEVEL: 'error' }), broker });
  });
  afterAll(async () => {
    await component.close();
    await dataSource.destroy();
    jest.restoreAllMocks();
  });

  /** A caller as Authorize resolves it: a user's key, its rights on the RPC's entity. */
  function user(
    userId: string,
    options: { admin?: boolean; entity?: EntityRef; rights?: readonly Right[]; keyRights?: readonly Right[] } = {},
  ): CallerIdentity {
    return {
      kind: 'api-key',
      id: `KEY-${userId}`,
      owner: { kind: 'user', id: userId },
      is_admin: options.admin ?? false,
      key_rights: [...(options.keyRights ?? ALL_RIGHTS)],
      universal: false,
      ...(options.entity ? { entity: options.entity } : {}),
      rights: [...(options.rights ?? [])],
    };
  }
  const root = (entity?: EntityRef) => user('root', { admin: true, entity, rights: ALL_ADMIN_RIGHTS });

  async function call(
    name: RpcName,
    body: object,
    caller?: CallerIdentity,
    ctx: RpcContext = { request_id: 'r', correlation_ids: [], caller },
  ): Promise<{ ok?: Record<string, unknown>; total?: number; error?: ErrorDetails }> {
    const reply = await component.call(name, body, ctx);
    return 'error' in reply ? { error: reply.error } : { ok: reply.ok as Record<string, unknown>, total: reply.total };
  }

  it('the IS created its configured admin user on start', async () => {
    const res = await call('UserRegistry.Get', { user_ids: { user_id: 'root' }, field_mask: 'admin,state' }, root({ kind: 'user', id: 'root' }));
    expect(res.ok).toMatchObject({ ids: { user_id: 'root' }, admin: true, state: 'STATE_APPROVED' });
  });

  it('only admins create users; the password never comes back', async () => {
    const body = { user: { ids: { user_id: 'alice' }, password: 'Secret-Passw0rd', state: 'STATE_APPROVED' } };
    expect((await call('UserRegistry.Create', body, user('bob'))).error).toMatchObject({ namespace: 'pkg/auth/rights', name: 'no_admin', code: 7 });
    const res = await call('UserRegistry.Create', body, root());
    expect(res.ok).toMatchObject({ ids: { user_id: 'alice' }, state: 'STATE_APPROVED' });
    expect(JSON.stringify(res.ok)).not.toMatch(/password"|PBKDF2|Secret/);
    expect((await call('UserRegistry.Create', body, root())).error).toMatchObject({
      namespace: 'pkg/util/store',
      name: 'id_taken',
      code: 6,
      cause: { name: 'already_exists' },
    });
  });

  it('a user creates and lists its applications; the total is X-Total-Count', async () => {
    const alice = (entity?: EntityRef, rights: readonly Right[] = ALL_RIGHTS) => user('alice', { entity, rights });
    const create = (id: string) =>
      call(
        'ApplicationRegistry.Create',
        { application: { ids: { application_id: id }, name: id.toUpperCase() }, collaborator: { user_ids: { user_id: 'alice' } } },
        alice({ kind: 'user', id: 'alice' }),
      );
    for (const id of ['app-b', 'app-a', 'app-c'])
      expect((await create(id)).ok).toMatchObject({ ids: { application_id: id }, administrative_contact: { user_ids: { user_id: 'alice' } } });
    expect((await create('app-a')).error).toMatchObject({ name: 'id_taken' });
    expect((await create('Bad_ID')).error).toMatchObject({ namespace: 'pkg/errors', name: 'validation', code: 3 });
    const list = await call('ApplicationRegistry.List', { field_mask: 'name', limit: 2, order: 'application_id' }, alice());
    expect(list).toEqual({
      ok: {
        applications: [
          expect.objectContaining({ ids: { application_id: 'app-a' }, name: 'APP-A' }),
          expect.objectContaining({ ids: { application_id: 'app-b' }, name: 'APP-B' }),
        ],
      },
      total: 3,
    });
    const get = await call(
      'ApplicationRegistry.Get',
      { application_ids: { application_id: 'app-a' } },
      alice({ kind: 'application', id: 'app-a' }, ['RIGHT_APPLICATION_INFO']),
    );
    expect(Object.keys(get.ok ?? {}).sort()).toEqual(['created_at', 'ids', 'updated_at']);
    const other = await call(
      'ApplicationRegistry.Get',
      { application_ids: { application_id: 'app-a' } },
      user('bob', { entity: { kind: 'application', id: 'app-a' } }),
    );
    expect(other.error).toMatchObject({ name: 'no_application_rights', code: 7 });
  });

  it('admins purge, after the API keys; gateways are found by EUI internally', async () => {
    expect(
      (
        await call(
          'ApplicationRegistry.Purge',
          { application_id: 'app-c' },
          user('alice', { entity: { kind: 'application', id: 'app-c' }, rights: ALL_RIGHTS }),
        )
      ).error,
    ).toMatchObject({
      name: 'no_admin',
    });
    expect(await call('ApplicationRegistry.Purge', { application_id: 'app-c' }, root({ kind: 'application', id: 'app-c' }))).toEqual({
      ok: {},
      total: undefined,
    });
    expect(purgedKeys).toEqual([{ kind: 'application', id: 'app-c' }]);
    const created = await call(
      'GatewayRegistry.Create',
      {
        gateway: { ids: { gateway_id: 'gtw-1', eui: '00800000a0000001' }, frequency_plan_id: 'EU_863_870_TTN' },
        collaborator: { user_ids: { user_id: 'alice' } },
      },
      root({ kind: 'user', id: 'alice' }),
    );
    expect(created.ok).toMatchObject({ ids: { gateway_id: 'gtw-1', eui: '00800000A0000001' }, frequency_plan_ids: ['EU_863_870_TTN'] });
    expect((await call('GatewayRegistry.GetIdentifiersForEUI', { eui: '00800000A0000001' }, root())).ok).toEqual({
      gateway_id: 'gtw-1',
      eui: '00800000A0000001',
    });
  });

  it('handlers hand the request’s context to the registries: each event carries the call’s correlation ID; a refused call publishes none', async () => {
    await events.take();
    const calls: Array<[RpcName, object, EntityRef]> = [
      [
        'ApplicationRegistry.Create',
        { application: { ids: { application_id: 'app-ev' } }, collaborator: { user_ids: { user_id: 'alice' } } },
        { kind: 'user', id: 'alice' },
      ],
      [
        'ApplicationRegistry.Update',
        { application: { ids: { application_id: 'app-ev' }, name: 'N' }, field_mask: { paths: ['name'] } },
        { kind: 'application', id: 'app-ev' },
      ],
      ['ApplicationRegistry.Delete', { application_id: 'app-ev' }, { kind: 'application', id: 'app-ev' }],
      ['ApplicationRegistry.Restore', { application_id: 'app-ev' }, { kind: 'application', id: 'app-ev' }],
      ['ApplicationRegistry.Purge', { application_id: 'app-ev' }, { kind: 'application', id: 'app-ev' }],
      [
        'GatewayRegistry.Create',
        { gateway: { ids: { gateway_id: 'gtw-ev' } }, collaborator: { user_ids: { user_id: 'alice' } } },
        { kind: 'user', id: 'alice' },
      ],
      ['GatewayRegistry.Update', { gateway: { ids: { gateway_id: 'gtw-ev' }, name: 'N' }, field_mask: { paths: ['name'] } }, { kind: 'gateway', id: 'gtw-ev' }],
      ['GatewayRegistry.Delete', { gateway_id: 'gtw-ev' }, { kind: 'gateway', id: 'gtw-ev' }],
      ['GatewayRegistry.Restore', { gateway_id: 'gtw-ev' }, { kind: 'gateway', id: 'gtw-ev' }],
      ['GatewayRegistry.Purge', { gateway_id: 'gtw-ev' }, { kind: 'gateway', id: 'gtw-ev' }],
      ['UserRegistry.Create', { user: { ids: { user_id: 'user-ev' } } }, { kind: 'user', id: 'user-ev' }],
      ['UserRegistry.Update', { user: { ids: { user_id: 'user-ev' }, name: 'N' }, field_mask: { paths: ['name'] } }, { kind: 'user', id: 'user-ev' }],
      ['UserRegistry.Delete', { user_id: 'user-ev' }, { kind: 'user', id: 'user-ev' }],
    ];
    const expected: Array<[string, string[]]> = [];
    for (const [name, body, entity] of calls) {
      const ctx = rpcContext(name, root(entity));
      expect((await call(name, body, undefined, ctx)).error).toBeUndefined();
      const [registry, method] = name.split('.');
      expected.push([
        `${{ ApplicationRegistry: 'application', GatewayRegistry: 'gateway', UserRegistry: 'user' }[registry]}.${method.toLowerCase()}`,
        ctx.correlation_ids,
      ]);
    }
    expect((await events.take()).map((e) => [e.name, e.correlation_ids])).toEqual(expected);
    // Refused by the RPC server (rights) or by the registry: no event.
    const refused = await call(
      'ApplicationRegistry.Create',
      { application: { ids: { application_id: 'app-ev2' } }, collaborator: { user_ids: { user_id: 'alice' } } },
      user('bob', { entity: { kind: 'user', id: 'alice' } }),
    );
    expect(refused.error).toMatchObject({ code: 7 });
    expect((await call('UserRegistry.Delete', { user_id: 'user-ev' }, root({ kind: 'user', id: 'user-ev' }))).error).toMatchObject({ name: 'user_not_found' });
    expect(await events.take()).toEqual([]);
  });
});
