import {
  CreateGatewayRequest,
  decodeMessage,
  GatewayIdentifiers,
  GetGatewayForEUIRequest,
  GetGatewayIdentifiersForEUIRequest,
  GetGatewayRequest,
  ListGatewaysRequest,
  Right,
  UpdateGatewayRequest,
} from '@lorawan/api';
import type { StackError } from '@lorawan/errors';
import { adminCaller, CTX, type IdentityTestBed, openIdentityTestBed, userCaller } from '../identity-fixtures.conformance';

const ids = (gateway_id: string) => decodeMessage(GatewayIdentifiers, { gateway_id });

describe('GatewayRegistryService (SQLite)', () => {
  let bed: IdentityTestBed;
  const create = (id: string, eui: string | undefined, userId = 'gina', gateway: object = {}) =>
    bed.gateways.create(
      decodeMessage(CreateGatewayRequest, {
        gateway: { ids: { gateway_id: id, ...(eui ? { eui } : {}) }, ...gateway },
        collaborator: { user_ids: { user_id: userId } },
      }),
      CTX,
    );
  const get = (id: string, field_mask?: string) =>
    bed.gateways.get(decodeMessage(GetGatewayRequest, { gateway_ids: { gateway_id: id }, ...(field_mask ? { field_mask } : {}) }));
  const update = (id: string, gateway: object, paths: string[]) =>
    bed.gateways.update(decodeMessage(UpdateGatewayRequest, { gateway: { ids: { gateway_id: id }, ...gateway }, field_mask: { paths } }), CTX);
  const byEui = (eui: string) => bed.gateways.getIdentifiersForEUI(decodeMessage(GetGatewayIdentifiersForEUIRequest, { eui }));

  beforeAll(async () => {
    bed = await openIdentityTestBed();
    for (const id of ['gina', 'gus'])
      await bed.stores.users.create({
        ids: { user_id: id },
        created_at: '2024-05-01T10:00:00.000000Z',
        updated_at: '2024-05-01T10:00:00.000000Z',
        state: 'STATE_APPROVED',
      });
  });
  afterAll(async () => bed.close());

  it('creates a gateway: EUI in upper-case hex, frequency_plan_id copied into frequency_plan_ids, contacts from the collaborator', async () => {
    const gtw = await create('gtw-one', '00800000a0000001', 'gina', {
      name: 'GW',
      frequency_plan_id: 'EU_863_870_TTN',
      gateway_server_address: 'localhost',
      enforce_duty_cycle: true,
      status_public: false,
    });
    expect(gtw).toEqual({
      ids: { gateway_id: 'gtw-one', eui: '00800000A0000001' },
      created_at: gtw.created_at,
      updated_at: gtw.created_at,
      name: 'GW',
      frequency_plan_id: 'EU_863_870_TTN',
      frequency_plan_ids: ['EU_863_870_TTN'],
      gateway_server_address: 'localhost',
      enforce_duty_cycle: true,
      administrative_contact: { user_ids: { user_id: 'gina' } },
      technical_contact: { user_ids: { user_id: 'gina' } },
    });
    expect(await bed.directory.collaboratorRights('gina', { kind: 'gateway', id: 'gtw-one' })).toEqual(['RIGHT_ALL']);
  });

  it('frequency_plan_id is always the first of frequency_plan_ids', async () => {
    await create('gtw-plans', undefined, 'gina', { frequency_plan_id: 'US_902_928_FSB_2', frequency_plan_ids: ['EU_863_870', 'EU_863_870_TTN'] });
    expect(await get('gtw-plans', 'frequency_plan_id')).toMatchObject({
      frequency_plan_id: 'EU_863_870',
      frequency_plan_ids: ['EU_863_870', 'EU_863_870_TTN'],
    });
    const out = await update('gtw-plans', { frequency_plan_id: 'AU_915_928_FSB_2' }, ['frequency_plan_id']);
    expect(out).toMatchObject({ frequency_plan_id: 'AU_915_928_FSB_2', frequency_plan_ids: ['AU_915_928_FSB_2'] });
    expect(await get('gtw-plans', 'frequency_plan_ids')).toMatchObject({ frequency_plan_id: 'AU_915_928_FSB_2', frequency_plan_ids: ['AU_915_928_FSB_2'] });
    const cleared = await update('gtw-plans', {}, ['frequency_plan_ids']);
    expect(cleared.frequency_plan_id).toBeUndefined();
    expect(await get('gtw-plans', 'frequency_plan_id,frequency_plan_ids')).toEqual(expect.not.objectContaining({ frequency_plan_id: expect.anything() }));
  });

  it('stores up to eight known plans of one band (a 16-channel Japanese gateway: JP_1 and JP_3)', async () => {
    const plans = ['AS_920_923_TTN_JP_1', 'AS_920_923_TTN_JP_3'];
    await create('gtw-multi', '00800000A00000A1', 'gus', { frequency_plan_ids: plans });
    expect(await get('gtw-multi', 'frequency_plan_ids')).toMatchObject({ frequency_plan_id: plans[0], frequency_plan_ids: plans });
    expect(await bed.gateways.forEui(decodeMessage(GetGatewayForEUIRequest, { eui: '00800000A00000A1' }))).toMatchObject({ frequency_plan_ids: plans });
    const nine = Array.from({ length: 9 }, (_, i) => `US_902_928_FSB_${(i % 8) + 1}`);
    expect(() => decodeMessage(CreateGatewayRequest, { gateway: { ids: { gateway_id: 'gtw-nine' }, frequency_plan_ids: nine } })).toThrow();
    await expect(create('gtw-eight', undefined, 'gus', { frequency_plan_ids: nine.slice(0, 8) })).resolves.toMatchObject({
      frequency_plan_ids: nine.slice(0, 8),
    });
  });

  it('refuses an unknown plan and plans of different bands, on create and update; nothing is stored', async () => {
    const refusedCreate = async (id: string, gateway: object) => {
      const err = (await create(id, undefined, 'gus', gateway).catch((e: StackError) => e)) as StackError;
      expect(await bed.stores.gateways.get(id, 'any')).toBeUndefined();
      return err;
    };
    expect(await refusedCreate('gtw-bad-plan', { frequency_plan_id: 'EU_868' })).toMatchObject({
      namespace: 'pkg/identityserver',
      errorName: 'frequency_plan_not_found',
      code: 3,
      attributes: { id: 'EU_868' },
    });
    expect(await refusedCreate('gtw-bad-plans', { frequency_plan_ids: ['EU_863_870', 'NOT_A_PLAN'] })).toMatchObject({
      errorName: 'frequency_plan_not_found',
      attributes: { id: 'NOT_A_PLAN' },
    });
    expect(await refusedCreate('gtw-two-bands', { frequency_plan_ids: ['EU_863_870', 'US_902_928_FSB_2'] })).toMatchObject({
      namespace: 'pkg/gatewayserver/io',
      errorName: 'frequency_plans_not_from_same_band',
      code: 3,
      attributes: { frequency_plan_ids: ['EU_863_870', 'US_902_928_FSB_2'], band_ids: ['EU_863_870', 'US_902_928'] },
    });
    // AS923 groups are different bands.
    expect(await refusedCreate('gtw-two-groups', { frequency_plan_ids: ['AS_923', 'AS_923_2'] })).toMatchObject({
      errorName: 'frequency_plans_not_from_same_band',
    });

    await create('gtw-keep', undefined, 'gus', { frequency_plan_id: 'EU_863_870' });
    await expect(update('gtw-keep', { frequency_plan_ids: ['EU_863_870', 'KR_920_923_TTN'] }, ['frequency_plan_ids'])).rejects.toMatchObject({
      errorName: 'frequency_plans_not_from_same_band',
    });
    await expect(update('gtw-keep', { frequency_plan_id: 'NOPE' }, ['frequency_plan_id'])).rejects.toMatchObject({ errorName: 'frequency_plan_not_found' });
    expect(await get('gtw-keep', 'frequency_plan_ids')).toMatchObject({ frequency_plan_id: 'EU_863_870', frequency_plan_ids: ['EU_863_870'] });
    // Other fields stay writable whatever the plans.
    await expect(update('gtw-keep', { name: 'kept' }, ['name'])).resolves.toMatchObject({ name: 'kept' });
  });

  it('refuses a taken EUI naming its gateway, and a taken ID; nothing is stored', async () => {
    const err = (await create('gtw-two', '00800000A0000001', 'gus').catch((e: StackError) => e)) as StackError;
    expect(err).toMatchObject({
      namespace: 'pkg/identityserver',
      errorName: 'gateway_eui_taken',
      code: 6,
      attributes: { gateway_eui: '00800000A0000001', gateway_id: 'gtw-one', administrative_contact: 'gina' },
    });
    expect(err.message).toBe('a gateway with EUI `00800000A0000001` is already registered (by you or someone else) as `gtw-one`');
    expect(await bed.stores.gateways.get('gtw-two', 'any')).toBeUndefined();
    expect(await bed.directory.collaboratorRights('gus', { kind: 'gateway', id: 'gtw-two' })).toEqual([]);
    await expect(create('gtw-one', '00800000A00000FF', 'gus')).rejects.toMatchObject({ namespace: 'pkg/util/store', errorName: 'id_taken', code: 6 });
    expect(await bed.stores.gateways.getByEui('00800000A00000FF', 'any')).toBeUndefined();
  });

  it('answers the identifiers of the live gateway registered with an EUI', async () => {
    expect(await byEui('00800000a0000001')).toEqual({ gateway_id: 'gtw-one', eui: '00800000A0000001' });
    await expect(byEui('00800000A0000009')).rejects.toMatchObject({
      namespace: 'pkg/identityserver/store',
      errorName: 'gateway_not_found_by_eui',
      code: 5,
      attributes: { gateway_eui: '00800000A0000009' },
    });
  });

  it('updates the EUI when it is free; ids.gateway_id is read-only', async () => {
    await create('gtw-move', '00800000A0000002');
    await expect(update('gtw-move', { ids: { gateway_id: 'gtw-move', eui: '00800000A0000001' } }, ['ids.eui'])).rejects.toMatchObject({
      errorName: 'gateway_eui_taken',
      attributes: { gateway_id: 'gtw-one' },
    });
    expect((await get('gtw-move')).ids).toEqual({ gateway_id: 'gtw-move', eui: '00800000A0000002' });
    const moved = await update('gtw-move', { ids: { gateway_id: 'gtw-move', eui: '00800000A0000003' } }, ['ids.eui']);
    expect(moved.ids).toEqual({ gateway_id: 'gtw-move', eui: '00800000A0000003' });
    expect(await byEui('00800000A0000003')).toEqual({ gateway_id: 'gtw-move', eui: '00800000A0000003' });
    await expect(update('gtw-move', {}, ['ids.gateway_id'])).rejects.toMatchObject({ errorName: 'read_only_field', attributes: { field: 'ids.gateway_id' } });
    await expect(update('gtw-move', {}, ['ids'])).rejects.toMatchObject({ errorName: 'read_only_field', attributes: { field: 'ids' } });
    await expect(update('gtw-move', {}, ['administrative_contact.user_ids'])).rejects.toMatchObject({ errorName: 'field_mask_paths' });
  });

  it('soft delete keeps the ID and EUI taken; purge (keys first) frees both', async () => {
    await create('gtw-del', '00800000A0000004');
    expect(await bed.gateways.delete(ids('gtw-del'), CTX)).toEqual({});
    expect(bed.invalidations.at(-1)).toEqual({ entity: { kind: 'gateway', id: 'gtw-del' } });
    await expect(get('gtw-del')).rejects.toMatchObject({ errorName: 'gateway_not_found', attributes: { gateway_id: 'gtw-del' } });
    await expect(byEui('00800000A0000004')).rejects.toMatchObject({ errorName: 'gateway_not_found_by_eui' });
    await expect(create('gtw-del', undefined, 'gus')).rejects.toMatchObject({ errorName: 'id_taken' });
    await expect(create('gtw-other', '00800000A0000004', 'gus')).rejects.toMatchObject({
      errorName: 'gateway_eui_taken',
      attributes: { gateway_id: 'gtw-del' },
    });
    expect(await bed.gateways.restore(ids('gtw-del'), CTX)).toEqual({});
    await expect(bed.gateways.restore(ids('gtw-del'), CTX)).rejects.toMatchObject({ errorName: 'gateway_not_found' });
    expect(await bed.gateways.purge(ids('gtw-del'), CTX)).toEqual({});
    expect(bed.keyCleanups).toEqual([{ kind: 'gateway', id: 'gtw-del' }]);
    await expect(bed.gateways.purge(ids('gtw-del'), CTX)).rejects.toMatchObject({ errorName: 'gateway_not_found' });
    await expect(create('gtw-other', '00800000A0000004', 'gus')).resolves.toMatchObject({ ids: { gateway_id: 'gtw-other' } });
    await expect(create('gtw-del', undefined, 'gus')).resolves.toMatchObject({ ids: { gateway_id: 'gtw-del' } });
  });

  it("lists the caller's gateways with the total, reduced where it lacks RIGHT_GATEWAY_INFO", async () => {
    const list = (caller: ReturnType<typeof userCaller>, query: object) => bed.gateways.list(decodeMessage(ListGatewaysRequest, query), caller);
    const mine = await list(userCaller('gina'), { field_mask: 'name', order: '-gateway_id', limit: 2 });
    expect(mine.total).toBe(3);
    expect(mine.body.gateways?.map((g) => g.ids?.gateway_id)).toEqual(['gtw-plans', 'gtw-one']);
    const reduced = await list(userCaller('gina', [Right.RIGHT_USER_GATEWAYS_LIST]), { field_mask: 'name' });
    for (const gtw of reduced.body.gateways ?? []) expect(Object.keys(gtw).sort()).toEqual(['created_at', 'ids', 'updated_at']);
    const all = await list(adminCaller(), { order: 'gateway_eui' });
    expect(all.total).toBe(all.body.gateways?.length);
    expect(await list(userCaller('gus'), { collaborator: { user_ids: { user_id: 'nobody' } } })).toEqual({ body: {}, total: 0 });
  });
});
