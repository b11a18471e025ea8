import type { MigrationInterface, QueryRunner } from 'typeorm';
import { ALLOWED_PATHS, NS_EVENTS } from '@lorawan/api';
import { EventPublisher } from '@lorawan/component';
import { Code, defineError } from '@lorawan/errors';
import { recordEvents, rpcContext } from '@lorawan/testing';
import { InProcessBroker } from '@lorawan/transport';
import { type CopySource, type Device, DeviceRegistry, NO_COPY_SOURCE, type RegistryPolicy } from './device-registry';
import { addPendingDevAddrColumn, createDevicesTable, dropDevicesTable } from './devices-table';
import { keySealerFor } from './registry.providers';
import { CTX, delReq, errorOf, getReq, rawFieldsOf, setReq, unobservedEvents } from './registry-requests.conformance';
import { openTestDataSource } from './registry-store.conformance';
import type { DeviceRecord } from './device-record';
import { TypeOrmDeviceStore } from './typeorm-device.store';

/**
 * The generic registry engine (DeviceRegistry) on a real store (SQLite), with a small policy of
 * its own so that the engine's rules are tested apart from any component's: Set create/update
 * semantics, field-mask checks, the several-match rule, data-plane lookups, keys, concurrency.
 */

class CreateEngineTestDevices1700000000000 implements MigrationInterface {
  name = 'CreateEngineTestDevices1700000000000';
  async up(queryRunner: QueryRunner): Promise<void> {
    await createDevicesTable(queryRunner, { uniqueEuis: true });
    await addPendingDevAddrColumn(queryRunner);
  }
  async down(queryRunner: QueryRunner): Promise<void> {
    await dropDevicesTable(queryRunner);
  }
}

const ErrNotFound = defineError('pkg/test-registry', 'device_not_found', 'device `{device_uid}` not found', Code.NotFound);
const ErrReadOnly = defineError('pkg/test-registry', 'read_only_field', 'read-only field `{field}`', Code.InvalidArgument);
const ErrFieldValue = defineError('pkg/test-registry', 'field_value', 'invalid value of field `{field}`', Code.InvalidArgument);

/** A registry that stores a few NS-like fields; refuses frequency plan `REFUSED`; ids.dev_addr follows session.dev_addr. */
const POLICY: RegistryPolicy = {
  allowedGetPaths: ALLOWED_PATHS['NsEndDeviceRegistry.Get'],
  allowedSetPaths: ALLOWED_PATHS['NsEndDeviceRegistry.Set'],
  storedPaths: [
    'frequency_plan_id',
    'lorawan_version',
    'supports_class_b',
    'supports_class_c',
    'mac_settings',
    'session.dev_addr',
    'session.keys.session_key_id',
    'session.keys.f_nwk_s_int_key',
  ],
  copyFields: ['supports_class_c'],
  errors: { notFound: ErrNotFound, readOnlyField: ErrReadOnly },
  events: NS_EVENTS.endDevice,
  complete: (device) => {
    if (device.frequency_plan_id === 'REFUSED') throw ErrFieldValue.with({ field: 'frequency_plan_id' });
    const devAddr = (device.session as { dev_addr?: string } | undefined)?.dev_addr;
    if (devAddr) device.ids = { ...device.ids, dev_addr: devAddr };
    else delete device.ids.dev_addr;
    return device;
  },
};

const APP = 'app-engine';
const KEY = '00112233445566778899AABBCCDDEEFF';
const KEY2 = 'FFEEDDCCBBAA99887766554433221100';
const EUI = (n: number) => n.toString(16).toUpperCase().padStart(16, '0');
const ids = (device_id: string, extra: Record<string, string> = {}, app = APP) => ({ device_id, application_ids: { application_id: app }, ...extra });

const events = unobservedEvents();

