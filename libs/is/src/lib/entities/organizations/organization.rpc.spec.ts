import { Module, type Provider } from '@nestjs/common';
import { ALL_ADMIN_RIGHTS, ALL_RIGHTS, type CallerIdentity, type EntityRef, type Right, type RpcName } from '@lorawan/api';
import { loadConfig } from '@lorawan/config';
import type { ErrorDetails } from '@lorawan/errors';
import { startTestComponent, type TestComponent } from '@lorawan/testing';
import { InProcessBroker } from '@lorawan/transport';
import { DataSource } from 'typeorm';
import { ACCESS_CONTROLLERS } from '../../access';
import { AccessInvalidator } from '../../access-invalidator';
import { RightsResolver } from '../../access/rights-resolver';
import { API_KEY_CLEANUP } from '../../identity.contracts';
import { openIdentityDatabase } from '../identity-fixtures.conformance';
import { IDENTITY_CONTROLLERS, IDENTITY_PROVIDERS } from '../index';
import { TypeOrmUserStore } from '../users/typeorm-user.store';

/**
 * The OrganizationRegistry as the gateway reaches it: the real providers and handlers in a
 * component on an in-process transport, on an in-memory SQLite database, the RPC server's decoding
 * and rights checks in front. Callers are what Authorize would have resolved.
 */
describe('OrganizationRegistry over the transport', () => {
  const broker = new InProcessBroker();
  let dataSource: DataSource;
  const purgedKeys: EntityRef[] = [];
  let component: TestComponent;

  beforeAll(async () => {
    jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
    dataSource = await openIdentityDatabase();
    const at = '2024-05-01T10:00:00.000000Z';
    for (const id of ['alice', 'bob'])
      await new TypeOrmUserStore(dataSource).create({ ids: { user_id: id }, created_at: at, updated_at: at, state: 'STATE_APPROVED' });
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
    class OrganizationsTestModule {}
    component = await startTestComponent(OrganizationsTestModule, {
      component: 'is',
      config: loadConfig({ ADMIN_USER_ID: 'root', LOG_LEVEL: 'error' }),
      broker,
    });
  });
  afterAll(async () => {
    await component.close();
    await dataSource.destroy();
    jest.restoreAllMocks();
  });

  function user(userId: string, options: { admin?: boolean; entity?: EntityRef; rights?: readonly Right[] } = {}): CallerIdentity {
    return {
      kind: 'api-key',
      id: `KEY-${userId}`,
      owner: { kind: 'user', id: userId },
      is_admin: options.admin ?? false,
      key_rights: [...ALL_RIGHTS],
      universal: false,
      ...(options.entity ? { entity: options.entity } : {}),
      rights: [...(options.rights ?? [])],
    };
  }
  const alice = (entity?: EntityRef) => user('alice', { entity, rights: ALL_RIGHTS });
  const root = (entity?: EntityRef) => user('root', { admin: true, entity, rights: ALL_ADMIN_RIGHTS });
  const org = (id: string): EntityRef => ({ kind: 'organization', id });

  async function call(name: RpcName, body: object, caller?: CallerIdentity): Promise<{ ok?: Record<string, unknown>; total?: number; error?: ErrorDetails }> {
    const reply = await component.call(name, body, { request_id: 'r', correlation_ids: [], caller });
    return 'error' in reply ? { error: reply.error } : { ok: reply.ok as Record<string, unknown>, total: reply.total };
  }

  it('a user creates and lists its organizations; IDs of users and organizations are one namespace', async () => {
    const create = (id: string) =>
      call(
        'OrganizationRegistry.Create',
        { organization: { ids: { organization_id: id }, name: id.toUpperCase() }, collaborator: { user_ids: { user_id: 'alice' } } },
        alice({ kind: 'user', id: 'alice' }),
      );
    for (const id of ['org-b', 'org-a'])
      expect((await create(id)).ok).toMatchObject({ ids: { organization_id: id }, administrative_contact: { user_ids: { user_id: 'alice' } } });
    expect((await create('org-a')).error).toMatchObject({ namespace: 'pkg/util/store', name: 'id_taken', code: 6 });
    expect((await create('bob')).error).toMatchObject({ name: 'id_taken' });
    expect((await create('Bad_ID')).error).toMatchObject({ namespace: 'pkg/errors', name: 'validation', code: 3 });
    expect(await call('OrganizationRegistry.List', { field_mask: 'name', limit: 1 }, alice())).toEqual({
      ok: { organizations: [expect.objectContaining({ ids: { organization_id: 'org-a' }, name: 'ORG-A' })] },
      total: 2,
    });
    const get = await call('OrganizationRegistry.Get', { organization_ids: { organization_id: 'org-a' }, field_mask: 'name' }, alice(org('org-a')));
    expect(get.ok).toMatchObject({ ids: { organization_id: 'org-a' }, name: 'ORG-A' });
    const other = await call('OrganizationRegistry.Get', { organization_ids: { organization_id: 'org-a' } }, user('bob', { entity: org('org-a') }));
    expect(other.error).toMatchObject({ name: 'no_organization_rights', code: 7 });
  });

  it('updates and deletes with the organization rights; only admins purge, after the API keys', async () => {
    const updated = await call(
      'OrganizationRegistry.Update',
      { organization: { ids: { organization_id: 'org-b' }, description: 'D' }, field_mask: { paths: ['description'] } },
      alice(org('org-b')),
    );
    expect(updated.ok).toMatchObject({ description: 'D' });
    expect(await call('OrganizationRegistry.Delete', { organization_id: 'org-b' }, alice(org('org-b')))).toEqual({ ok: {}, total: undefined });
    expect((await call('OrganizationRegistry.Purge', { organization_id: 'org-b' }, alice(org('org-b')))).error).toMatchObject({ name: 'no_admin' });
    expect(await call('OrganizationRegistry.Purge', { organization_id: 'org-b' }, root(org('org-b')))).toEqual({ ok: {}, total: undefined });
    expect(purgedKeys).toEqual([{ kind: 'organization', id: 'org-b' }]);
  });

  it('serves OrganizationAccess (rights, API keys) from the access side', () => {
    expect(ACCESS_CONTROLLERS.map((c) => c.name)).toContain('OrganizationAccessController');
  });
});
