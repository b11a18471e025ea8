import { Module, type Provider } from '@nestjs/common';
import { ALL_RIGHTS, type CallerIdentity, type EntityRef, impliedRights, type Right, type RpcName, rightsOfKind, sortRights } from '@lorawan/api';
import { loadConfig } from '@lorawan/config';
import type { ErrorDetails } from '@lorawan/errors';
import { recordEvents, rpcContext, startTestComponent, type TestComponent } from '@lorawan/testing';
import { InProcessBroker } from '@lorawan/transport';
import { DataSource } from 'typeorm';
import { AccessInvalidator } from '../../access-invalidator';
import { RightsResolver } from '../../access/rights-resolver';
import { API_KEY_CLEANUP } from '../../identity.contracts';
import { openIdentityDatabase } from '../identity-fixtures.conformance';
import { IDENTITY_CONTROLLERS, IDENTITY_PROVIDERS } from '../index';

/**
 * The collaborator RPCs as the gateway reaches them: the real handlers in a component on an
 * in-process transport, on an in-memory SQLite database, with the RPC server's decoding and rights
 * checks in front. Callers are what Authorize would have resolved.
 */
describe('IS collaborator RPCs over the transport', () => {
  const broker = new InProcessBroker();
  let dataSource: DataSource;
  const events = recordEvents(broker);
  let component: TestComponent;
  const app: EntityRef = { kind: 'application', id: 'co-app' };
  const gtw: EntityRef = { kind: 'gateway', id: 'co-gtw' };

  /** Alice's key, with its rights (implied, of the entity's kind) on the entity. */
  function alice(entity: EntityRef, rights: readonly Right[] = rightsOfKind(entity.kind)): CallerIdentity {
    const ofKind = new Set(rightsOfKind(entity.kind));
    return {
      kind: 'api-key',
      id: 'KEY-alice',
      owner: { kind: 'user', id: 'alice' },
      is_admin: false,
      key_rights: [...ALL_RIGHTS],
      universal: false,
      entity,
      rights: sortRights([...impliedRights(rights)].filter((r) => ofKind.has(r))),
    };
  }
  const admin: CallerIdentity = {
    kind: 'admin-key',
    id: 'admin',
    owner: { kind: 'user', id: 'admin' },
    is_admin: true,
    key_rights: [...ALL_RIGHTS],
    universal: true,
    rights: [],
  };

  async function call(name: RpcName, body: object, caller?: CallerIdentity): Promise<{ ok?: Record<string, unknown>; total?: number; error?: ErrorDetails }> {
    const reply = await component.call(name, body, rpcContext(name, caller));
    return 'error' in reply ? { error: reply.error } : { ok: reply.ok as Record<string, unknown>, total: reply.total };
  }
  const must = async (name: RpcName, body: object, caller?: CallerIdentity) => {
    const res = await call(name, body, caller);
    if (res.error) throw new Error(`${name}: ${JSON.stringify(res.error)}`);
    return res;
  };
  const appIds = { application_ids: { application_id: app.id } };
  const member = (user_id: string, rights: string[]) => ({ collaborator: { ids: { user_ids: { user_id } }, rights } });

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
        { provide: API_KEY_CLEANUP, useValue: { deleteKeysOf: async () => undefined } },
      ],
    })
    class EntitiesTestModule {}
    component = await startTestComponent(EntitiesTestModule, { component: 'is', config: loadConfig({ LOG_LEVEL: 'error' }), broker });
    for (const id of ['alice', 'bob']) await must('UserRegistry.Create', { user: { ids: { user_id: id } } }, admin);
    const self = (kind: 'user', id: string): CallerIdentity => ({ ...alice({ kind, id }), entity: { kind, id } });
    await must(
      'ApplicationRegistry.Create',
      { application: { ids: { application_id: app.id } }, collaborator: { user_ids: { user_id: 'alice' } } },
      self('user', 'alice'),
    );
    await must(
      'GatewayRegistry.Create',
      { gateway: { ids: { gateway_id: gtw.id }, frequency_plan_id: 'EU_863_870' }, collaborator: { user_ids: { user_id: 'alice' } } },
      self('user', 'alice'),
    );
    await events.take();
  });
  afterAll(async () => {
    await component.close();
    await dataSource.destroy();
    jest.restoreAllMocks();
  });

  it('sets, gets, lists (with the total) and deletes a collaborator; each change publishes its event with the call’s correlation ID', async () => {
    expect((await must('ApplicationAccess.SetCollaborator', { ...appIds, ...member('bob', ['RIGHT_APPLICATION_DEVICES_READ']) }, alice(app))).ok).toEqual({});
    expect((await must('ApplicationAccess.GetCollaborator', { ...appIds, collaborator: { user_ids: { user_id: 'bob' } } }, alice(app))).ok).toEqual({
      ids: { user_ids: { user_id: 'bob' } },
      rights: ['RIGHT_APPLICATION_DEVICES_READ'],
    });
    const list = await must('ApplicationAccess.ListCollaborators', { ...appIds, limit: 1, page: 2 }, alice(app));
    expect(list).toEqual({ ok: { collaborators: [{ ids: { user_ids: { user_id: 'bob' } }, rights: ['RIGHT_APPLICATION_DEVICES_READ'] }] }, total: 2 });
    const ctx = rpcContext('ApplicationAccess.DeleteCollaborator', alice(app));
    const reply = await component.call('ApplicationAccess.DeleteCollaborator', { ...appIds, collaborator_ids: { user_ids: { user_id: 'bob' } } }, ctx);
    expect(reply).toMatchObject({ ok: {} });
    const published = await events.take();
    expect(published.map((e) => e.name)).toEqual(['application.collaborator.update', 'application.collaborator.delete']);
    expect(published[1].correlation_ids).toEqual(ctx.correlation_ids);
  });

  it('the RPC server checks the rights first: managing collaborators needs SETTINGS_COLLABORATORS, listing some right', async () => {
    const limited = alice(app, ['RIGHT_APPLICATION_INFO']);
    for (const [name, body] of [
      ['ApplicationAccess.SetCollaborator', { ...appIds, ...member('bob', ['RIGHT_APPLICATION_INFO']) }],
      ['ApplicationAccess.GetCollaborator', { ...appIds, collaborator: { user_ids: { user_id: 'alice' } } }],
      ['ApplicationAccess.DeleteCollaborator', { ...appIds, collaborator_ids: { user_ids: { user_id: 'alice' } } }],
    ] as const) {
      expect((await call(name, body, limited)).error).toMatchObject({
        namespace: 'pkg/auth/rights',
        name: 'insufficient_application_rights',
        attributes: { missing: ['RIGHT_APPLICATION_SETTINGS_COLLABORATORS'] },
      });
    }
    expect((await must('ApplicationAccess.ListCollaborators', appIds, limited)).ok).toEqual({ collaborators: [{ ids: { user_ids: { user_id: 'alice' } } }] });
    expect((await call('ApplicationAccess.ListCollaborators', appIds, alice(gtw))).error).toMatchObject({ name: 'no_application_rights' });
    expect(await events.take()).toEqual([]);
  });

  it('decodes and validates the request: unknown right names, a missing collaborator, a bad order are 400', async () => {
    for (const body of [
      { ...appIds, ...member('bob', ['RIGHT_NOPE']) },
      { ...appIds, collaborator: { rights: ['RIGHT_APPLICATION_INFO'] } },
      { ...appIds, collaborator: { ids: { user_ids: { user_id: 'Not An ID' } }, rights: ['RIGHT_APPLICATION_INFO'] } },
    ]) {
      expect((await call('ApplicationAccess.SetCollaborator', body, alice(app))).error).toMatchObject({ name: 'validation', code: 3 });
    }
    expect((await call('ApplicationAccess.ListCollaborators', { ...appIds, order: 'name' }, alice(app))).error).toMatchObject({ name: 'validation' });
    expect((await call('ApplicationAccess.GetCollaborator', appIds, alice(app))).error).toMatchObject({ name: 'validation' });
  });

  it('serves GatewayAccess alike', async () => {
    const gtwIds = { gateway_ids: { gateway_id: gtw.id } };
    await must('GatewayAccess.SetCollaborator', { ...gtwIds, ...member('bob', ['RIGHT_GATEWAY_INFO']) }, alice(gtw));
    expect(await must('GatewayAccess.ListCollaborators', gtwIds, alice(gtw))).toMatchObject({ total: 2 });
    expect((await call('GatewayAccess.SetCollaborator', { ...gtwIds, ...member('alice', []) }, alice(gtw))).error).toMatchObject({
      name: 'gateway_needs_collaborator',
      code: 9,
    });
    await must('GatewayAccess.DeleteCollaborator', { ...gtwIds, collaborator_ids: { user_ids: { user_id: 'bob' } } }, alice(gtw));
    expect((await events.take()).map((e) => e.name)).toEqual(['gateway.collaborator.update', 'gateway.collaborator.delete']);
  });
});
