/**
 * The frequency plans over HTTP, in both run modes: `GET /api/v3/configuration/frequency-plans`
 * (TTS `Configuration.ListFrequencyPlans`, open to anyone, filtered by base frequency and band),
 * and gateways listing several plans (`frequency_plan_ids`: known plans of one band, else a 400
 * in TTS's error shape and nothing stored).
 */
import { startDistributedStack, startEmbeddedStack, type StackUnderTest } from '@lorawan/testing';
import { auth, bearer, unknownToken } from './access';
import { uid } from './devices';
import { ADMIN_USER_ID, Api, expectStatus, expectTtsError } from './http-client';

type Start = () => Promise<StackUnderTest>;
const MODES: Array<[string, Start]> = [
  ['distributed', () => startDistributedStack()],
  ['embedded', () => startEmbeddedStack()],
];

const PATH = '/api/v3/configuration/frequency-plans';

interface Description {
  id: string;
  base_id?: string;
  name: string;
  base_frequency: number;
  band_id: string;
}

describe.each(MODES)('frequency plans (%s)', (_mode, start) => {
  let stack: StackUnderTest;
  const api = new Api(() => stack);
  beforeAll(async () => {
    stack = await start();
  });
  afterAll(async () => stack?.stop());

  const plans = async (query = '', options = auth(undefined)): Promise<Description[]> => {
    const res = await api.get(`${PATH}${query}`, options);
    expectStatus(res, 200);
    expect(Object.keys(res.json)).toEqual(['frequency_plans']);
    return res.json.frequency_plans as Description[];
  };

  it('lists every plan to anyone, as TTS describes them (id, base_id, name, base_frequency, band_id)', async () => {
    const all = await plans();
    // 67 plans; CN470-510 ones will add to them.
    expect(all.length).toBeGreaterThanOrEqual(67);
    expect(all.find((p) => p.id === 'EU_863_870_TTN')).toEqual({
      id: 'EU_863_870_TTN',
      base_id: 'EU_863_870',
      name: 'Europe 863-870 MHz (SF9 for RX2 - recommended)',
      base_frequency: 868,
      band_id: 'EU_863_870',
    });
    expect(all.find((p) => p.id === 'US_902_928_FSB_1')).toEqual({
      id: 'US_902_928_FSB_1',
      name: 'United States 902-928 MHz, FSB 1',
      base_frequency: 915,
      band_id: 'US_902_928',
    });
    for (const id of ['AU_915_928_FSB_8', 'AS_923_3', 'AS_920_923_TTN_JP_1', 'KR_920_923_TTN', 'RU_864_870_TTN', 'IL_917_920_TTN', 'EU_433', 'IN_865_867'])
      expect(all.map((p) => p.id)).toContain(id);
    // A credential is not looked at: the admin's, an unknown key, another scheme.
    for (const options of [bearer(stack.adminKey), bearer(unknownToken()), auth('Basic YWRtaW46c2VjcmV0')]) expect(await plans('', options)).toEqual(all);
  });

  it('filters by base frequency and by band', async () => {
    const at868 = await plans('?base_frequency=868');
    expect(new Set(at868.map((p) => p.base_frequency))).toEqual(new Set([868]));
    expect(at868.map((p) => p.id)).toEqual(expect.arrayContaining(['EU_863_870', 'EU_863_870_TTN', 'IN_865_867', 'RU_864_870_TTN']));
    expect(at868.map((p) => p.id)).not.toContain('US_902_928_FSB_2');
    expect((await plans('?base_frequency=433')).map((p) => p.id)).toEqual(['EU_433']);
    const israel = await plans('?band_id=AS_923_4');
    expect(israel.map((p) => p.id)).toEqual(['AS_923_4', 'AS_923_4_NDT', 'AS_923_4_DT', 'IL_917_920_TTN', 'IL_917_920_TTN_2']);
    expect((await plans('?base_frequency=915&band_id=US_902_928')).map((p) => p.id)).toEqual([
      ...[1, 2, 3, 4, 5, 6, 7, 8].map((n) => `US_902_928_FSB_${n}`),
      ...['US_903_0', 'US_904_6', 'US_906_2', 'US_907_8', 'US_909_4', 'US_911_0', 'US_912_6', 'US_914_2'],
    ]);
    expect(await plans('?base_frequency=868&band_id=US_902_928')).toEqual([]);
  });

  it('refuses a base frequency that is not a number with a 400', async () => {
    const res = await api.get(`${PATH}?base_frequency=eight`, auth(undefined));
    expect(res.status).toBe(400);
    expect(res.json.code).toBe(3);
  });

  it('stores a gateway with several plans of one band; refuses an unknown plan and plans of two bands, storing nothing', async () => {
    const create = (id: string, gateway: object) => api.post(`/api/v3/users/${ADMIN_USER_ID}/gateways`, { gateway: { ids: { gateway_id: id }, ...gateway } });
    const get = (id: string) => api.get(`/api/v3/gateways/${id}?field_mask=frequency_plan_id,frequency_plan_ids`);

    const multi = uid('gtw-jp');
    expectStatus(await create(multi, { frequency_plan_ids: ['AS_920_923_TTN_JP_1', 'AS_920_923_TTN_JP_3'] }), 200);
    expect((await get(multi)).json).toMatchObject({
      frequency_plan_id: 'AS_920_923_TTN_JP_1',
      frequency_plan_ids: ['AS_920_923_TTN_JP_1', 'AS_920_923_TTN_JP_3'],
    });

    const twoBands = uid('gtw-two');
    const refused = await create(twoBands, { frequency_plan_ids: ['EU_863_870', 'US_902_928_FSB_2'] });
    expectTtsError(refused, 400, 3, 'pkg/gatewayserver/io', 'frequency_plans_not_from_same_band', {
      frequency_plan_ids: ['EU_863_870', 'US_902_928_FSB_2'],
      band_ids: ['EU_863_870', 'US_902_928'],
    });
    expect((await get(twoBands)).status).toBe(404);

    const unknown = uid('gtw-unknown');
    expectTtsError(await create(unknown, { frequency_plan_id: 'EU_868' }), 400, 3, 'pkg/identityserver', 'frequency_plan_not_found', { id: 'EU_868' });
    expect((await get(unknown)).status).toBe(404);

    const nine = Array.from({ length: 9 }, (_, i) => `US_902_928_FSB_${(i % 8) + 1}`);
    expect((await create(uid('gtw-nine'), { frequency_plan_ids: nine })).status).toBe(400);

    // An update to plans of two bands leaves the stored plans as they were.
    const res = await api.put(`/api/v3/gateways/${multi}`, {
      gateway: { frequency_plan_ids: ['AS_920_923_TTN_JP_1', 'KR_920_923_TTN'] },
      field_mask: { paths: ['frequency_plan_ids'] },
    });
    expectTtsError(res, 400, 3, 'pkg/gatewayserver/io', 'frequency_plans_not_from_same_band');
    expect((await get(multi)).json.frequency_plan_ids).toEqual(['AS_920_923_TTN_JP_1', 'AS_920_923_TTN_JP_3']);
  });
});