describe('DeviceRegistry engine (SQLite)', () => {
  let db: Awaited<ReturnType<typeof openTestDataSource>>;
  let store: TypeOrmDeviceStore;
  let registry: DeviceRegistry;
  const copy: CopySource = { template: () => undefined, profile: () => ({ supports_class_c: true }) };

  const rawFields = (app: string, dev: string) => rawFieldsOf(db.ds, app, dev);

  beforeAll(async () => {
    db = await openTestDataSource('ns', [CreateEngineTestDevices1700000000000], 'sqlite');
    store = new TypeOrmDeviceStore(db.ds);
    registry = new DeviceRegistry(store, POLICY, keySealerFor('ns', { keks: undefined, kekLabels: {} }), events, copy);
  });
  afterAll(async () => db.close());

  describe('Set', () => {
    it('creates the device when absent: ids are always stored; the response is ids plus the masked paths', async () => {
      const res = await registry.set(
        setReq(
          {
            ids: ids('create-1', { dev_eui: EUI(1), join_eui: EUI(0) }),
            frequency_plan_id: 'EU_863_870',
            lorawan_version: 'MAC_V1_0_3',
            supports_class_b: true,
          },
          ['frequency_plan_id', 'supports_class_b'],
        ),
        CTX,
      );
      expect(res).toEqual({
        ids: ids('create-1', { dev_eui: EUI(1), join_eui: EUI(0) }),
        frequency_plan_id: 'EU_863_870',
        supports_class_b: true,
        supports_class_c: true,
      });
      const stored = await store.get(APP, 'create-1');
      expect(stored?.ids).toEqual(ids('create-1', { dev_eui: EUI(1), join_eui: EUI(0) }));
      // Unmasked lorawan_version is not stored; the Copy field absent from the request is filled from the profile.
      expect(stored?.fields).toEqual({ frequency_plan_id: 'EU_863_870', supports_class_b: true, supports_class_c: true });
      expect(stored?.revision).toBe(1);
      expect(stored?.created_at).toBe(stored?.updated_at);
    });

    it('updates only the masked paths, keeps the others, and copies nothing on update', async () => {
      await registry.set(
        setReq({ ids: ids('update-1'), frequency_plan_id: 'EU_863_870', lorawan_version: 'MAC_V1_0_3', supports_class_c: false }, [
          'frequency_plan_id',
          'lorawan_version',
          'supports_class_c',
        ]),
        CTX,
      );
      const before = await store.get(APP, 'update-1');
      const res = await registry.set(
        setReq({ ids: ids('update-1'), frequency_plan_id: 'US_902_928_FSB_2', lorawan_version: 'MAC_V1_1' }, ['frequency_plan_id']),
        CTX,
      );
      expect(res).toEqual({ ids: ids('update-1'), frequency_plan_id: 'US_902_928_FSB_2' });
      const after = await store.get(APP, 'update-1');
      expect(after?.fields).toEqual({ frequency_plan_id: 'US_902_928_FSB_2', lorawan_version: 'MAC_V1_0_3', supports_class_c: false });
      expect(after?.revision).toBe(2);
      expect(after?.created_at).toBe(before?.created_at);
      expect((after?.updated_at ?? '') > (before?.updated_at ?? '')).toBe(true);
      // Clearing the Copy field on update leaves it cleared (Copy is for creation only).
      await registry.set(setReq({ ids: ids('update-1') }, ['supports_class_c']), CTX);
      expect((await store.get(APP, 'update-1'))?.fields).toEqual({ frequency_plan_id: 'US_902_928_FSB_2', lorawan_version: 'MAC_V1_0_3' });
    });

    it('a masked path absent from the body clears the field', async () => {
      await registry.set(
        setReq({ ids: ids('clear-1'), frequency_plan_id: 'EU_863_870', mac_settings: { rx1_delay: 5, use_adr: true } }, ['frequency_plan_id', 'mac_settings']),
        CTX,
      );
      await registry.set(setReq({ ids: ids('clear-1'), mac_settings: { use_adr: true } }, ['frequency_plan_id', 'mac_settings.rx1_delay']), CTX);
      expect((await store.get(APP, 'clear-1'))?.fields).toEqual({ mac_settings: { use_adr: true }, supports_class_c: true });
    });

    it('refuses mask paths outside the allowed list with field_mask_paths naming them, before touching the store', async () => {
      const err = await errorOf(registry.set(setReq({ ids: ids('mask-1'), name: 'x' }, ['frequency_plan_id', 'name', 'root_keys.app_key.key']), CTX));
      expect(err).toMatchObject({
        namespace: 'pkg/rpcmiddleware/validator',
        name: 'field_mask_paths',
        code: 3,
        attributes: { forbidden_paths: ['name', 'root_keys.app_key.key'] },
      });
      expect(await store.get(APP, 'mask-1')).toBeUndefined();
      const getErr = await errorOf(registry.get(getReq(ids('mask-1'), ['root_keys'])));
      expect(getErr).toMatchObject({ namespace: 'pkg/rpcmiddleware/validator', name: 'field_mask_paths', attributes: { forbidden_paths: ['root_keys'] } });
    });

    it('accepts the wrapper alias mac_settings.rx1_delay.value as mac_settings.rx1_delay', async () => {
      const res = await registry.set(
        setReq({ ids: ids('wrapper-1'), mac_settings: { rx1_delay: { value: 'RX_DELAY_3' } } }, ['mac_settings.rx1_delay.value']),
        CTX,
      );
      expect(res).toEqual({ ids: ids('wrapper-1'), mac_settings: { rx1_delay: 3 }, supports_class_c: true });
      expect((await store.get(APP, 'wrapper-1'))?.fields).toMatchObject({ mac_settings: { rx1_delay: 3 } });
      expect(await registry.get(getReq(ids('wrapper-1'), ['mac_settings.rx1_delay.value']))).toEqual({ ids: ids('wrapper-1'), mac_settings: { rx1_delay: 3 } });
      // Clearing through the alias clears the field.
      await registry.set(setReq({ ids: ids('wrapper-1') }, ['mac_settings.rx1_delay.value']), CTX);
      expect((await store.get(APP, 'wrapper-1'))?.fields['mac_settings']).toEqual({});
    });

    it('identifiers are immutable on update: a different dev_eui or join_eui is read_only_field, and nothing changes', async () => {
      await registry.set(setReq({ ids: ids('ro-1', { dev_eui: EUI(0x10), join_eui: EUI(0) }), frequency_plan_id: 'EU_863_870' }, ['frequency_plan_id']), CTX);
      const before = await store.get(APP, 'ro-1');
      const devEuiErr = await errorOf(
        registry.set(setReq({ ids: ids('ro-1', { dev_eui: EUI(0x11), join_eui: EUI(0) }), frequency_plan_id: 'AS_923' }, ['frequency_plan_id']), CTX),
      );
      expect(devEuiErr).toMatchObject({ namespace: 'pkg/test-registry', name: 'read_only_field', code: 3, attributes: { field: 'ids.dev_eui' } });
      const joinEuiErr = await errorOf(registry.set(setReq({ ids: ids('ro-1', { dev_eui: EUI(0x10), join_eui: EUI(1) }) }, ['frequency_plan_id']), CTX));
      expect(joinEuiErr).toMatchObject({ name: 'read_only_field', attributes: { field: 'ids.join_eui' } });
      expect(await store.get(APP, 'ro-1')).toEqual(before);
      // The same identifiers, or none, are fine.
      await registry.set(setReq({ ids: ids('ro-1', { dev_eui: EUI(0x10), join_eui: EUI(0) }), frequency_plan_id: 'AS_923' }, ['frequency_plan_id']), CTX);
      await registry.set(setReq({ ids: ids('ro-1'), frequency_plan_id: 'AU_915_928_FSB_2' }, ['frequency_plan_id', 'ids.dev_eui']), CTX);
      expect(await store.get(APP, 'ro-1')).toMatchObject({
        ids: ids('ro-1', { dev_eui: EUI(0x10), join_eui: EUI(0) }),
        fields: { frequency_plan_id: 'AU_915_928_FSB_2' },
      });
    });

    it('concurrent Sets of the same new device all succeed and leave exactly one device', async () => {
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          registry.set(
            setReq({ ids: ids('race-1'), frequency_plan_id: 'EU_863_870', mac_settings: { rx1_delay: i } }, ['frequency_plan_id', 'mac_settings.rx1_delay']),
            CTX,
          ),
        ),
      );
      expect(results).toHaveLength(8);
      for (const r of results) expect(r).toMatchObject({ ids: ids('race-1'), frequency_plan_id: 'EU_863_870' });
      const rows = (await db.ds.query('SELECT device_id, revision FROM end_devices WHERE application_id = ? AND device_id = ?', [APP, 'race-1'])) as Array<{
        revision: number;
      }>;
      expect(rows).toHaveLength(1);
      // One create and seven updates, none lost.
      expect(Number(rows[0].revision)).toBe(8);
    });

    it('an update that fails validation leaves the stored device byte-for-byte unchanged', async () => {
      await registry.set(
        setReq({ ids: ids('invalid-1'), frequency_plan_id: 'EU_863_870', session: { dev_addr: '26000001', keys: { f_nwk_s_int_key: { key: KEY } } } }, [
          'frequency_plan_id',
          'session.dev_addr',
          'session.keys.f_nwk_s_int_key.key',
        ]),
        CTX,
      );
      const before = await store.get(APP, 'invalid-1');
      const rawBefore = await rawFields(APP, 'invalid-1');
      const err = await errorOf(
        registry.set(
          setReq({ ids: ids('invalid-1'), frequency_plan_id: 'REFUSED', session: { dev_addr: '26000002', keys: { f_nwk_s_int_key: { key: KEY2 } } } }, [
            'frequency_plan_id',
            'session.dev_addr',
            'session.keys.f_nwk_s_int_key.key',
          ]),
          CTX,
        ),
      );
      expect(err).toMatchObject({ namespace: 'pkg/test-registry', name: 'field_value' });
      expect(await store.get(APP, 'invalid-1')).toEqual(before);
      expect(await rawFields(APP, 'invalid-1')).toBe(rawBefore);
      expect(before?.revision).toBe(1);
    });
  });

  describe('Get and Delete', () => {
    beforeAll(async () => {
      await registry.set(
        setReq(
          {
            ids: ids('get-1', { dev_eui: EUI(0x20), join_eui: EUI(0) }),
            frequency_plan_id: 'EU_863_870',
            mac_settings: { use_adr: true, rx1_delay: 1 },
            session: { dev_addr: '26000020', keys: { session_key_id: 'AQID', f_nwk_s_int_key: { key: KEY } } },
          },
          ['frequency_plan_id', 'mac_settings', 'session.dev_addr', 'session.keys.session_key_id', 'session.keys.f_nwk_s_int_key.key'],
        ),
        CTX,
      );
    });

    it('Get returns ids plus the masked paths only (no mask: ids only)', async () => {
      const fullIds = ids('get-1', { dev_eui: EUI(0x20), join_eui: EUI(0), dev_addr: '26000020' });
      expect(await registry.get(getReq(ids('get-1')))).toEqual({ ids: fullIds });
      expect(await registry.get(getReq(ids('get-1'), ['frequency_plan_id', 'mac_settings.use_adr']))).toEqual({
        ids: fullIds,
        frequency_plan_id: 'EU_863_870',
        mac_settings: { use_adr: true },
      });
      // Masked but unset: absent from the answer.
      expect(await registry.get(getReq(ids('get-1'), ['lorawan_version']))).toEqual({ ids: fullIds });
      expect(await registry.get(getReq(ids('get-1'), ['session.dev_addr', 'session.keys.session_key_id']))).toEqual({
        ids: fullIds,
        session: { dev_addr: '26000020', keys: { session_key_id: 'AQID' } },
      });
    });

    it('Get returns key material only when the key path or a parent of it is masked', async () => {
      const keysOf = async (paths: string[]) =>
        ((await registry.get(getReq(ids('get-1'), paths))) as { session?: { keys?: Record<string, unknown> } }).session?.keys;
      expect(await keysOf(['session.dev_addr'])).toBeUndefined();
      expect(await keysOf(['session.keys.session_key_id'])).toEqual({ session_key_id: 'AQID' });
      for (const path of ['session.keys.f_nwk_s_int_key.key', 'session.keys.f_nwk_s_int_key', 'session.keys', 'session']) {
        expect((await keysOf([path]))?.['f_nwk_s_int_key']).toEqual({ key: KEY });
      }
    });

    it("Delete answers {} and the device is then not found (Get and Delete: the registry's device_not_found, 404)", async () => {
      await registry.set(setReq({ ids: ids('del-1'), frequency_plan_id: 'EU_863_870' }, ['frequency_plan_id']), CTX);
      expect(await registry.delete(delReq(ids('del-1')), CTX)).toEqual({});
      expect(await store.get(APP, 'del-1')).toBeUndefined();
      for (const call of [registry.get(getReq(ids('del-1'), ['frequency_plan_id'])), registry.delete(delReq(ids('del-1')), CTX)]) {
        expect(await errorOf(call)).toMatchObject({
          namespace: 'pkg/test-registry',
          name: 'device_not_found',
          code: Code.NotFound,
          attributes: { device_uid: `${APP}.del-1` },
        });
      }
    });

    describe('several devices match the identifiers', () => {
      beforeAll(async () => {
        for (const [id, n] of [
          ['multi-a', 0x30],
          ['multi-b', 0x31],
        ] as const) {
          await registry.set(
            setReq({ ids: ids(id, { dev_eui: EUI(n), join_eui: EUI(0) }), session: { dev_addr: `2600${n.toString(16).padStart(4, '0')}`, keys: {} } }, [
              'session.dev_addr',
            ]),
            CTX,
          );
        }
      });

      it('Get where device_id names one device and dev_eui another is multiple_end_devices (code 3) with count and device_ids', async () => {
        const err = await errorOf(registry.get(getReq(ids('multi-a', { dev_eui: EUI(0x31) }), ['session.dev_addr'])));
        expect(err).toMatchObject({
          namespace: 'pkg/internal/registry',
          name: 'multiple_end_devices',
          code: 3,
          attributes: { count: 2, device_ids: ['multi-a', 'multi-b'] },
        });
        const withJoinEui = await errorOf(registry.get(getReq(ids('multi-a', { dev_eui: EUI(0x31), join_eui: EUI(0) }))));
        expect(withJoinEui).toMatchObject({ name: 'multiple_end_devices', attributes: { count: 2 } });
      });

      it('Get where device_id names one device and dev_addr another is multiple_end_devices', async () => {
        const err = await errorOf(registry.get(getReq(ids('multi-a', { dev_addr: '26000031' }))));
        expect(err).toMatchObject({
          namespace: 'pkg/internal/registry',
          name: 'multiple_end_devices',
          code: 3,
          attributes: { count: 2, device_ids: ['multi-a', 'multi-b'] },
        });
      });

      it('Delete with ambiguous identifiers is multiple_end_devices and deletes nothing', async () => {
        const ambiguous = [
          ids('multi-a', { dev_eui: EUI(0x31) }),
          ids('multi-a', { dev_addr: '26000031' }),
          ids('multi-b', { dev_eui: EUI(0x30) }),
          ids('multi-b', { dev_addr: '26000030' }),
        ];
        for (const lookup of ambiguous) {
          expect(await errorOf(registry.delete(delReq(lookup), CTX))).toMatchObject({
            namespace: 'pkg/internal/registry',
            name: 'multiple_end_devices',
            code: 3,
            attributes: { count: 2, device_ids: ['multi-a', 'multi-b'] },
          });
        }
        expect(await store.get(APP, 'multi-a')).toBeDefined();
        expect(await store.get(APP, 'multi-b')).toBeDefined();
      });

      it('all identifiers naming the same device is fine', async () => {
        const all = ids('multi-a', { dev_eui: EUI(0x30), join_eui: EUI(0), dev_addr: '26000030' });
        expect(await registry.get(getReq(all, ['session.dev_addr']))).toEqual({ ids: all, session: { dev_addr: '26000030' } });
        expect(await registry.get(getReq(ids('multi-b', { dev_addr: '26000031' })))).toMatchObject({ ids: { device_id: 'multi-b' } });
      });

      it('an identifier that matches nothing is not found (Get and Delete), and nothing is deleted', async () => {
        const lookups = [
          ids('multi-a', { dev_eui: EUI(0x99) }),
          ids('multi-a', { dev_addr: '26009999' }),
          ids('multi-a', { dev_eui: EUI(0x30), join_eui: EUI(5) }),
          ids('nobody', { dev_eui: EUI(0x30) }),
        ];
        for (const lookup of lookups) {
          expect(await errorOf(registry.get(getReq(lookup)))).toMatchObject({ namespace: 'pkg/test-registry', name: 'device_not_found', code: 5 });
          expect(await errorOf(registry.delete(delReq(lookup), CTX))).toMatchObject({ name: 'device_not_found' });
        }
        expect(await store.get(APP, 'multi-a')).toBeDefined();
      });

      it('the several-match rule stays within the application', async () => {
        await registry.set(setReq({ ids: ids('multi-a', {}, 'app-engine-other'), session: { dev_addr: '26000031', keys: {} } }, ['session.dev_addr']), CTX);
        expect(await registry.get(getReq(ids('multi-a', { dev_addr: '26000030' })))).toMatchObject({ ids: { device_id: 'multi-a', dev_addr: '26000030' } });
        expect(await registry.delete(delReq(ids('multi-a', {}, 'app-engine-other')), CTX)).toEqual({});
      });
    });
  });

  describe('data-plane lookups', () => {
    beforeAll(async () => {
      await registry.set(
        setReq({ ids: ids('addr-1', { dev_eui: EUI(0x40), join_eui: EUI(4) }), session: { dev_addr: '27000001', keys: {} } }, ['session.dev_addr']),
        CTX,
      );
      await registry.set(setReq({ ids: ids('addr-2'), session: { dev_addr: '27000002', keys: {} } }, ['session.dev_addr']), CTX);
      await registry.set(setReq({ ids: ids('addr-3', {}, 'app-engine-2'), session: { dev_addr: '27000002', keys: {} } }, ['session.dev_addr']), CTX);
    });

    it('getByDevAddr: one device → the device; none → not found; two sharing it (any application) → multiple_end_devices', async () => {
      const one: Device = await registry.getByDevAddr('27000001');
      expect(one.ids).toEqual(ids('addr-1', { dev_eui: EUI(0x40), join_eui: EUI(4), dev_addr: '27000001' }));
      expect(one).toMatchObject({ session: { dev_addr: '27000001' }, supports_class_c: true });
      expect(typeof one.created_at).toBe('string');
      expect(await errorOf(registry.getByDevAddr('27FFFFFF'))).toMatchObject({ namespace: 'pkg/test-registry', name: 'device_not_found', code: 5 });
      const err = await errorOf(registry.getByDevAddr('27000002'));
      expect(err).toMatchObject({ namespace: 'pkg/internal/registry', name: 'multiple_end_devices', code: 3, attributes: { count: 2 } });
      expect([...(err.attributes?.['device_ids'] as string[])].sort()).toEqual(['app-engine-2.addr-3', `${APP}.addr-2`]);
    });

    it('getByEuis: one device → the device; none → not found', async () => {
      expect((await registry.getByEuis(EUI(4), EUI(0x40))).ids.device_id).toBe('addr-1');
      expect(await errorOf(registry.getByEuis(EUI(5), EUI(0x40)))).toMatchObject({ name: 'device_not_found', code: 5 });
      expect(await errorOf(registry.getByEuis(EUI(4), EUI(0x41)))).toMatchObject({ name: 'device_not_found', code: 5 });
    });

    it('ids.dev_addr follows the session: the DevAddr lookup finds the device at its new address only', async () => {
      await registry.set(setReq({ ids: ids('addr-1'), session: { dev_addr: '27000009', keys: {} } }, ['session.dev_addr']), CTX);
      expect((await registry.getByDevAddr('27000009')).ids.device_id).toBe('addr-1');
      expect(await errorOf(registry.getByDevAddr('27000001'))).toMatchObject({ name: 'device_not_found' });
    });

    it('modify from a device a lookup read: written from it when nothing came in between, else from a fresh read', async () => {
      const key = { application_id: APP, device_id: 'addr-2' };
      const count = (device: Device) => ({
        ...(device.mac_settings as object),
        class_c_timeout: `${Number(String((device.mac_settings as { class_c_timeout?: string } | undefined)?.class_c_timeout ?? '0s').slice(0, -1)) + 1}s`,
      });
      const mine = (await registry.bySessionDevAddr('27000002')).find((d) => d.ids.device_id === 'addr-2') as Device;
      let rounds = 0;
      await registry.modify(key, (device) => ((rounds += 1), { device: { ...device, mac_settings: count(device) }, result: undefined }), { read: mine });
      expect(rounds).toBe(1);
      expect(await registry.stored(key)).toMatchObject({ mac_settings: { class_c_timeout: '1s' } });
      // `mine` is stale now (1s was written after it was read): its round loses and the next reads count 1.
      rounds = 0;
      await registry.modify(key, (device) => ((rounds += 1), { device: { ...device, mac_settings: count(device) }, result: undefined }), { read: mine });
      expect(rounds).toBe(2);
      expect(await registry.stored(key)).toMatchObject({ mac_settings: { class_c_timeout: '2s' } });
    });

    it('with a session cache: a lookup reuses the record it wrote last while the device is unchanged, and sees what another replica or a Set wrote', async () => {
      const cached = new DeviceRegistry(store, POLICY, keySealerFor('ns', { keks: undefined, kekLabels: {} }), events, copy, {
        sessionCacheSize: 2,
        freezeShared: true,
      });
      const replica = new DeviceRegistry(store, POLICY, keySealerFor('ns', { keks: undefined, kekLabels: {} }), events, copy);
      await registry.set(setReq({ ids: ids('cache-1'), session: { dev_addr: '27100001', keys: {} } }, ['session.dev_addr']), CTX);
      const key = { application_id: APP, device_id: 'cache-1' };
      const bump = (to: string) => (device: Device) => ({ device: { ...device, mac_settings: { class_c_timeout: to } }, result: undefined });
      const lookup = async (r: DeviceRegistry) => (await r.bySessionDevAddr('27100001')).find((d) => d.ids.device_id === 'cache-1') as Device;
      await cached.modify(key, bump('1s'), { read: await lookup(cached) });
      const find = jest.spyOn(store, 'findBySessionDevAddr');
      expect(await lookup(cached)).toMatchObject({ mac_settings: { class_c_timeout: '1s' } });
      const known = find.mock.calls[0][2];
      expect(known).toMatchObject({ fields: { mac_settings: { class_c_timeout: '1s' } } });
      // The record handed out is the one written (not read again), and it cannot be changed in place (frozen, as under NODE_ENV=test).
      expect(await find.mock.results[0].value).toContain(known);
      expect(() => ((known?.fields.mac_settings as { class_c_timeout: string }).class_c_timeout = 'x')).toThrow(TypeError);
      // Another replica writes: the cached record is outdated and the lookup reads the device afresh.
      await replica.modify(key, bump('2s'), { read: await lookup(replica) });
      expect(await lookup(cached)).toMatchObject({ mac_settings: { class_c_timeout: '2s' } });
      await registry.set(setReq({ ids: ids('cache-1'), mac_settings: { class_c_timeout: '3s' } }, ['mac_settings.class_c_timeout']), CTX);
      expect(await lookup(cached)).toMatchObject({ mac_settings: { class_c_timeout: '3s' } });
      // A write from the outdated lookup still goes through the revision check.
      await cached.modify(key, bump('4s'), { read: await lookup(cached) });
      expect(await registry.stored(key)).toMatchObject({ mac_settings: { class_c_timeout: '4s' } });
      find.mockRestore();
    });

    it('lastWrittenBySessionDevAddr + modifyIfUnchanged: the record written last, written from without a read while unchanged; nothing written once another writer moved it on', async () => {
      const sealer = keySealerFor('ns', { keks: undefined, kekLabels: {} });
      const cached = new DeviceRegistry(store, POLICY, sealer, events, copy, { sessionCacheSize: 4, freezeShared: true });
      const replica = new DeviceRegistry(store, POLICY, sealer, events, copy);
      await registry.set(setReq({ ids: ids('known-1'), session: { dev_addr: '27200001', keys: {} } }, ['session.dev_addr']), CTX);
      const key = { application_id: APP, device_id: 'known-1' };
      const bump = (to: string) => (device: Device) => ({ device: { ...device, mac_settings: { class_c_timeout: to } }, result: to });
      // Nothing remembered before this registry wrote the device, and never without a session cache.
      expect(cached.lastWrittenBySessionDevAddr('27200001')).toBeUndefined();
      await cached.modify(key, bump('1s'));
      await replica.modify(key, bump('1s'));
      expect(replica.lastWrittenBySessionDevAddr('27200001')).toBeUndefined();
      // The replica's write outdated what `cached` remembers: nothing is written from it.
      const outdated = cached.lastWrittenBySessionDevAddr('27200001') as Device;
      expect(outdated).toMatchObject({ ids: { device_id: 'known-1' }, mac_settings: { class_c_timeout: '1s' } });
      expect(await cached.modifyIfUnchanged(outdated, bump('2s'))).toBeUndefined();
      expect(await registry.stored(key)).toMatchObject({ mac_settings: { class_c_timeout: '1s' } });
      // Written from a fresh read, it is what `cached` remembers; written from that, with no read of the store.
      await cached.modify(key, bump('3s'));
      const reads = [jest.spyOn(store, 'get'), jest.spyOn(store, 'findBySessionDevAddr'), jest.spyOn(store, 'findCandidates')];
      const replace = jest.spyOn(store, 'replace');
      try {
        const known = cached.lastWrittenBySessionDevAddr('27200001') as Device;
        expect(known).toMatchObject({ mac_settings: { class_c_timeout: '3s' } });
        expect(await cached.modifyIfUnchanged(known, bump('4s'))).toEqual({ result: '4s' });
        // And again from what that wrote; a mutate that declines writes nothing.
        expect(await cached.modifyIfUnchanged(cached.lastWrittenBySessionDevAddr('27200001') as Device, bump('5s'))).toEqual({ result: '5s' });
        expect(await cached.modifyIfUnchanged(cached.lastWrittenBySessionDevAddr('27200001') as Device, () => undefined)).toBeUndefined();
        // A device no data-plane read of this registry returned: nothing to check it against.
        expect(await cached.modifyIfUnchanged({ ...known }, bump('6s'))).toBeUndefined();
        for (const read of reads) expect(read).not.toHaveBeenCalled();
        expect(replace).toHaveBeenCalledTimes(2);
      } finally {
        [...reads, replace].forEach((spy) => spy.mockRestore());
      }
      expect(await registry.stored(key)).toMatchObject({ mac_settings: { class_c_timeout: '5s' } });
      // Deleted through another registry: nothing written, nothing created again.
      const remembered = cached.lastWrittenBySessionDevAddr('27200001') as Device;
      const revision = async () => ((await store.get(APP, 'known-1')) as DeviceRecord).revision;
      const rememberedRevision = await revision();
      await replica.delete(delReq(ids('known-1')), CTX);
      expect(await cached.modifyIfUnchanged(remembered, bump('7s'))).toBeUndefined();
      expect(await store.get(APP, 'known-1')).toBeUndefined();
      // Created again and written up to the remembered revision: another device all the same, not written from what was remembered.
      await registry.set(setReq({ ids: ids('known-1'), session: { dev_addr: '27200001', keys: {} } }, ['session.dev_addr']), CTX);
      while ((await revision()) < rememberedRevision) await replica.modify(key, bump('8s'));
      expect(await revision()).toBe(rememberedRevision);
      expect(await cached.modifyIfUnchanged(remembered, bump('9s'))).toBeUndefined();
      expect(await registry.stored(key)).toMatchObject({ mac_settings: { class_c_timeout: '8s' } });
    });

    it('modify may move a device to a new DevAddr (a session becoming current), never change its other identifiers', async () => {
      await registry.modify({ application_id: APP, device_id: 'addr-1' }, (device) => ({
        device: {
          ...device,
          ids: { ...device.ids, dev_addr: '2700000A', device_id: 'renamed', dev_eui: EUI(0x99) },
          session: { dev_addr: '2700000A', keys: {} },
        },
        result: undefined,
      }));
      const moved = await registry.getByDevAddr('2700000A');
      expect(moved.ids).toMatchObject({ device_id: 'addr-1', dev_eui: EUI(0x40), dev_addr: '2700000A' });
      expect(await errorOf(registry.getByDevAddr('27000009'))).toMatchObject({ name: 'device_not_found' });
    });
  });

  it('refuses a second device with the same JoinEUI and DevEUI: end_device_euis_taken (code 6) naming the holder', async () => {
    await registry.set(setReq({ ids: ids('euis-1', { dev_eui: EUI(0x50), join_eui: EUI(0) }) }, []), CTX);
    const err = await errorOf(registry.set(setReq({ ids: ids('euis-2', { dev_eui: EUI(0x50), join_eui: EUI(0) }, 'app-engine-3') }, []), CTX));
    expect(err).toMatchObject({
      namespace: 'pkg/internal/registry',
      name: 'end_device_euis_taken',
      code: 6,
      attributes: { join_eui: EUI(0), dev_eui: EUI(0x50), device_id: 'euis-1', application_id: APP },
    });
    expect(await store.get('app-engine-3', 'euis-2')).toBeUndefined();
  });

  describe('keys at rest', () => {
    const KEKS = { keks: 'k1=000102030405060708090A0B0C0D0E0F', kekLabels: { ns: 'k1' } };
    const keyPaths = ['session.dev_addr', 'session.keys.f_nwk_s_int_key.key'];
    const keyOf = async (r: DeviceRegistry, dev: string) =>
      ((await r.get(getReq(ids(dev), ['session.keys.f_nwk_s_int_key']))) as { session?: { keys?: { f_nwk_s_int_key?: unknown } } }).session?.keys
        ?.f_nwk_s_int_key;

    it('a masked key path absent from the body clears the key, whether keys are wrapped at rest or not', async () => {
      for (const [dev, sealer] of [
        ['clear-key-plain', keySealerFor('ns', { keks: undefined, kekLabels: {} })],
        ['clear-key-kek', keySealerFor('ns', KEKS)],
      ] as const) {
        const r = new DeviceRegistry(store, POLICY, sealer, events, NO_COPY_SOURCE);
        await r.set(setReq({ ids: ids(dev), session: { dev_addr: '28000001', keys: { f_nwk_s_int_key: { key: KEY } } } }, keyPaths), CTX);
        expect(await keyOf(r, dev)).toEqual({ key: KEY });
        await r.set(setReq({ ids: ids(dev), session: { dev_addr: '28000001', keys: {} } }, keyPaths), CTX);
        expect(await keyOf(r, dev)).toBeUndefined();
        expect(await rawFields(APP, dev)).not.toContain('f_nwk_s_int_key');
      }
    });

    it('a new key replaces the whole stored envelope: no ciphertext of the old key is left beside it', async () => {
      const sealed = new DeviceRegistry(store, POLICY, keySealerFor('ns', KEKS), events, NO_COPY_SOURCE);
      await sealed.set(setReq({ ids: ids('rekey-1'), session: { dev_addr: '28000002', keys: { f_nwk_s_int_key: { key: KEY } } } }, keyPaths), CTX);
      expect(await rawFields(APP, 'rekey-1')).toContain('"kek_label":"k1"');
      // The operator drops the KEK label (KEKS still holds k1): new keys are stored plain.
      const unlabelled = new DeviceRegistry(store, POLICY, keySealerFor('ns', { keks: KEKS.keks, kekLabels: {} }), events, NO_COPY_SOURCE);
      expect(await keyOf(unlabelled, 'rekey-1')).toEqual({ key: KEY });
      await unlabelled.set(setReq({ ids: ids('rekey-1'), session: { dev_addr: '28000002', keys: { f_nwk_s_int_key: { key: KEY2 } } } }, keyPaths), CTX);
      expect(JSON.parse((await rawFields(APP, 'rekey-1')) ?? '{}')).toEqual({ session: { dev_addr: '28000002', keys: { f_nwk_s_int_key: { key: KEY2 } } } });
      expect(await keyOf(unlabelled, 'rekey-1')).toEqual({ key: KEY2 });
    });
  });

  describe('events (the policy’s create/update/delete, once per successful call)', () => {
    const transport = new InProcessBroker();
    const recorder = recordEvents(transport);
    let observed: DeviceRegistry;
    const visibility = { rights: ['RIGHT_APPLICATION_DEVICES_READ'] };
    const session = (devAddr: string) => ({ dev_addr: devAddr, keys: { f_nwk_s_int_key: { key: KEY } } });
    const SESSION = ['session.dev_addr', 'session.keys.f_nwk_s_int_key.key'];
    beforeAll(() => {
      observed = new DeviceRegistry(store, POLICY, keySealerFor('ns', { keks: undefined, kekLabels: {} }), new EventPublisher(transport), NO_COPY_SOURCE);
    });
    afterAll(async () => transport.close());

    it('create, update, delete name the device as stored: EUIs from creation, dev_addr as the policy keeps it', async () => {
      const [create, update, del] = ['Set', 'Set', 'Delete'].map((m) => rpcContext(`NsEndDeviceRegistry.${m}`));
      await observed.set(setReq({ ids: ids('ev-1', { dev_eui: EUI(0xe1), join_eui: EUI(0) }), session: session('27000001') }, SESSION), create);
      await observed.set(setReq({ ids: ids('ev-1'), session: session('27000002') }, ['session.dev_addr']), update);
      await observed.delete(delReq(ids('ev-1')), del);
      const stored = (devAddr: string) => [{ device_ids: ids('ev-1', { dev_eui: EUI(0xe1), join_eui: EUI(0), dev_addr: devAddr }) }];
      expect(await recorder.take()).toEqual([
        { name: 'ns.end_device.create', identifiers: stored('27000001'), correlation_ids: create.correlation_ids, visibility },
        {
          name: 'ns.end_device.update',
          identifiers: stored('27000002'),
          data: { '@type': 'type.googleapis.com/google.protobuf.Value', value: ['session.dev_addr'] },
          correlation_ids: update.correlation_ids,
          visibility,
        },
        { name: 'ns.end_device.delete', identifiers: stored('27000002'), correlation_ids: del.correlation_ids, visibility },
      ]);
    });

    it('concurrent Sets of a new device: one create, the others (which lost the creation) updates, each with its own call’s correlation IDs', async () => {
      const ctxs = Array.from({ length: 8 }, () => rpcContext('NsEndDeviceRegistry.Set'));
      await Promise.all(
        ctxs.map((ctx, i) => observed.set(setReq({ ids: ids('ev-race'), mac_settings: { rx1_delay: i + 1 } }, ['mac_settings.rx1_delay']), ctx)),
      );
      const published = await recorder.take();
      expect(published.map((e) => e.name).sort()).toEqual(['ns.end_device.create', ...Array(7).fill('ns.end_device.update')]);
      expect(published.map((e) => e.correlation_ids[0]).sort()).toEqual(ctxs.map((c) => c.correlation_ids[0]).sort());
    });

    it('nothing for a failed Set or Delete', async () => {
      const ctx = rpcContext('NsEndDeviceRegistry.Call');
      await observed.set(setReq({ ids: ids('ev-fail', { dev_eui: EUI(0xe2), join_eui: EUI(0) }) }, []), ctx);
      await observed.set(setReq({ ids: ids('ev-fail-2', { dev_eui: EUI(0xe3), join_eui: EUI(0) }) }, []), ctx);
      await recorder.take();
      const failures = [
        observed.set(setReq({ ids: ids('ev-fail'), frequency_plan_id: 'REFUSED' }, ['frequency_plan_id']), ctx), // The policy refuses.
        observed.set(setReq({ ids: ids('ev-fail'), frequency_plan_id: 'EU_863_870' }, ['no_such_path']), ctx), // The field mask.
        observed.set(setReq({ ids: ids('ev-fail', { dev_eui: EUI(0xe9) }) }, []), ctx), // A read-only identifier.
        observed.set(setReq({ ids: ids('ev-other', { dev_eui: EUI(0xe2), join_eui: EUI(0) }) }, []), ctx), // EUIs taken.
        observed.delete(delReq(ids('ev-ghost')), ctx),
        observed.delete(delReq(ids('ev-fail', { dev_eui: EUI(0xe3) })), ctx), // Several devices match.
      ];
      for (const failure of failures) await errorOf(failure);
      jest.spyOn(store, 'replace').mockResolvedValue('stale');
      jest.spyOn(store, 'delete').mockResolvedValue(false);
      try {
        expect(await errorOf(observed.set(setReq({ ids: ids('ev-fail'), frequency_plan_id: 'EU_863_870' }, ['frequency_plan_id']), ctx))).toMatchObject({
          name: 'concurrent_update',
        });
        expect(await errorOf(observed.delete(delReq(ids('ev-fail')), ctx))).toMatchObject({ name: 'concurrent_update' });
      } finally {
        jest.restoreAllMocks();
      }
      expect(await recorder.take()).toEqual([]);
      expect(await store.get(APP, 'ev-fail')).toBeDefined();
    });
  });

  it('without a copy source nothing is filled on creation', async () => {
    const bare = new DeviceRegistry(store, POLICY, keySealerFor('ns', { keks: undefined, kekLabels: {} }), events, NO_COPY_SOURCE);
    expect(await bare.set(setReq({ ids: ids('nocopy-1') }, ['frequency_plan_id']), CTX)).toEqual({ ids: ids('nocopy-1') });
    expect((await store.get(APP, 'nocopy-1'))?.fields).toEqual({});
  });
});

