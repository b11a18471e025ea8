/**
 * The Join, Network and Application Server end-device registries (JsEndDeviceRegistry,
 * NsEndDeviceRegistry, AsEndDeviceRegistry: Set / Get / Delete under /api/v3/{js,ns,as}) over HTTP,
 * end to end, in both run modes: components as separate processes over NATS + MariaDB, and the
 * all-in-one process on SQLite. Keys are stored wrapped with a KEK (KEKS + *_KEK_LABEL), so every
 * read of key material also checks the unwrapping. Seed: device-registry-api.md; where it is
 * silent, wire contract §0–§3.
 */
import { startDistributedStack, startEmbeddedStack, type StackUnderTest } from '@lorawan/testing';
import { Api, type ApiResponse, createApplications, expectTtsError, expectValidationError, type ErrorDetailsJson, sleep } from './http-client';
import {
  abpAsDevice,
  abpNsDevice,
  type DeviceIds,
  expectNoKeyMaterial,
  expectNoWrappedKeys,
  expectOk,
  hexToBase64,
  isDevicePath,
  isDevicesPath,
  NAMESPACE,
  NS_OTAA,
  NS_OTAA_PATHS,
  otaaIds,
  randomDevAddr,
  randomEui,
  randomKey,
  type Registry,
  REGISTRIES,
  Registries,
  registryDevicePath,
  sampleDevice,
  sampleUpdate,
  topLevel,
  uid,
  ZERO_DEV_ADDR,
  ZERO_EUI,
  ZERO_KEY,
} from './devices';

// ------------------------------------------------------------------------------------------------
// Device templates for "Copy on create" (catalogue of libs/lorawan/src/lib/device-templates).
// Adjust here when the catalogue changes; the "Copy on create" describe uses nothing else.

/** The template the lead named: The Things Industries Generic Node Sensor Edition. */
const TEMPLATE = {
  version_ids: { brand_id: 'the-things-industries', model_id: 'generic-node-sensor-edition', hardware_version: '1.1', firmware_version: '1.0' },
  /** What an NS create that omits them gets from the template. */
  ns: { lorawan_version: 'MAC_V1_0_3', lorawan_phy_version: 'PHY_V1_0_3_REV_A' } as Record<string, unknown>,
  /**
   * NS fields the template does not provide but an NS device needs, sent with the request. The
   * bundled entry has no frequency plan today; once it has one, move it to `ns` and empty this.
   */
  nsRequestExtra: { frequency_plan_id: 'EU_863_870' } as Record<string, unknown>,
  /** What an AS create that omits them gets from the template (empty parameters are not written). */
  as: { formatters: { up_formatter: 'FORMATTER_CAYENNELPP', down_formatter: 'FORMATTER_CAYENNELPP' } },
};

/** A template that carries a frequency plan and frequency range. */
const TEMPLATE_WITH_PLAN = {
  version_ids: { brand_id: 'milesight', model_id: 'em300-th-868m', hardware_version: '3.0' },
  ns: {
    lorawan_version: 'MAC_V1_0_3',
    lorawan_phy_version: 'PHY_V1_0_3_REV_A',
    frequency_plan_id: 'EU_863_870_TTN',
    min_frequency: '863000000',
    max_frequency: '870000000',
  },
};

// ------------------------------------------------------------------------------------------------

/** Keys at rest are wrapped with this KEK by all three servers (reads must still return plain keys). */
const KEK_ENV = { KEKS: 'e2e=000102030405060708090A0B0C0D0E0F', JS_KEK_LABEL: 'e2e', NS_KEK_LABEL: 'e2e', AS_KEK_LABEL: 'e2e' };

type Start = () => Promise<StackUnderTest>;
const MODES: Array<[string, Start]> = [
  ['distributed', () => startDistributedStack({ components: ['is', 'js', 'ns', 'as'], env: KEK_ENV })],
  ['embedded', () => startEmbeddedStack({ env: KEK_ENV })],
];

/** RFC 3339 UTC. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

/** Set paths each registry refuses (besides `ids.dev_addr`, which no Set accepts). */
const FORBIDDEN_SET: Record<Registry, { path: string; device: Record<string, unknown> }> = {
  js: { path: 'session.dev_addr', device: { session: { dev_addr: '01020304', keys: {} } } },
  ns: { path: 'created_at', device: { created_at: '2024-01-01T00:00:00Z' } },
  as: { path: 'session.keys.f_nwk_s_int_key.key', device: { session: { keys: { f_nwk_s_int_key: { key: '00112233445566778899AABBCCDDEEFF' } } } } },
};
/** Get paths each registry refuses. */
const FORBIDDEN_GET: Record<Registry, string> = { js: 'session', ns: 'root_keys', as: 'mac_settings' };

/** Unset in JSON: absent, null, or a zero value (a masked, cleared field may be written as its zero value). */
function expectUnset(value: unknown, what: string): void {
  const unset =
    value === undefined ||
    value === null ||
    value === '' ||
    value === 0 ||
    value === false ||
    (Array.isArray(value) && value.length === 0) ||
    (typeof value === 'object' && value !== null && Object.values(value).every((v) => v === undefined || v === null));
  if (!unset) throw new Error(`${what}: expected unset, got ${JSON.stringify(value)}`);
}

/** The `multiple_end_devices` error: count 2 and both device IDs. */
function expectMultipleDevices(res: ApiResponse, devices: string[]): void {
  const details: ErrorDetailsJson = expectTtsError(res, 400, 3, 'pkg/internal/registry', 'multiple_end_devices');
  expect(Number(details.attributes?.count)).toBe(devices.length);
  const listed = JSON.stringify(details.attributes?.device_ids ?? null);
  for (const d of devices) expect(listed).toContain(d);
}

