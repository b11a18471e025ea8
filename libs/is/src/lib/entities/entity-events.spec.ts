import {
  ApplicationIdentifiers,
  CreateApplicationRequest,
  CreateGatewayRequest,
  CreateUserRequest,
  decodeMessage,
  GatewayIdentifiers,
  type RpcContext,
  UpdateApplicationRequest,
  UpdateGatewayRequest,
  UpdateUserRequest,
  UserIdentifiers,
} from '@lorawan/api';
import { rpcContext } from '@lorawan/testing';
import { ADMIN_USER_ID, adminCaller, type IdentityTestBed, openIdentityTestBed, userCaller } from './identity-fixtures.conformance';

/**
 * The events of the IS entity registries (TTS `application.*`, `gateway.*`, `user.*`): each
 * successful Create, Update, Delete, Restore and Purge publishes its event once, about the
 * entity, with the request's correlation IDs (update data: the request's field-mask paths);
 * a failed one publishes nothing.
 */
describe('IS entity registry events (SQLite)', () => {
  let bed: IdentityTestBed;
  const value = (paths: string[]) => ({ '@type': 'type.googleapis.com/google.protobuf.Value', value: paths });
  /** The call fails with a stack error (not with a bug). */
  const fails = (p: Promise<unknown>) => expect(p).rejects.toHaveProperty('code');

  beforeAll(async () => {
    bed = await openIdentityTestBed();
    await bed.users.ensureAdminUser();
    for (const id of ['alice', 'bob'])
      await bed.stores.users.create({
        ids: { user_id: id },
        created_at: '2024-05-01T10:00:00.000000Z',
        updated_at: '2024-05-01T10:00:00.000000Z',
        state: 'STATE_APPROVED',
      });
    await bed.events.take();
  });
  afterAll(async () => bed.close());

  describe('applications', () => {
    const appIds = (id: string) => ({ application_ids: { application_id: id } });
    const visibility = { rights: ['RIGHT_APPLICATION_INFO'] };
    const create = (id: string, ctx: RpcContext, userId = 'alice') =>
      bed.applications.create(
        decodeMessage(CreateApplicationRequest, { application: { ids: { application_id: id } }, collaborator: { user_ids: { user_id: userId } } }),
        ctx,
      );
    const update = (id: string, paths: string[], ctx: RpcContext) =>
      bed.applications.update(
        decodeMessage(UpdateApplicationRequest, { application: { ids: { application_id: id }, name: 'N', description: 'D' }, field_mask: { paths } }),
        ctx,
      );
    const ids = (id: string) => decodeMessage(ApplicationIdentifiers, { application_id: id });

    it('create, update, delete, restore, delete, purge: one event each, in order', async () => {
      const ctxs = ['Create', 'Update', 'Delete', 'Restore', 'Delete', 'Purge'].map((m) => rpcContext(`ApplicationRegistry.${m}`, adminCaller()));
      await create('ev-app', ctxs[0]);
      await update('ev-app', ['name', 'description'], ctxs[1]);
      await bed.applications.delete(ids('ev-app'), ctxs[2]);
      await bed.applications.restore(ids('ev-app'), ctxs[3]);
      await bed.applications.delete(ids('ev-app'), ctxs[4]);
      await bed.applications.purge(ids('ev-app'), ctxs[5]);
      const names = ['create', 'update', 'delete', 'restore', 'delete', 'purge'];
      expect(await bed.events.take()).toEqual(
        names.map((name, i) => ({
          name: `application.${name}`,
          identifiers: [appIds('ev-app')],
          ...(name === 'update' ? { data: value(['name', 'description']) } : {}),
          correlation_ids: ctxs[i].correlation_ids,
          visibility,
        })),
      );
    });

    it('the update event carries the paths as requested (before the read-only and ignored ones are dropped)', async () => {
      const ctx = rpcContext('ApplicationRegistry.Update', adminCaller());
      await create('ev-app-paths', rpcContext('ApplicationRegistry.Create'));
      await update('ev-app-paths', ['name', 'updated_at'], ctx);
      expect((await bed.events.take()).map((e) => [e.name, e.data])).toEqual([
        ['application.create', undefined],
        ['application.update', value(['name', 'updated_at'])],
      ]);
    });

    it('nothing for a failed operation', async () => {
      const ctx = rpcContext('ApplicationRegistry.Call', adminCaller());
      await create('ev-app-fail', ctx);
      await bed.addDevice('ev-app-fail', 'dev-1');
      await bed.events.take();
      await fails(create('ev-app-fail', ctx));
      await fails(create('ev-app-ghost', ctx, 'ghost'));
      await fails(update('ev-app-ghost', ['name'], ctx));
      await fails(update('ev-app-fail', ['ids.application_id'], ctx));
      await fails(bed.applications.delete(ids('ev-app-ghost'), ctx));
      await fails(bed.applications.delete(ids('ev-app-fail'), ctx)); // It has devices.
      await fails(bed.applications.restore(ids('ev-app-fail'), ctx)); // Not deleted.
      await fails(bed.applications.purge(ids('ev-app-fail'), ctx)); // It has devices.
      await fails(bed.applications.purge(ids('ev-app-ghost'), ctx));
      expect(await bed.events.take()).toEqual([]);
    });
  });

  describe('gateways', () => {
    const visibility = { rights: ['RIGHT_GATEWAY_INFO'] };
    const create = (id: string, eui: string | undefined, ctx: RpcContext) =>
      bed.gateways.create(
        decodeMessage(CreateGatewayRequest, {
          gateway: { ids: { gateway_id: id, ...(eui ? { eui } : {}) } },
          collaborator: { user_ids: { user_id: 'alice' } },
        }),
        ctx,
      );
    const update = (id: string, gateway: object, paths: string[], ctx: RpcContext) =>
      bed.gateways.update(decodeMessage(UpdateGatewayRequest, { gateway: { ids: { gateway_id: id }, ...gateway }, field_mask: { paths } }), ctx);
    const ids = (id: string) => decodeMessage(GatewayIdentifiers, { gateway_id: id });

    it('create, update, delete, restore, delete, purge: one event each, naming the gateway by its ID and stored EUI', async () => {
      const ctxs = ['Create', 'Update', 'Update', 'Delete', 'Restore', 'Delete', 'Purge'].map((m) => rpcContext(`GatewayRegistry.${m}`, adminCaller()));
      await create('ev-gtw', '00800000a00000e1', ctxs[0]);
      await update('ev-gtw', { name: 'GW' }, ['name'], ctxs[1]);
      await update('ev-gtw', { ids: { gateway_id: 'ev-gtw', eui: '00800000A00000E2' } }, ['ids.eui'], ctxs[2]);
      await bed.gateways.delete(ids('ev-gtw'), ctxs[3]);
      await bed.gateways.restore(ids('ev-gtw'), ctxs[4]);
      await bed.gateways.delete(ids('ev-gtw'), ctxs[5]);
      await bed.gateways.purge(ids('ev-gtw'), ctxs[6]);
      const gtw = (eui: string) => ({ gateway_ids: { gateway_id: 'ev-gtw', eui } });
      const event = (i: number, name: string, eui: string, data?: object) => ({
        name: `gateway.${name}`,
        identifiers: [gtw(eui)],
        ...(data ? { data } : {}),
        correlation_ids: ctxs[i].correlation_ids,
        visibility,
      });
      expect(await bed.events.take()).toEqual([
        event(0, 'create', '00800000A00000E1'),
        event(1, 'update', '00800000A00000E1', value(['name'])),
        event(2, 'update', '00800000A00000E2', value(['ids.eui'])),
        event(3, 'delete', '00800000A00000E2'),
        event(4, 'restore', '00800000A00000E2'),
        event(5, 'delete', '00800000A00000E2'),
        event(6, 'purge', '00800000A00000E2'),
      ]);
    });

    it('a gateway without EUI is named by its ID alone', async () => {
      const ctx = rpcContext('GatewayRegistry.Delete', adminCaller());
      await create('ev-gtw-bare', undefined, rpcContext('GatewayRegistry.Create'));
      await bed.gateways.delete(ids('ev-gtw-bare'), ctx);
      expect((await bed.events.take()).map((e) => [e.name, e.identifiers])).toEqual([
        ['gateway.create', [{ gateway_ids: { gateway_id: 'ev-gtw-bare' } }]],
        ['gateway.delete', [{ gateway_ids: { gateway_id: 'ev-gtw-bare' } }]],
      ]);
    });

    it('nothing for a failed operation', async () => {
      const ctx = rpcContext('GatewayRegistry.Call', adminCaller());
      await create('ev-gtw-fail', '00800000A00000F1', ctx);
      await bed.events.take();
      await fails(create('ev-gtw-fail', undefined, ctx)); // ID taken.
      await fails(create('ev-gtw-other', '00800000A00000F1', ctx)); // EUI taken.
      await fails(update('ev-gtw-ghost', { name: 'x' }, ['name'], ctx));
      await fails(update('ev-gtw-fail', { name: 'x' }, ['no_such_field'], ctx));
      await fails(bed.gateways.delete(ids('ev-gtw-ghost'), ctx));
      await fails(bed.gateways.restore(ids('ev-gtw-fail'), ctx)); // Not deleted.
      await fails(bed.gateways.purge(ids('ev-gtw-ghost'), ctx));
      expect(await bed.events.take()).toEqual([]);
    });
  });

  describe('users', () => {
    const visibility = { rights: ['RIGHT_USER_INFO'] };
    const PASSWORD = 'Event-Passw0rd-Secret';

    it('create, update, delete: one event each; the password appears in none', async () => {
      const ctxs = ['Create', 'Update', 'Delete'].map((m) => rpcContext(`UserRegistry.${m}`, adminCaller()));
      await bed.users.create(decodeMessage(CreateUserRequest, { user: { ids: { user_id: 'ev-user' }, password: PASSWORD, name: 'Eve' } }), ctxs[0]);
      await bed.users.update(
        decodeMessage(UpdateUserRequest, { user: { ids: { user_id: 'ev-user' }, name: 'Eva', admin: true }, field_mask: { paths: ['name', 'admin'] } }),
        ctxs[1],
      );
      await bed.users.delete(decodeMessage(UserIdentifiers, { user_id: 'ev-user' }), ctxs[2]);
      const user = { user_ids: { user_id: 'ev-user' } };
      expect(await bed.events.take()).toEqual([
        { name: 'user.create', identifiers: [user], correlation_ids: ctxs[0].correlation_ids, visibility },
        { name: 'user.update', identifiers: [user], data: value(['name', 'admin']), correlation_ids: ctxs[1].correlation_ids, visibility },
        { name: 'user.delete', identifiers: [user], correlation_ids: ctxs[2].correlation_ids, visibility },
      ]);
      for (const event of bed.events.all) expect(JSON.stringify(event)).not.toMatch(/Passw0rd|PBKDF2|password/i);
    });

    it('nothing for a failed operation', async () => {
      const admin = rpcContext('UserRegistry.Call', adminCaller());
      await fails(bed.users.create(decodeMessage(CreateUserRequest, { user: { ids: { user_id: 'alice' } } }), admin)); // ID taken.
      await fails(bed.users.create(decodeMessage(CreateUserRequest, { user: { ids: { user_id: 'weak' }, password: 'short' } }), admin));
      const bySelf = rpcContext('UserRegistry.Update', userCaller('bob'));
      await fails(
        bed.users.update(decodeMessage(UpdateUserRequest, { user: { ids: { user_id: 'bob' }, admin: true }, field_mask: { paths: ['admin'] } }), bySelf),
      );
      await fails(
        bed.users.update(decodeMessage(UpdateUserRequest, { user: { ids: { user_id: 'ghost' }, name: 'x' }, field_mask: { paths: ['name'] } }), admin),
      );
      await fails(bed.users.delete(decodeMessage(UserIdentifiers, { user_id: ADMIN_USER_ID }), admin));
      await fails(bed.users.delete(decodeMessage(UserIdentifiers, { user_id: 'ghost' }), admin));
      expect(await bed.events.take()).toEqual([]);
    });
  });
});