describe('DeviceRegistry engine with a device cache (the AS flavour, MySQL)', () => {
  let db: Awaited<ReturnType<typeof openTestDataSource>>;
  let store: TypeOrmDeviceStore;
  const keys = keySealerFor('as', { keks: undefined, kekLabels: {} });
  /** The registry under test (as the AS runs it, with NODE_ENV=test's frozen records), another replica, and the API's writes. */
  let cached: DeviceRegistry;
  let replica: DeviceRegistry;
  let api: DeviceRegistry;

  beforeAll(async () => {
    db = await openTestDataSource('as', [CreateEngineTestDevices1700000000000], 'mysql');
    store = new TypeOrmDeviceStore(db.ds);
    cached = new DeviceRegistry(store, POLICY, keys, events, NO_COPY_SOURCE, { deviceCacheSize: 2, freezeShared: true });
    replica = new DeviceRegistry(store, POLICY, keys, events, NO_COPY_SOURCE, { deviceCacheSize: 2 });
    api = new DeviceRegistry(store, POLICY, keys, events, NO_COPY_SOURCE);
  });
  afterAll(async () => db.close());
  afterEach(() => jest.restoreAllMocks());

  const key = (device_id: string) => ({ application_id: APP, device_id });
  const timeout = (device: Device) => (device.mac_settings as { class_c_timeout?: string } | undefined)?.class_c_timeout;
  const bump = (to: string) => (device: Device) => ({ device: { ...device, mac_settings: { class_c_timeout: to } }, result: undefined });
  const setClassCTimeout = (device_id: string, to: string) =>
    api.set(setReq({ ids: ids(device_id), mac_settings: { class_c_timeout: to } }, ['mac_settings.class_c_timeout']), CTX);

  it('stored reuses the record it read or wrote last while the device is unchanged (one statement, no document), never changed in place', async () => {
    await setClassCTimeout('as-1', '1s');
    const get = jest.spyOn(store, 'get');
    expect(timeout(await cached.stored(key('as-1')))).toBe('1s');
    expect(get.mock.calls[0][2]).toBeUndefined();
    const read = await get.mock.results[0].value;
    expect(timeout(await cached.stored(key('as-1')))).toBe('1s');
    expect(get.mock.calls[1][2]).toBe(read);
    expect(await get.mock.results[1].value).toBe(read);
    expect(() => ((read.fields.mac_settings as { class_c_timeout: string }).class_c_timeout = 'x')).toThrow(TypeError);
    // What a modify wrote is the next read's known record.
    await cached.modify(key('as-1'), bump('2s'), { read: await cached.stored(key('as-1')) });
    const written = get.mock.calls.length;
    expect(timeout(await cached.stored(key('as-1')))).toBe('2s');
    expect(await get.mock.results[written].value).toBe(get.mock.calls[written][2]);
    expect(get.mock.calls[written][2]).toMatchObject({ revision: read.revision + 1 });
  });

  it('sees what another replica or a Set through the API wrote, and a modify from an outdated read goes through the revision check', async () => {
    await setClassCTimeout('as-2', '1s');
    expect(timeout(await cached.stored(key('as-2')))).toBe('1s');
    await replica.modify(key('as-2'), bump('2s'));
    expect(timeout(await cached.stored(key('as-2')))).toBe('2s');
    const outdated = await cached.stored(key('as-2'));
    await setClassCTimeout('as-2', '3s');
    expect(timeout(await cached.stored(key('as-2')))).toBe('3s');
    let rounds = 0;
    await cached.modify(key('as-2'), (device) => ((rounds += 1), bump(`${Number(timeout(device)?.slice(0, -1)) + 1}s`)(device)), { read: outdated });
    expect(rounds).toBe(2);
    expect(timeout(await replica.stored(key('as-2')))).toBe('4s');
    expect(timeout(await cached.stored(key('as-2')))).toBe('4s');
  });

  it('a device deleted elsewhere is not found, and one created again (revision 1 again) is read afresh', async () => {
    await setClassCTimeout('as-3', '1s');
    expect(timeout(await cached.stored(key('as-3')))).toBe('1s');
    await api.delete(delReq(ids('as-3')), CTX);
    expect(await errorOf(cached.stored(key('as-3')))).toMatchObject({ name: 'device_not_found', code: 5 });
    await setClassCTimeout('as-3', '9s');
    expect(timeout(await cached.stored(key('as-3')))).toBe('9s');
    // Remembered again, then deleted and created again without a read in between: same revision, another creation.
    await api.delete(delReq(ids('as-3')), CTX);
    await setClassCTimeout('as-3', '8s');
    expect(timeout(await cached.stored(key('as-3')))).toBe('8s');
  });

  it('remembers at most its size, least recently used out', async () => {
    for (const id of ['lru-1', 'lru-2', 'lru-3']) await setClassCTimeout(id, '1s');
    for (const id of ['lru-1', 'lru-2', 'lru-3']) await cached.stored(key(id));
    const get = jest.spyOn(store, 'get');
    await cached.stored(key('lru-3'));
    await cached.stored(key('lru-2'));
    await cached.stored(key('lru-1'));
    expect(get.mock.calls.map((call) => call[2]?.ids.device_id)).toEqual(['lru-3', 'lru-2', undefined]);
  });
});