describe.each(MODES)('JS, NS and AS end-device registries over HTTP (%s)', (mode, start) => {
  let stack: StackUnderTest;
  const api = new Api(() => stack);
  const reg = new Registries(api);

  beforeAll(async () => {
    stack = await start();
  });

  afterAll(async () => {
    await stack?.stop();
  });

  async function expectNotFound(c: Registry, app: string, dev: string, query: Record<string, string> = {}): Promise<void> {
    const res = await reg.get(c, app, dev, [], query);
    expectTtsError(res, 404, 5, NAMESPACE[c], 'device_not_found');
  }

  async function expectIsNotFound(app: string, dev: string): Promise<void> {
    expectTtsError(await api.get(isDevicePath(app, dev)), 404, 5, 'pkg/identityserver/store', 'end_device_not_found');
  }

  /**
   * Runs `attempt` (which must be refused, as `check` asserts) against an existing device and
   * checks that a Get of `paths` answers exactly the same before and after.
   */
  async function expectRefusedAndUnchanged(
    c: Registry,
    app: string,
    dev: string,
    paths: string[],
    attempt: () => Promise<ApiResponse>,
    check: (res: ApiResponse) => void,
  ): Promise<void> {
    const before = await reg.getOk(c, app, dev, paths);
    const res = await attempt();
    check(res);
    const after = await reg.getOk(c, app, dev, paths);
    expect(after.json).toEqual(before.json);
  }

  const fullIds = (app: string, ids: DeviceIds) => ({ application_ids: { application_id: app }, ...ids });

  // ------------------------------------------------------------------------------------------
  describe.each(REGISTRIES)('%s registry: Set, Get, Delete', (c) => {
    const app = uid(`${c}-app`);
    beforeAll(() => createApplications(api, [app]));

    it('PUT creates the device; Get answers the ids and the masked paths only', async () => {
      const dev = uid('dev');
      const ids = otaaIds(dev);
      const s = sampleDevice(c, ids);
      const set = await reg.setOk(c, app, dev, s.device, s.paths);
      expect(set.json.ids).toEqual(expect.objectContaining({ device_id: dev, application_ids: { application_id: app } }));
      const got = await reg.getOk(c, app, dev, s.paths);
      expect(got.json).toEqual({ ids: fullIds(app, ids), ...s.expected });
    });

    it('Get without a field mask answers only the ids (every stored identifier)', async () => {
      const dev = uid('dev');
      const ids = otaaIds(dev);
      const s = sampleDevice(c, ids);
      await reg.setOk(c, app, dev, s.device, s.paths);
      const got = await reg.getOk(c, app, dev);
      expect(got.json).toEqual({ ids: fullIds(app, ids) });
    });

    it('POST to …/devices with the device ID in the body creates the device', async () => {
      const dev = uid('dev');
      const ids = otaaIds(dev);
      const s = sampleDevice(c, ids);
      await reg.setOk(c, app, dev, s.device, s.paths, { post: true });
      const got = await reg.getOk(c, app, dev, s.paths);
      expect(got.json).toEqual({ ids: fullIds(app, ids), ...s.expected });
    });

    it('accepts the field mask as the string "a,b" (create and update)', async () => {
      const dev = uid('dev');
      const ids = otaaIds(dev);
      const s = sampleDevice(c, ids);
      const u = sampleUpdate(c);
      await reg.setOk(c, app, dev, s.device, s.paths, { stringMask: true });
      await reg.setOk(c, app, dev, { ids, ...u.device }, u.paths, { stringMask: true });
      const got = await reg.getOk(c, app, dev, [...new Set([...s.paths, ...u.paths])]);
      expect(got.json).toEqual({ ids: fullIds(app, ids), ...s.expected, ...u.expected });
    });

    it('Set on an existing device updates it (upsert); a second identical Set is fine', async () => {
      const dev = uid('dev');
      const ids = otaaIds(dev);
      const s = sampleDevice(c, ids);
      await reg.setOk(c, app, dev, s.device, s.paths);
      await reg.setOk(c, app, dev, s.device, s.paths);
      const u = sampleUpdate(c);
      await reg.setOk(c, app, dev, { ids, ...u.device }, u.paths);
      const got = await reg.getOk(c, app, dev, [...new Set([...s.paths, ...u.paths])]);
      expect(got.json).toEqual({ ids: fullIds(app, ids), ...s.expected, ...u.expected });
    });

    it('path identifiers win over the body (body device_id and application_id are ignored)', async () => {
      const dev = uid('dev');
      const other = uid('other');
      const otherApp = uid('other-app');
      const ids = otaaIds(dev);
      const s = sampleDevice(c, ids);
      const body = { ...s.device, ids: { ...ids, device_id: other, application_ids: { application_id: otherApp } } };
      const set = await reg.setOk(c, app, dev, body, s.paths);
      expect(set.json.ids.device_id).toBe(dev);
      expect(set.json.ids.application_ids).toEqual({ application_id: app });
      const got = await reg.getOk(c, app, dev, s.paths);
      expect(got.json).toEqual({ ids: fullIds(app, ids), ...s.expected });
      await expectNotFound(c, app, other);
      await expectNotFound(c, otherApp, other);
      await expectNotFound(c, otherApp, dev);
    });

    it('identifiers cannot change: another ids.dev_eui or ids.join_eui → 400 read_only_field; nothing changes', async () => {
      const dev = uid('dev');
      const ids = otaaIds(dev);
      const s = sampleDevice(c, ids);
      await reg.setOk(c, app, dev, s.device, s.paths);
      for (const field of ['dev_eui', 'join_eui'] as const) {
        await expectRefusedAndUnchanged(
          c,
          app,
          dev,
          s.paths,
          () => reg.set(c, app, dev, { ...s.device, ids: { ...ids, [field]: randomEui() } }, s.paths),
          (res) => {
            const details = expectTtsError(res, 400, 3, NAMESPACE[c], 'read_only_field');
            expect(String(details.attributes?.field)).toContain(field);
          },
        );
      }
      const got = await reg.getOk(c, app, dev);
      expect(got.json.ids).toEqual(fullIds(app, ids));
    });

    it('Get and Delete of an unknown device → 404 device_not_found', async () => {
      const dev = uid('ghost');
      await expectNotFound(c, app, dev);
      expectTtsError(await reg.delete(c, app, dev), 404, 5, NAMESPACE[c], 'device_not_found');
      await expectNotFound(c, uid('ghost-app'), dev);
    });

    it('Delete answers 200 {}; then Get and Delete → 404; the ID and EUIs can be registered again', async () => {
      const dev = uid('dev');
      const ids = otaaIds(dev);
      const s = sampleDevice(c, ids);
      await reg.setOk(c, app, dev, s.device, s.paths);
      await reg.deleteOk(c, app, dev);
      await expectNotFound(c, app, dev);
      expectTtsError(await reg.delete(c, app, dev), 404, 5, NAMESPACE[c], 'device_not_found');
      await reg.setOk(c, app, dev, s.device, s.paths);
      const got = await reg.getOk(c, app, dev, s.paths);
      expect(got.json).toEqual({ ids: fullIds(app, ids), ...s.expected });
    });

    it('the same device ID in another application is another device', async () => {
      const dev = uid('dev');
      const app2 = uid(`${c}-app2`);
      await createApplications(api, [app2]);
      const ids1 = otaaIds(dev);
      const ids2 = otaaIds(dev);
      await reg.setOk(c, app, dev, sampleDevice(c, ids1).device, sampleDevice(c, ids1).paths);
      await reg.setOk(c, app2, dev, sampleDevice(c, ids2).device, sampleDevice(c, ids2).paths);
      expect((await reg.getOk(c, app, dev)).json.ids).toEqual(fullIds(app, ids1));
      expect((await reg.getOk(c, app2, dev)).json.ids).toEqual(fullIds(app2, ids2));
      await reg.deleteOk(c, app2, dev);
      await expectNotFound(c, app2, dev);
      expect((await reg.getOk(c, app, dev)).json.ids).toEqual(fullIds(app, ids1));
    });

    it(`Set with forbidden paths (${FORBIDDEN_SET[c].path}, ids.dev_addr) → 400 field_mask_paths; nothing stored`, async () => {
      const dev = uid('dev');
      const ids = otaaIds(dev);
      const s = sampleDevice(c, ids);
      const res = await reg.set(c, app, dev, { ...s.device, ...FORBIDDEN_SET[c].device, ids: { ...ids, dev_addr: '01020304' } }, [
        ...s.paths,
        FORBIDDEN_SET[c].path,
        'ids.dev_addr',
      ]);
      const details = expectTtsError(res, 400, 3, 'pkg/rpcmiddleware/validator', 'field_mask_paths');
      expect([...(details.attributes?.forbidden_paths as string[])].sort()).toEqual([FORBIDDEN_SET[c].path, 'ids.dev_addr'].sort());
      await expectNotFound(c, app, dev);
    });

    it(`Get with a forbidden path (${FORBIDDEN_GET[c]}) → 400 field_mask_paths`, async () => {
      const dev = uid('dev');
      const s = sampleDevice(c, otaaIds(dev));
      await reg.setOk(c, app, dev, s.device, s.paths);
      const res = await reg.get(c, app, dev, [s.paths[0], FORBIDDEN_GET[c]]);
      const details = expectTtsError(res, 400, 3, 'pkg/rpcmiddleware/validator', 'field_mask_paths');
      expect(details.attributes?.forbidden_paths).toEqual([FORBIDDEN_GET[c]]);
    });

    it('without valid credentials → 401 (400 for a malformed token) and nothing stored', async () => {
      const dev = uid('dev');
      const s = sampleDevice(c, otaaIds(dev));
      const body = { end_device: { ...s.device, ids: { device_id: dev, ...s.device.ids } }, field_mask: { paths: s.paths } };
      const none = await api.put(registryDevicePath(c, app, dev), body, { headers: {} });
      expect(none.status).toBe(401);
      const malformed = await api.put(registryDevicePath(c, app, dev), body, { headers: { authorization: 'Bearer wrong.key.value' } });
      expectTtsError(malformed, 400, 3, 'pkg/auth', 'token');
      const unknown = await api.put(registryDevicePath(c, app, dev), body, { headers: { authorization: `Bearer NNSXS.${'A'.repeat(39)}.${'B'.repeat(52)}` } });
      expectTtsError(unknown, 401, 16, 'pkg/identityserver', 'api_key_not_found');
      expect((await api.get(registryDevicePath(c, app, dev), { headers: {} })).status).toBe(401);
      await expectNotFound(c, app, dev);
    });
  });

  // ------------------------------------------------------------------------------------------
  describe('Join Server', () => {
    const app = uid('js-app');
    beforeAll(() => createApplications(api, [app]));

    it('an empty field mask creates the device with its identifiers only', async () => {
      const dev = uid('dev');
      const ids = otaaIds(dev);
      await reg.setOk('js', app, dev, { ids, net_id: '000013' }, []);
      const got = await reg.getOk('js', app, dev, ['net_id', 'root_keys']);
      expect(got.json.ids).toEqual(fullIds(app, ids));
      expectUnset(got.json.net_id, 'net_id (not in the mask)');
      expectUnset(got.json.root_keys, 'root_keys');
    });

    it('ids.join_eui is required → 400 no_join_eui (nothing stored); the zero JoinEUI is allowed', async () => {
      const dev = uid('dev');
      const devEui = randomEui();
      const res = await reg.set('js', app, dev, { ids: { device_id: dev, dev_eui: devEui }, network_server_address: 'ns.example.com' }, [
        'network_server_address',
      ]);
      expectTtsError(res, 400, 3, 'pkg/joinserver', 'no_join_eui');
      await expectNotFound('js', app, dev);
      await reg.setOk('js', app, dev, { ids: { device_id: dev, dev_eui: devEui, join_eui: ZERO_EUI } }, []);
      const got = await reg.getOk('js', app, dev);
      expect(got.json.ids).toEqual(fullIds(app, { device_id: dev, dev_eui: devEui, join_eui: ZERO_EUI }));
    });

    it('a missing or zero ids.dev_eui → 400 no_dev_eui; nothing stored', async () => {
      const dev = uid('dev');
      expectTtsError(await reg.set('js', app, dev, { ids: { device_id: dev, join_eui: randomEui() } }, []), 400, 3, 'pkg/joinserver', 'no_dev_eui');
      expectTtsError(
        await reg.set('js', app, dev, { ids: { device_id: dev, join_eui: randomEui(), dev_eui: ZERO_EUI } }, []),
        400,
        3,
        'pkg/joinserver',
        'no_dev_eui',
      );
      await expectNotFound('js', app, dev);
    });

    it('an all-zero root key → 400 field_value: nothing stored on create, nothing changed on update', async () => {
      const dev = uid('dev');
      const ids = otaaIds(dev);
      for (const key of ['app_key', 'nwk_key']) {
        const res = await reg.set('js', app, dev, { ids, root_keys: { [key]: { key: ZERO_KEY } } }, [`root_keys.${key}.key`]);
        expectTtsError(res, 400, 3, 'pkg/joinserver', 'field_value');
      }
      await expectNotFound('js', app, dev);
      const appKey = randomKey();
      await reg.setOk('js', app, dev, { ids, root_keys: { app_key: { key: appKey } } }, ['root_keys.app_key.key']);
      await expectRefusedAndUnchanged(
        'js',
        app,
        dev,
        ['root_keys'],
        () => reg.set('js', app, dev, { ids, root_keys: { app_key: { key: ZERO_KEY } } }, ['root_keys.app_key.key']),
        (res) => expectTtsError(res, 400, 3, 'pkg/joinserver', 'field_value'),
      );
      expect((await reg.getOk('js', app, dev, ['root_keys.app_key.key'])).json.root_keys).toEqual({ app_key: { key: appKey } });
    });

    it('a second device with the same JoinEUI and DevEUI → 409 end_device_euis_taken; nothing stored', async () => {
      const first = uid('dev');
      const ids = otaaIds(first);
      await reg.setOk('js', app, first, { ids }, []);
      const app2 = uid('js-app');
      await createApplications(api, [app2]);
      for (const [otherApp, other] of [
        [app, uid('dev')],
        [app2, uid('dev')],
      ]) {
        const res = await reg.set('js', otherApp, other, { ids: { ...ids, device_id: other, dev_eui: hexToBase64(ids.dev_eui as string) } }, []);
        expectTtsError(res, 409, 6, 'pkg/internal/registry', 'end_device_euis_taken', { join_eui: ids.join_eui, dev_eui: ids.dev_eui });
        await expectNotFound('js', otherApp, other);
      }
      expect((await reg.getOk('js', app, first)).json.ids).toEqual(fullIds(app, ids));
    });

    it('an update changes only the masked paths; a masked path absent from the body is cleared', async () => {
      const dev = uid('dev');
      const ids = otaaIds(dev);
      const s = sampleDevice('js', ids);
      await reg.setOk('js', app, dev, s.device, s.paths);
      await reg.setOk('js', app, dev, { ids, application_server_id: 'as-2', application_server_address: 'not.masked.example.com' }, [
        'network_server_address',
        'application_server_id',
      ]);
      const got = await reg.getOk('js', app, dev, [...s.paths, 'application_server_id']);
      expectUnset(got.json.network_server_address, 'network_server_address (masked, absent from the body)');
      expect(got.json).toEqual(
        expect.objectContaining({
          ids: fullIds(app, ids),
          application_server_id: 'as-2',
          application_server_address: 'as.example.com:8884',
          net_id: '000013',
          resets_join_nonces: true,
        }),
      );
    });

    it('invalid values → 400 validation naming the field; nothing stored, nothing changed', async () => {
      const dev = uid('dev');
      const ids = otaaIds(dev);
      const cases: Array<[Record<string, unknown>, string[], string | RegExp]> = [
        [{ provisioner_id: 'UPPER' }, ['provisioner_id'], 'provisioner_id'],
        // Neither 3 bytes of hex nor of base64 ('ABCD' would be valid base64 for 3 bytes).
        [{ net_id: '01020304' }, ['net_id'], 'net_id'],
        [{ root_keys: { app_key: { key: 'ABCDEF' } } }, ['root_keys.app_key.key'], 'key'],
        [{ application_server_address: 'http://as.example.com' }, ['application_server_address'], 'application_server_address'],
      ];
      for (const [fields, paths, field] of cases) expectValidationError(await reg.set('js', app, dev, { ids, ...fields }, paths), field);
      await expectNotFound('js', app, dev);
      const s = sampleDevice('js', ids);
      await reg.setOk('js', app, dev, s.device, s.paths);
      for (const [fields, paths, field] of cases) {
        await expectRefusedAndUnchanged(
          'js',
          app,
          dev,
          [...s.paths, 'provisioner_id', 'root_keys'],
          () => reg.set('js', app, dev, { ids, ...fields }, paths),
          (res) => void expectValidationError(res, field),
        );
      }
    });
  });

  // ------------------------------------------------------------------------------------------
  describe('Network Server', () => {
    const app = uid('ns-app');
    beforeAll(() => createApplications(api, [app]));

    it('JSON: camelCase, base64 / lower-case hex, numbers as strings, enum names and numbers, wrapper {"value"} in; canonical JSON out', async () => {
      const dev = uid('dev');
      const devEui = randomEui();
      const joinEui = randomEui();
      const paths = ['frequency_plan_id', 'lorawan_version', 'lorawan_phy_version', 'supports_join', 'min_frequency', 'max_frequency', 'mac_settings'];
      const res = await api.put(registryDevicePath('ns', app, dev), {
        endDevice: {
          ids: { deviceId: dev, devEui: hexToBase64(devEui), joinEui: joinEui.toLowerCase() },
          frequencyPlanId: 'EU_863_870',
          lorawanVersion: 5,
          lorawanPhyVersion: 'PHY_V1_0_3_REV_A',
          supportsJoin: true,
          minFrequency: 863000000,
          maxFrequency: '870000000',
          macSettings: {
            rx1Delay: 'RX_DELAY_5',
            rx1DataRateOffset: '2',
            rx2DataRateIndex: 'DATA_RATE_3',
            rx2Frequency: 869525000,
            useAdr: true,
            adrMargin: 15,
            desiredRx1Delay: { value: 3 },
            statusCountPeriodicity: '200',
          },
        },
        fieldMask: { paths },
      });
      expectOk(res, 'NS Set (camelCase)');
      const got = await reg.getOk('ns', app, dev, paths);
      expect(got.json).toEqual({
        ids: fullIds(app, { device_id: dev, dev_eui: devEui, join_eui: joinEui }),
        frequency_plan_id: 'EU_863_870',
        lorawan_version: 'MAC_V1_0_3',
        lorawan_phy_version: 'PHY_V1_0_3_REV_A',
        supports_join: true,
        min_frequency: '863000000',
        max_frequency: '870000000',
        mac_settings: {
          rx1_delay: 5,
          rx1_data_rate_offset: 2,
          rx2_data_rate_index: 3,
          rx2_frequency: '869525000',
          use_adr: true,
          adr_margin: 15,
          desired_rx1_delay: 3,
          status_count_periodicity: 200,
        },
      });
      const sub = await reg.getOk('ns', app, dev, ['mac_settings.rx1_delay', 'mac_settings.rx2_frequency']);
      expect(sub.json).toEqual({ ids: got.json.ids, mac_settings: { rx1_delay: 5, rx2_frequency: '869525000' } });
    });

    it('wrapper ".value" paths are aliases of the wrapper field (Set and Get)', async () => {
      const dev = uid('dev');
      const ids = otaaIds(dev);
      await reg.setOk('ns', app, dev, { ids, ...NS_OTAA, mac_settings: { rx1_delay: 5, use_adr: true } }, [
        ...NS_OTAA_PATHS,
        'mac_settings.rx1_delay.value',
        'mac_settings.use_adr.value',
      ]);
      const got = await reg.getOk('ns', app, dev, ['mac_settings.rx1_delay']);
      expect(got.json.mac_settings).toEqual({ rx1_delay: 5 });
      const viaValue = await reg.getOk('ns', app, dev, ['mac_settings.rx1_delay.value', 'mac_settings.use_adr.value']);
      expect(viaValue.json.mac_settings).toEqual({ rx1_delay: 5, use_adr: true });
    });

    it('created_at / updated_at only when masked; an update keeps created_at and advances updated_at', async () => {
      const dev = uid('dev');
      const ids = otaaIds(dev);
      const s = sampleDevice('ns', ids);
      await reg.setOk('ns', app, dev, s.device, s.paths);
      const plain = await reg.getOk('ns', app, dev, ['frequency_plan_id']);
      expect(topLevel(plain)).toEqual(['frequency_plan_id', 'ids']);
      const times = await reg.getOk('ns', app, dev, ['created_at', 'updated_at']);
      expect(topLevel(times)).toEqual(['created_at', 'ids', 'updated_at']);
      expect(times.json.created_at).toMatch(RFC3339);
      expect(times.json.updated_at).toMatch(RFC3339);
      expect(Date.parse(times.json.updated_at)).toBeGreaterThanOrEqual(Date.parse(times.json.created_at));
      expect(Math.abs(Date.parse(times.json.created_at) - Date.now())).toBeLessThan(5 * 60_000);
      await sleep(10);
      await reg.setOk('ns', app, dev, { ids, frequency_plan_id: 'EU_863_870_TTN' }, ['frequency_plan_id']);
      const after = await reg.getOk('ns', app, dev, ['created_at', 'updated_at', 'frequency_plan_id']);
      expect(after.json.created_at).toBe(times.json.created_at);
      expect(Date.parse(after.json.updated_at)).toBeGreaterThan(Date.parse(times.json.updated_at));
      expect(after.json.frequency_plan_id).toBe('EU_863_870_TTN');
    });

    it('an update changes only the masked paths; a masked path absent from the body is cleared', async () => {
      const dev = uid('dev');
      const ids = otaaIds(dev);
      await reg.setOk('ns', app, dev, { ids, ...NS_OTAA, mac_settings: { rx1_delay: 5, use_adr: true, rx2_frequency: '869525000' } }, [
        ...NS_OTAA_PATHS,
        'mac_settings.rx1_delay',
        'mac_settings.use_adr',
        'mac_settings.rx2_frequency',
      ]);
      await reg.setOk('ns', app, dev, { ids, mac_settings: { use_adr: false, rx2_frequency: '869100000' }, frequency_plan_id: 'EU_863_870_TTN' }, [
        'mac_settings.rx1_delay',
        'mac_settings.rx2_frequency',
      ]);
      const got = await reg.getOk('ns', app, dev, [...NS_OTAA_PATHS, 'mac_settings']);
      expectUnset(got.json.mac_settings?.rx1_delay, 'mac_settings.rx1_delay (masked, absent from the body)');
      expect(got.json.mac_settings).toEqual(expect.objectContaining({ use_adr: true, rx2_frequency: '869100000' }));
      expect(got.json).toEqual(expect.objectContaining({ ids: fullIds(app, ids), ...NS_OTAA }));
      await reg.setOk('ns', app, dev, { ids }, ['mac_settings']);
      expectUnset((await reg.getOk('ns', app, dev, ['mac_settings'])).json.mac_settings, 'mac_settings (masked, absent from the body)');
    });

    it('an update whose body ids carry only the device ID keeps the stored EUIs', async () => {
      const dev = uid('dev');
      const ids = otaaIds(dev);
      const s = sampleDevice('ns', ids);
      await reg.setOk('ns', app, dev, s.device, s.paths);
      await reg.setOk('ns', app, dev, { ids: { device_id: dev }, supports_class_c: true }, ['supports_class_c']);
      const got = await reg.getOk('ns', app, dev, ['supports_class_c']);
      expect(got.json).toEqual({ ids: fullIds(app, ids), supports_class_c: true });
    });

    it('the catalogue frequency plans EU_863_870, EU_863_870_TTN and US_902_928_FSB_2 are accepted', async () => {
      for (const plan of ['EU_863_870', 'EU_863_870_TTN', 'US_902_928_FSB_2']) {
        const dev = uid('dev');
        await reg.setOk('ns', app, dev, { ids: otaaIds(dev), ...NS_OTAA, frequency_plan_id: plan }, NS_OTAA_PATHS);
        expect((await reg.getOk('ns', app, dev, ['frequency_plan_id'])).json.frequency_plan_id).toBe(plan);
      }
    });

    it('an unknown frequency plan → 400 field_value naming frequency_plan_id: nothing stored, nothing changed', async () => {
      const dev = uid('dev');
      const ids = otaaIds(dev);
      const res = await reg.set('ns', app, dev, { ids, ...NS_OTAA, frequency_plan_id: 'MARS_1' }, NS_OTAA_PATHS);
      expectTtsError(res, 400, 3, 'pkg/networkserver', 'field_value', { field: 'frequency_plan_id' });
      await expectNotFound('ns', app, dev);
      await reg.setOk('ns', app, dev, { ids, ...NS_OTAA }, NS_OTAA_PATHS);
      const paths = [...NS_OTAA_PATHS, 'updated_at'];
      for (const frequency_plan_id of ['MARS_1', undefined]) {
        await expectRefusedAndUnchanged(
          'ns',
          app,
          dev,
          paths,
          () => reg.set('ns', app, dev, { ids, frequency_plan_id }, ['frequency_plan_id']),
          (r) => void expectTtsError(r, 400, 3, 'pkg/networkserver', 'field_value', { field: 'frequency_plan_id' }),
        );
      }
    });

    it('lorawan_version / lorawan_phy_version missing or *_UNKNOWN → 400 field_value: nothing stored, nothing changed', async () => {
      const dev = uid('dev');
      const ids = otaaIds(dev);
      const withoutMac = { ...NS_OTAA, lorawan_version: undefined };
      const withoutPhy = { ...NS_OTAA, lorawan_phy_version: undefined };
      const bodies = [withoutMac, withoutPhy, { ...NS_OTAA, lorawan_version: 'MAC_UNKNOWN' }, { ...NS_OTAA, lorawan_phy_version: 'PHY_UNKNOWN' }];
      for (const body of bodies) {
        const res = await reg.set('ns', app, dev, { ids, ...body }, NS_OTAA_PATHS);
        expectTtsError(res, 400, 3, 'pkg/networkserver', 'field_value');
      }
      await expectNotFound('ns', app, dev);
      await reg.setOk('ns', app, dev, { ids, ...NS_OTAA }, NS_OTAA_PATHS);
      for (const path of ['lorawan_version', 'lorawan_phy_version']) {
        await expectRefusedAndUnchanged(
          'ns',
          app,
          dev,
          [...NS_OTAA_PATHS, 'updated_at'],
          () => reg.set('ns', app, dev, { ids }, [path]),
          (r) => void expectTtsError(r, 400, 3, 'pkg/networkserver', 'field_value'),
        );
      }
    });

    it('OTAA needs ids.dev_eui and ids.join_eui → else 400 field_value; nothing stored', async () => {
      const dev = uid('dev');
      const ids = otaaIds(dev);
      expectTtsError(
        await reg.set('ns', app, dev, { ids: { device_id: dev, join_eui: ids.join_eui }, ...NS_OTAA }, NS_OTAA_PATHS),
        400,
        3,
        'pkg/networkserver',
        'field_value',
      );
      expectTtsError(
        await reg.set('ns', app, dev, { ids: { device_id: dev, dev_eui: ids.dev_eui }, ...NS_OTAA }, NS_OTAA_PATHS),
        400,
        3,
        'pkg/networkserver',
        'field_value',
      );
      await expectNotFound('ns', app, dev);
    });

    it('ABP needs session.dev_addr and the FNwkSIntKey → else 400 field_value; nothing stored', async () => {
      const dev = uid('dev');
      const ids = { device_id: dev, dev_eui: randomEui() };
      const abp = abpNsDevice(ids, randomDevAddr(), randomKey());
      const session = abp.device.session as { dev_addr: string; keys: Record<string, unknown> };
      const cases: Array<[Record<string, unknown>, string[]]> = [
        // No session at all (supports_join false or absent).
        [{ ...abp.device, session: undefined }, abp.paths.filter((p) => !p.startsWith('session'))],
        [{ ...abp.device, session: undefined, supports_join: undefined }, abp.paths.filter((p) => !p.startsWith('session') && p !== 'supports_join')],
        // A session without DevAddr, or without FNwkSIntKey.
        [{ ...abp.device, session: { keys: session.keys } }, abp.paths],
        [{ ...abp.device, session: { dev_addr: session.dev_addr, keys: { session_key_id: 'AQID' } } }, abp.paths],
        [{ ...abp.device, session: { ...session, dev_addr: ZERO_DEV_ADDR } }, abp.paths],
      ];
      for (const [device, paths] of cases) {
        const res = await reg.set('ns', app, dev, device, paths);
        expectTtsError(res, 400, 3, 'pkg/networkserver', 'field_value');
      }
      await expectNotFound('ns', app, dev);
    });

    it('ABP with MAC_V1_1 also needs SNwkSIntKey and NwkSEncKey', async () => {
      const dev = uid('dev');
      const ids = { device_id: dev, dev_eui: randomEui() };
      const [f, s, n] = [randomKey(), randomKey(), randomKey()];
      const abp = abpNsDevice(ids, randomDevAddr(), f);
      const v11 = { ...abp.device, lorawan_version: 'MAC_V1_1', lorawan_phy_version: 'PHY_V1_1_REV_B' };
      const session = abp.device.session as { dev_addr: string; keys: Record<string, unknown> };
      const res = await reg.set('ns', app, dev, v11, abp.paths);
      expectTtsError(res, 400, 3, 'pkg/networkserver', 'field_value');
      const onlyS = { ...v11, session: { ...session, keys: { ...session.keys, s_nwk_s_int_key: { key: s } } } };
      expectTtsError(await reg.set('ns', app, dev, onlyS, [...abp.paths, 'session.keys.s_nwk_s_int_key.key']), 400, 3, 'pkg/networkserver', 'field_value');
      await expectNotFound('ns', app, dev);
      const all = { ...v11, session: { ...session, keys: { ...session.keys, s_nwk_s_int_key: { key: s }, nwk_s_enc_key: { key: n } } } };
      await reg.setOk('ns', app, dev, all, [...abp.paths, 'session.keys.s_nwk_s_int_key.key', 'session.keys.nwk_s_enc_key.key']);
      const got = await reg.getOk('ns', app, dev, ['session.keys']);
      expect(got.json.session.keys).toEqual({ session_key_id: 'AQID', f_nwk_s_int_key: { key: f }, s_nwk_s_int_key: { key: s }, nwk_s_enc_key: { key: n } });
    });

    it('ABP create builds a CLASS_A mac_state, copies the FNwkSIntKey (MAC < 1.1); ids.dev_addr follows session.dev_addr', async () => {
      const dev = uid('dev');
      const devEui = randomEui();
      const devAddr = randomDevAddr();
      const f = randomKey();
      const abp = abpNsDevice({ device_id: dev, dev_eui: devEui }, devAddr.toLowerCase(), f.toLowerCase());
      await reg.setOk('ns', app, dev, abp.device, abp.paths);
      const state = await reg.getOk('ns', app, dev, ['mac_state.device_class']);
      expect(state.json.mac_state).toEqual({ device_class: 'CLASS_A' });
      const got = await reg.getOk('ns', app, dev, ['session.dev_addr', 'session.keys']);
      expect(got.json.ids).toEqual(fullIds(app, { device_id: dev, dev_eui: devEui, dev_addr: devAddr }));
      expect(got.json.session.dev_addr).toBe(devAddr);
      expect(got.json.session.keys).toEqual({ session_key_id: 'AQID', f_nwk_s_int_key: { key: f }, s_nwk_s_int_key: { key: f }, nwk_s_enc_key: { key: f } });

      // A new session.dev_addr moves ids.dev_addr with it.
      const newAddr = randomDevAddr();
      await reg.setOk('ns', app, dev, { ids: { device_id: dev, dev_eui: devEui }, session: { dev_addr: newAddr, keys: {} } }, ['session.dev_addr']);
      const moved = await reg.getOk('ns', app, dev, ['session.dev_addr']);
      expect(moved.json.ids.dev_addr).toBe(newAddr);
      expect(moved.json.session).toEqual({ dev_addr: newAddr });
      expect((await reg.getOk('ns', app, dev, [], { 'end_device_ids.dev_addr': newAddr })).json.ids.dev_addr).toBe(newAddr);
      await expectNotFound('ns', app, dev, { 'end_device_ids.dev_addr': devAddr });
    });

    it('a second device with the same JoinEUI and DevEUI → 409 end_device_euis_taken; nothing stored', async () => {
      const first = uid('dev');
      const ids = otaaIds(first);
      await reg.setOk('ns', app, first, { ids, ...NS_OTAA }, NS_OTAA_PATHS);
      const app2 = uid('ns-app');
      await createApplications(api, [app2]);
      for (const [otherApp, other] of [
        [app, uid('dev')],
        [app2, uid('dev')],
      ]) {
        const res = await reg.set(
          'ns',
          otherApp,
          other,
          { ids: { ...ids, device_id: other, join_eui: (ids.join_eui as string).toLowerCase() }, ...NS_OTAA },
          NS_OTAA_PATHS,
        );
        expectTtsError(res, 409, 6, 'pkg/internal/registry', 'end_device_euis_taken', { join_eui: ids.join_eui, dev_eui: ids.dev_eui });
        await expectNotFound('ns', otherApp, other);
      }
    });

    it('invalid values → 400 validation naming the field; nothing stored, nothing changed', async () => {
      const dev = uid('dev');
      const ids = otaaIds(dev);
      const cases: Array<[Record<string, unknown>, string[], string | RegExp]> = [
        [{ mac_settings: { rx1_data_rate_offset: 8 } }, ['mac_settings.rx1_data_rate_offset'], 'rx1_data_rate_offset'],
        [{ battery_percentage: 2 }, ['battery_percentage'], 'battery_percentage'],
        [{ mac_settings: { rx2_frequency: '99999' } }, ['mac_settings.rx2_frequency'], 'rx2_frequency'],
        [{ lorawan_version: 'MAC_V9' }, ['lorawan_version'], 'lorawan_version'],
        [{ frequency_plan_id: 'X'.repeat(65) }, ['frequency_plan_id'], 'frequency_plan_id'],
      ];
      for (const [fields, paths, field] of cases) {
        expectValidationError(await reg.set('ns', app, dev, { ids, ...NS_OTAA, ...fields }, [...NS_OTAA_PATHS, ...paths]), field);
      }
      await expectNotFound('ns', app, dev);
      await reg.setOk('ns', app, dev, { ids, ...NS_OTAA, mac_settings: { rx1_data_rate_offset: 1, rx2_frequency: '869525000' }, battery_percentage: 0.5 }, [
        ...NS_OTAA_PATHS,
        'mac_settings.rx1_data_rate_offset',
        'mac_settings.rx2_frequency',
        'battery_percentage',
      ]);
      for (const [fields, paths, field] of cases) {
        await expectRefusedAndUnchanged(
          'ns',
          app,
          dev,
          [...NS_OTAA_PATHS, 'mac_settings', 'battery_percentage', 'updated_at'],
          () => reg.set('ns', app, dev, { ids, ...fields }, paths),
          (res) => void expectValidationError(res, field),
        );
      }
    });
  });

  // ------------------------------------------------------------------------------------------
  describe('Application Server', () => {
    const app = uid('as-app');
    beforeAll(() => createApplications(api, [app]));

    it('ABP session: stored with its keys; ids.dev_addr follows session.dev_addr (create and update)', async () => {
      const dev = uid('dev');
      const ids = { device_id: dev, dev_eui: randomEui(), join_eui: randomEui() };
      const devAddr = randomDevAddr();
      const appSKey = randomKey();
      const abp = abpAsDevice(ids, hexToBase64(devAddr), hexToBase64(appSKey));
      await reg.setOk('as', app, dev, abp.device, abp.paths);
      const got = await reg.getOk('as', app, dev, ['session']);
      expect(got.json.ids).toEqual(fullIds(app, { ...ids, dev_addr: devAddr }));
      expect(got.json.session).toEqual(expect.objectContaining({ dev_addr: devAddr, keys: { session_key_id: 'AQID', app_s_key: { key: appSKey } } }));
      const newAddr = randomDevAddr();
      await reg.setOk('as', app, dev, { ids, session: { dev_addr: newAddr, keys: {} } }, ['session.dev_addr']);
      const moved = await reg.getOk('as', app, dev, ['session.dev_addr', 'session.keys.app_s_key.key']);
      expect(moved.json.ids.dev_addr).toBe(newAddr);
      expect(moved.json.session).toEqual({ dev_addr: newAddr, keys: { app_s_key: { key: appSKey } } });
    });

    it('a zero session.dev_addr or a zero AppSKey → 400 field_value: nothing stored, nothing changed', async () => {
      const dev = uid('dev');
      const ids = otaaIds(dev);
      const zeroAddr = abpAsDevice(ids, ZERO_DEV_ADDR, randomKey());
      expectTtsError(await reg.set('as', app, dev, zeroAddr.device, zeroAddr.paths), 400, 3, 'pkg/applicationserver', 'field_value');
      const zeroKey = abpAsDevice(ids, randomDevAddr(), ZERO_KEY);
      expectTtsError(await reg.set('as', app, dev, zeroKey.device, zeroKey.paths), 400, 3, 'pkg/applicationserver', 'field_value');
      await expectNotFound('as', app, dev);
      const ok = abpAsDevice(ids, randomDevAddr(), randomKey());
      await reg.setOk('as', app, dev, ok.device, ok.paths);
      const bad: Array<[Record<string, unknown>, string[]]> = [
        [{ session: { dev_addr: ZERO_DEV_ADDR, keys: {} } }, ['session.dev_addr']],
        [{ session: { keys: { app_s_key: { key: ZERO_KEY } } } }, ['session.keys.app_s_key.key']],
      ];
      for (const [fields, paths] of bad) {
        await expectRefusedAndUnchanged(
          'as',
          app,
          dev,
          ['session'],
          () => reg.set('as', app, dev, { ids, ...fields }, paths),
          (res) => void expectTtsError(res, 400, 3, 'pkg/applicationserver', 'field_value'),
        );
      }
    });

    it('queued_application_downlinks always equals session.queued_application_downlinks', async () => {
      const dev = uid('dev');
      const ids = otaaIds(dev);
      const abp = abpAsDevice(ids, randomDevAddr(), randomKey());
      await reg.setOk('as', app, dev, abp.device, abp.paths);
      const item = { session_key_id: 'AQID', f_port: 1, f_cnt: 1, frm_payload: 'AQID' };
      await reg.setOk('as', app, dev, { ids, session: { keys: {}, queued_application_downlinks: [item] } }, ['session.queued_application_downlinks']);
      const both = await reg.getOk('as', app, dev, ['queued_application_downlinks', 'session.queued_application_downlinks']);
      expect(both.json.queued_application_downlinks).toEqual([expect.objectContaining(item)]);
      expect(both.json.queued_application_downlinks).toEqual(both.json.session?.queued_application_downlinks);
      const top = await reg.getOk('as', app, dev, ['queued_application_downlinks']);
      expect(top.json.queued_application_downlinks).toEqual(both.json.queued_application_downlinks);
      const inSession = await reg.getOk('as', app, dev, ['session.queued_application_downlinks']);
      expect(inSession.json.session.queued_application_downlinks).toEqual(both.json.queued_application_downlinks);
      // The session itself is untouched by the queue update.
      const session = await reg.getOk('as', app, dev, ['session.dev_addr', 'session.keys']);
      expect(session.json.session).toEqual(abp.device.session);
    });

    it('an update changes only the masked paths; a masked path absent from the body is cleared', async () => {
      const dev = uid('dev');
      const ids = otaaIds(dev);
      const s = sampleDevice('as', ids);
      await reg.setOk('as', app, dev, { ...s.device, skip_payload_crypto: true }, [...s.paths, 'skip_payload_crypto']);
      await reg.setOk('as', app, dev, { ids, formatters: { up_formatter: 'FORMATTER_NONE' }, skip_payload_crypto: false }, ['formatters.down_formatter']);
      const got = await reg.getOk('as', app, dev, ['formatters', 'skip_payload_crypto']);
      expectUnset(got.json.formatters?.down_formatter, 'formatters.down_formatter (masked, absent from the body)');
      expect(got.json.formatters?.up_formatter).toBe('FORMATTER_CAYENNELPP');
      expect(got.json.skip_payload_crypto).toBe(true);
    });

    it('an update whose body ids carry only the device ID keeps the stored EUIs', async () => {
      const dev = uid('dev');
      const ids = otaaIds(dev);
      const s = sampleDevice('as', ids);
      await reg.setOk('as', app, dev, s.device, s.paths);
      await reg.setOk('as', app, dev, { ids: { device_id: dev }, skip_payload_crypto: true }, ['skip_payload_crypto']);
      const got = await reg.getOk('as', app, dev, ['skip_payload_crypto']);
      expect(got.json).toEqual({ ids: fullIds(app, ids), skip_payload_crypto: true });
    });

    it('invalid values → 400 validation naming the field; nothing stored, nothing changed', async () => {
      const dev = uid('dev');
      const ids = otaaIds(dev);
      const cases: Array<[Record<string, unknown>, string[], string | RegExp]> = [
        [
          { formatters: { up_formatter: 'FORMATTER_JAVASCRIPT' } },
          ['formatters.up_formatter', 'formatters.up_formatter_parameter'],
          /^up_formatter(_parameter)?$/,
        ],
        [{ formatters: { down_formatter: 'FORMATTER_GRPC_SERVICE', down_formatter_parameter: '' } }, ['formatters'], /^down_formatter(_parameter)?$/],
        [{ formatters: { up_formatter: 'FORMATTER_NOPE' } }, ['formatters.up_formatter'], 'up_formatter'],
        // Neither 4 bytes of hex nor of base64 ('010203' would be valid unpadded base64 for 4 bytes).
        [{ session: { dev_addr: '0102030405', keys: {} } }, ['session.dev_addr'], 'dev_addr'],
      ];
      for (const [fields, paths, field] of cases) expectValidationError(await reg.set('as', app, dev, { ids, ...fields }, paths), field);
      await expectNotFound('as', app, dev);
      const s = sampleDevice('as', ids);
      await reg.setOk('as', app, dev, s.device, s.paths);
      for (const [fields, paths, field] of cases) {
        await expectRefusedAndUnchanged(
          'as',
          app,
          dev,
          ['formatters', 'session'],
          () => reg.set('as', app, dev, { ids, ...fields }, paths),
          (res) => void expectValidationError(res, field),
        );
      }
    });
  });

  // ------------------------------------------------------------------------------------------
  describe('Key material (stored wrapped with the KEK, read back in the clear)', () => {
    const app = uid('keys-app');
    beforeAll(() => createApplications(api, [app]));

    /** Get of `paths` that must (or must not) carry the keys; never wrapped envelopes. */
    async function read(c: Registry, dev: string, paths: string[], keys: string[], withKeys: boolean): Promise<ApiResponse> {
      const res = await reg.getOk(c, app, dev, paths);
      const what = `${c.toUpperCase()} Get [${paths.join(',')}]`;
      expectNoWrappedKeys(res, what);
      if (!withKeys) expectNoKeyMaterial(res, keys, what);
      return res;
    }

    it('JS: root keys only when root_keys, root_keys.<key> or root_keys.<key>.key is masked', async () => {
      const dev = uid('dev');
      const ids = otaaIds(dev);
      const appKey = randomKey();
      const nwkKey = randomKey();
      const set = await reg.setOk(
        'js',
        app,
        dev,
        {
          ids,
          network_server_address: 'ns.example.com',
          root_keys: { root_key_id: 'rk-1', app_key: { key: appKey.toLowerCase() }, nwk_key: { key: hexToBase64(nwkKey) } },
        },
        ['network_server_address', 'root_keys.root_key_id', 'root_keys.app_key.key', 'root_keys.nwk_key.key'],
      );
      expectNoWrappedKeys(set, 'JS Set');
      const keys = [appKey, nwkKey];
      expect((await read('js', dev, ['root_keys'], keys, true)).json.root_keys).toEqual({
        root_key_id: 'rk-1',
        app_key: { key: appKey },
        nwk_key: { key: nwkKey },
      });
      expect((await read('js', dev, ['root_keys.app_key'], keys, true)).json.root_keys).toEqual({ app_key: { key: appKey } });
      expect((await read('js', dev, ['root_keys.nwk_key.key'], keys, true)).json.root_keys).toEqual({ nwk_key: { key: nwkKey } });
      expect((await read('js', dev, ['root_keys.root_key_id'], keys, false)).json.root_keys).toEqual({ root_key_id: 'rk-1' });
      expect((await read('js', dev, ['network_server_address', 'ids'], keys, false)).json).toEqual({
        ids: fullIds(app, ids),
        network_server_address: 'ns.example.com',
      });
      await read('js', dev, [], keys, false);
    });

    it('NS: session keys only when session, session.keys, session.keys.<key> or its .key is masked', async () => {
      const dev = uid('dev');
      const f = randomKey();
      const abp = abpNsDevice({ device_id: dev, dev_eui: randomEui() }, randomDevAddr(), hexToBase64(f));
      const set = await reg.setOk('ns', app, dev, abp.device, abp.paths);
      expectNoWrappedKeys(set, 'NS Set');
      const envelopes = { f_nwk_s_int_key: { key: f }, s_nwk_s_int_key: { key: f }, nwk_s_enc_key: { key: f } };
      expect((await read('ns', dev, ['session'], [f], true)).json.session.keys).toEqual({ session_key_id: 'AQID', ...envelopes });
      expect((await read('ns', dev, ['session.keys'], [f], true)).json.session).toEqual({ keys: { session_key_id: 'AQID', ...envelopes } });
      expect((await read('ns', dev, ['session.keys.f_nwk_s_int_key'], [f], true)).json.session).toEqual({ keys: { f_nwk_s_int_key: { key: f } } });
      expect((await read('ns', dev, ['session.keys.nwk_s_enc_key.key'], [f], true)).json.session).toEqual({ keys: { nwk_s_enc_key: { key: f } } });
      expect((await read('ns', dev, ['session.dev_addr', 'session.keys.session_key_id'], [f], false)).json.session).toEqual({
        dev_addr: (abp.device.session as { dev_addr: string }).dev_addr,
        keys: { session_key_id: 'AQID' },
      });
      await read('ns', dev, [...NS_OTAA_PATHS, 'mac_state.device_class'], [f], false);
      await read('ns', dev, [], [f], false);
    });

    it('AS: the AppSKey only when session, session.keys, session.keys.app_s_key or its .key is masked', async () => {
      const dev = uid('dev');
      const k = randomKey();
      const devAddr = randomDevAddr();
      const abp = abpAsDevice(otaaIds(dev), devAddr, k.toLowerCase());
      const set = await reg.setOk('as', app, dev, abp.device, abp.paths);
      expectNoWrappedKeys(set, 'AS Set');
      expect((await read('as', dev, ['session'], [k], true)).json.session).toEqual(
        expect.objectContaining({ dev_addr: devAddr, keys: { session_key_id: 'AQID', app_s_key: { key: k } } }),
      );
      expect((await read('as', dev, ['session.keys'], [k], true)).json.session).toEqual({ keys: { session_key_id: 'AQID', app_s_key: { key: k } } });
      expect((await read('as', dev, ['session.keys.app_s_key'], [k], true)).json.session).toEqual({ keys: { app_s_key: { key: k } } });
      expect((await read('as', dev, ['session.keys.app_s_key.key'], [k], true)).json.session).toEqual({ keys: { app_s_key: { key: k } } });
      expect((await read('as', dev, ['session.dev_addr', 'session.keys.session_key_id'], [k], false)).json.session).toEqual({
        dev_addr: devAddr,
        keys: { session_key_id: 'AQID' },
      });
      await read('as', dev, ['formatters', 'ids'], [k], false);
      await read('as', dev, [], [k], false);
    });

    it('a key update replaces the stored key (JS AppKey, NS FNwkSIntKey, AS AppSKey)', async () => {
      const dev = uid('dev');
      const ids = otaaIds(dev);
      const [k1, k2] = [randomKey(), randomKey()];
      await reg.setOk('js', app, dev, { ids, root_keys: { app_key: { key: k1 } } }, ['root_keys.app_key.key']);
      await reg.setOk('js', app, dev, { ids, root_keys: { app_key: { key: k2 } } }, ['root_keys.app_key.key']);
      expect((await read('js', dev, ['root_keys.app_key.key'], [k1], true)).json.root_keys).toEqual({ app_key: { key: k2 } });
      expect((await reg.getOk('js', app, dev, ['root_keys'])).text).not.toContain(k1);

      const abpDev = uid('dev');
      const abpIds = { device_id: abpDev, dev_eui: randomEui() };
      const abp = abpNsDevice(abpIds, randomDevAddr(), k1);
      await reg.setOk('ns', app, abpDev, abp.device, abp.paths);
      await reg.setOk('ns', app, abpDev, { ids: abpIds, session: { keys: { f_nwk_s_int_key: { key: k2 } } } }, ['session.keys.f_nwk_s_int_key.key']);
      expect((await read('ns', abpDev, ['session.keys.f_nwk_s_int_key.key'], [], true)).json.session).toEqual({ keys: { f_nwk_s_int_key: { key: k2 } } });

      const asAbp = abpAsDevice(abpIds, randomDevAddr(), k1);
      await reg.setOk('as', app, abpDev, asAbp.device, asAbp.paths);
      await reg.setOk('as', app, abpDev, { ids: abpIds, session: { keys: { app_s_key: { key: k2 } } } }, ['session.keys.app_s_key.key']);
      const as = await read('as', abpDev, ['session.keys.app_s_key.key'], [], true);
      expect(as.json.session).toEqual({ keys: { app_s_key: { key: k2 } } });
      expect(as.text).not.toContain(k1);
    });
  });

  // ------------------------------------------------------------------------------------------
  describe.each(REGISTRIES)('%s registry: several devices match the identifiers', (c) => {
    const app = uid(`mm-${c}`);
    beforeAll(() => createApplications(api, [app]));
    const a = uid('dev-a');
    const b = uid('dev-b');
    const idsA = otaaIds(a);
    const idsB = otaaIds(b);
    /** Shared by dev-a and dev-b (NS and AS: ABP sessions with the same DevAddr). */
    const shared = randomDevAddr();
    const withAddr = c !== 'js';

    beforeAll(async () => {
      for (const ids of [idsA, idsB]) {
        const body = c === 'js' ? sampleDevice('js', ids) : c === 'ns' ? abpNsDevice(ids, shared, randomKey()) : abpAsDevice(ids, shared, randomKey());
        await reg.setOk(c, app, ids.device_id, body.device, body.paths);
      }
    });

    async function expectBothStored(): Promise<void> {
      expect((await reg.getOk(c, app, a)).json.ids.device_id).toBe(a);
      expect((await reg.getOk(c, app, b)).json.ids.device_id).toBe(b);
    }

    if (withAddr) {
      it('Get of dev-a with the shared DevAddr → 400 multiple_end_devices (count 2, both device IDs)', async () => {
        expectMultipleDevices(await reg.get(c, app, a, [], { 'end_device_ids.dev_addr': shared }), [a, b]);
      });

      it('Delete of dev-a with the shared DevAddr → 400 multiple_end_devices; nothing deleted', async () => {
        expectMultipleDevices(await reg.delete(c, app, a, { dev_addr: shared }), [a, b]);
        await expectBothStored();
      });
    }

    it('Get of dev-a with the DevEUI of dev-b → 400 multiple_end_devices', async () => {
      expectMultipleDevices(await reg.get(c, app, a, [], { 'end_device_ids.dev_eui': idsB.dev_eui as string }), [a, b]);
    });

    it('Delete of dev-a with the DevEUI of dev-b → 400 multiple_end_devices; nothing deleted', async () => {
      expectMultipleDevices(await reg.delete(c, app, a, { dev_eui: idsB.dev_eui as string }), [a, b]);
      await expectBothStored();
    });

    it('identifiers that all agree → 200', async () => {
      const got = await reg.getOk(c, app, a, [], { 'end_device_ids.dev_eui': idsA.dev_eui as string, 'end_device_ids.join_eui': idsA.join_eui as string });
      expect(got.json.ids).toEqual(fullIds(app, { ...idsA, ...(withAddr ? { dev_addr: shared } : {}) }));
    });

    it('a DevEUI that matches no device, with device_id dev-a → 404 device_not_found', async () => {
      await expectNotFound(c, app, a, { 'end_device_ids.dev_eui': randomEui() });
      expectTtsError(await reg.delete(c, app, a, { dev_eui: randomEui() }), 404, 5, NAMESPACE[c], 'device_not_found');
      await expectBothStored();
    });

    it('Delete with agreeing identifiers removes only dev-a; the DevAddr then names one device', async () => {
      await reg.deleteOk(c, app, a, { dev_eui: idsA.dev_eui as string });
      await expectNotFound(c, app, a);
      expect((await reg.getOk(c, app, b)).json.ids.device_id).toBe(b);
      if (withAddr) expect((await reg.getOk(c, app, b, [], { 'end_device_ids.dev_addr': shared })).json.ids.device_id).toBe(b);
    });
  });

  // ------------------------------------------------------------------------------------------
  describe('Copy on create (device templates)', () => {
    const app = uid('tpl-app');
    beforeAll(() => createApplications(api, [app]));
    const nsCheck = ['version_ids', 'supports_join', 'lorawan_version', 'lorawan_phy_version', 'frequency_plan_id', 'min_frequency', 'max_frequency'];

    it(`NS: an OTAA create with ids, version_ids and supports_join gets the template's ${Object.keys(TEMPLATE.ns).join(', ')}`, async () => {
      const dev = uid('dev');
      const ids = otaaIds(dev);
      await reg.setOk('ns', app, dev, { ids, version_ids: TEMPLATE.version_ids, supports_join: true, ...TEMPLATE.nsRequestExtra }, [
        'version_ids',
        'supports_join',
        ...Object.keys(TEMPLATE.nsRequestExtra),
      ]);
      const got = await reg.getOk('ns', app, dev, nsCheck);
      expect(got.json).toEqual(
        expect.objectContaining({ ids: fullIds(app, ids), version_ids: TEMPLATE.version_ids, supports_join: true, ...TEMPLATE.ns, ...TEMPLATE.nsRequestExtra }),
      );
    });

    it('NS: a template with a frequency plan fills frequency_plan_id, min_frequency and max_frequency too', async () => {
      const dev = uid('dev');
      const ids = otaaIds(dev);
      await reg.setOk('ns', app, dev, { ids, version_ids: TEMPLATE_WITH_PLAN.version_ids, supports_join: true }, ['version_ids', 'supports_join']);
      const got = await reg.getOk('ns', app, dev, nsCheck);
      expect(got.json).toEqual({ ids: fullIds(app, ids), version_ids: TEMPLATE_WITH_PLAN.version_ids, supports_join: true, ...TEMPLATE_WITH_PLAN.ns });
    });

    it('NS: values in the request win over the template', async () => {
      const dev = uid('dev');
      const ids = otaaIds(dev);
      const own = { lorawan_version: 'MAC_V1_0_2', lorawan_phy_version: 'PHY_V1_0_2_REV_B', frequency_plan_id: 'EU_863_870' };
      await reg.setOk('ns', app, dev, { ids, version_ids: TEMPLATE_WITH_PLAN.version_ids, supports_join: true, ...own }, [
        'version_ids',
        'supports_join',
        ...Object.keys(own),
      ]);
      const got = await reg.getOk('ns', app, dev, Object.keys(own));
      expect(got.json).toEqual({ ids: fullIds(app, ids), ...own });
    });

    it('NS: version_ids without a template copy nothing (the create then lacks the versions → 400 field_value)', async () => {
      const dev = uid('dev');
      const res = await reg.set(
        'ns',
        app,
        dev,
        { ids: otaaIds(dev), version_ids: { brand_id: 'no-such-brand', model_id: 'no-such-model' }, supports_join: true, frequency_plan_id: 'EU_863_870' },
        ['version_ids', 'supports_join', 'frequency_plan_id'],
      );
      expectTtsError(res, 400, 3, 'pkg/networkserver', 'field_value');
      await expectNotFound('ns', app, dev);
    });

    it("AS: a create with version_ids gets the template's formatters", async () => {
      const dev = uid('dev');
      const ids = otaaIds(dev);
      await reg.setOk('as', app, dev, { ids, version_ids: TEMPLATE.version_ids }, ['version_ids']);
      const got = await reg.getOk('as', app, dev, ['version_ids', 'formatters']);
      expect(got.json).toEqual({ ids: fullIds(app, ids), version_ids: TEMPLATE.version_ids, ...TEMPLATE.as });
    });

    it('AS: formatters in the request win over the template', async () => {
      const dev = uid('dev');
      const formatters = { up_formatter: 'FORMATTER_JAVASCRIPT', up_formatter_parameter: 'function decodeUplink(input) { return { data: {} }; }' };
      await reg.setOk('as', app, dev, { ids: otaaIds(dev), version_ids: TEMPLATE.version_ids, formatters }, ['version_ids', 'formatters']);
      expect((await reg.getOk('as', app, dev, ['formatters'])).json.formatters).toEqual(formatters);
    });

    it('AS: copying happens on create only (version_ids set by an update copy nothing)', async () => {
      const dev = uid('dev');
      const ids = otaaIds(dev);
      await reg.setOk('as', app, dev, { ids, skip_payload_crypto: true }, ['skip_payload_crypto']);
      await reg.setOk('as', app, dev, { ids, version_ids: TEMPLATE.version_ids }, ['version_ids']);
      const got = await reg.getOk('as', app, dev, ['version_ids', 'formatters']);
      expect(got.json.version_ids).toEqual(TEMPLATE.version_ids);
      expectUnset(got.json.formatters, 'formatters after an update of version_ids');
    });
  });

  // ------------------------------------------------------------------------------------------
  describe('Lifecycle in the seed order (IS → JS → NS → AS; delete AS → NS → JS → IS)', () => {
    const app = uid('life-app');
    beforeAll(() => createApplications(api, [app]));

    describe('OTAA device', () => {
      const dev = uid('otaa');
      const ids = otaaIds(dev);
      const [appKey, appKey2] = [randomKey(), randomKey()];
      const up_formatter_parameter = 'function decodeUplink(input) { return { data: { bytes: input.bytes } }; }';

      it('registers in IS, JS, NS and AS', async () => {
        const created = await api.post(isDevicesPath(app), {
          end_device: {
            ids,
            name: 'Lifecycle OTAA',
            network_server_address: 'localhost',
            application_server_address: 'localhost',
            join_server_address: 'localhost',
          },
        });
        expectOk(created, 'IS Create');
        await reg.setOk(
          'js',
          app,
          dev,
          { ids, network_server_address: 'localhost', application_server_address: 'localhost', root_keys: { app_key: { key: appKey } } },
          ['network_server_address', 'application_server_address', 'root_keys.app_key.key'],
        );
        await reg.setOk('ns', app, dev, { ids, ...NS_OTAA, frequency_plan_id: 'EU_863_870_TTN' }, NS_OTAA_PATHS);
        await reg.setOk('as', app, dev, { ids, formatters: { up_formatter: 'FORMATTER_CAYENNELPP' } }, ['formatters']);
      });

      it('reads back each registry with masks', async () => {
        const is = await api.get(`${isDevicePath(app, dev)}?field_mask=name,join_server_address`);
        expectOk(is, 'IS Get');
        expect(is.json).toEqual(expect.objectContaining({ ids: fullIds(app, ids), name: 'Lifecycle OTAA', join_server_address: 'localhost' }));
        expect((await reg.getOk('js', app, dev, ['root_keys', 'network_server_address'])).json).toEqual({
          ids: fullIds(app, ids),
          network_server_address: 'localhost',
          root_keys: { app_key: { key: appKey } },
        });
        expect((await reg.getOk('ns', app, dev, NS_OTAA_PATHS)).json).toEqual({ ids: fullIds(app, ids), ...NS_OTAA, frequency_plan_id: 'EU_863_870_TTN' });
        expect((await reg.getOk('as', app, dev, ['formatters'])).json).toEqual({
          ids: fullIds(app, ids),
          formatters: { up_formatter: 'FORMATTER_CAYENNELPP' },
        });
      });

      it('updates each registry', async () => {
        expectOk(await api.put(isDevicePath(app, dev), { end_device: { ids, name: 'Renamed' }, field_mask: { paths: ['name'] } }), 'IS Update');
        await reg.setOk('js', app, dev, { ids, root_keys: { app_key: { key: appKey2 } } }, ['root_keys.app_key.key']);
        await reg.setOk('ns', app, dev, { ids, mac_settings: { rx1_delay: 2, use_adr: false } }, ['mac_settings.rx1_delay', 'mac_settings.use_adr']);
        await reg.setOk('as', app, dev, { ids, formatters: { up_formatter: 'FORMATTER_JAVASCRIPT', up_formatter_parameter } }, ['formatters']);

        const is = await api.get(`${isDevicePath(app, dev)}?field_mask=name`);
        expect(is.json.name).toBe('Renamed');
        expect((await reg.getOk('js', app, dev, ['root_keys.app_key.key'])).json.root_keys).toEqual({ app_key: { key: appKey2 } });
        const ns = await reg.getOk('ns', app, dev, [...NS_OTAA_PATHS, 'mac_settings.rx1_delay']);
        expect(ns.json).toEqual({ ids: fullIds(app, ids), ...NS_OTAA, frequency_plan_id: 'EU_863_870_TTN', mac_settings: { rx1_delay: 2 } });
        expect((await reg.getOk('as', app, dev, ['formatters'])).json.formatters).toEqual({ up_formatter: 'FORMATTER_JAVASCRIPT', up_formatter_parameter });
      });

      it('deletes AS, NS, JS, IS in turn: each registry 404 once deleted, the others unaffected', async () => {
        const order: Registry[] = ['as', 'ns', 'js'];
        for (const [i, c] of order.entries()) {
          await reg.deleteOk(c, app, dev);
          await expectNotFound(c, app, dev);
          for (const remaining of order.slice(i + 1)) await reg.getOk(remaining, app, dev);
          expectOk(await api.get(isDevicePath(app, dev)), `IS Get after ${c.toUpperCase()} Delete`);
        }
        const del = await api.delete(isDevicePath(app, dev));
        expectOk(del, 'IS Delete');
        expect(del.json).toEqual({});
        await expectIsNotFound(app, dev);
        for (const c of REGISTRIES) await expectNotFound(c, app, dev);
      });
    });

    describe('ABP device', () => {
      const dev = uid('abp');
      const ids = { device_id: dev, dev_eui: randomEui() };
      const devAddr = randomDevAddr();
      const [f, appSKey, appSKey2] = [randomKey(), randomKey(), randomKey()];

      it('registers in IS, NS (session keys) and AS (AppSKey)', async () => {
        expectOk(await api.post(isDevicesPath(app), { end_device: { ids, name: 'Lifecycle ABP' } }), 'IS Create');
        const ns = abpNsDevice(ids, devAddr, f);
        await reg.setOk('ns', app, dev, ns.device, ns.paths);
        const as = abpAsDevice(ids, devAddr, appSKey);
        await reg.setOk('as', app, dev, as.device, as.paths);
      });

      it('reads back each registry with masks', async () => {
        expect((await api.get(`${isDevicePath(app, dev)}?field_mask=name`)).json.name).toBe('Lifecycle ABP');
        const ns = await reg.getOk('ns', app, dev, ['session.dev_addr', 'session.keys', 'mac_state.device_class', 'frequency_plan_id']);
        expect(ns.json).toEqual({
          ids: fullIds(app, { ...ids, dev_addr: devAddr }),
          frequency_plan_id: 'EU_863_870',
          mac_state: { device_class: 'CLASS_A' },
          session: { dev_addr: devAddr, keys: { session_key_id: 'AQID', f_nwk_s_int_key: { key: f }, s_nwk_s_int_key: { key: f }, nwk_s_enc_key: { key: f } } },
        });
        const as = await reg.getOk('as', app, dev, ['session.dev_addr', 'session.keys']);
        expect(as.json).toEqual({
          ids: fullIds(app, { ...ids, dev_addr: devAddr }),
          session: { dev_addr: devAddr, keys: { session_key_id: 'AQID', app_s_key: { key: appSKey } } },
        });
        await expectNotFound('js', app, dev);
      });

      it('updates each registry', async () => {
        expectOk(
          await api.put(isDevicePath(app, dev), { end_device: { ids, description: 'ABP device' }, field_mask: { paths: ['description'] } }),
          'IS Update',
        );
        await reg.setOk('ns', app, dev, { ids, mac_settings: { rx1_delay: 1 }, supports_class_c: true }, ['mac_settings.rx1_delay', 'supports_class_c']);
        await reg.setOk('as', app, dev, { ids, session: { keys: { app_s_key: { key: appSKey2 } } } }, ['session.keys.app_s_key.key']);
        expect((await api.get(`${isDevicePath(app, dev)}?field_mask=description`)).json.description).toBe('ABP device');
        const ns = await reg.getOk('ns', app, dev, ['mac_settings.rx1_delay', 'supports_class_c', 'session.dev_addr']);
        expect(ns.json).toEqual({
          ids: fullIds(app, { ...ids, dev_addr: devAddr }),
          mac_settings: { rx1_delay: 1 },
          supports_class_c: true,
          session: { dev_addr: devAddr },
        });
        expect((await reg.getOk('as', app, dev, ['session.keys.app_s_key.key'])).json.session).toEqual({ keys: { app_s_key: { key: appSKey2 } } });
      });

      it('deletes AS, NS, IS in turn; 404 everywhere afterwards', async () => {
        await reg.deleteOk('as', app, dev);
        await expectNotFound('as', app, dev);
        await reg.getOk('ns', app, dev);
        await reg.deleteOk('ns', app, dev);
        await expectNotFound('ns', app, dev);
        const del = await api.delete(isDevicePath(app, dev));
        expectOk(del, 'IS Delete');
        await expectIsNotFound(app, dev);
        for (const c of REGISTRIES) await expectNotFound(c, app, dev);
      });
    });
  });

  it('no request returned 5xx', () => {
    if (api.serverErrors.length > 0) console.error(`${mode} stack logs:\n${stack.logs()}`);
    expect(api.serverErrors).toEqual([]);
  });
});
