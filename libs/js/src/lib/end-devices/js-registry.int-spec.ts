import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { copySourceFor, DeviceRegistry, keySealerFor, TypeOrmDeviceStore } from '@lorawan/registry';
import { CTX, delReq, errorOf, getReq, openTestDataSource, rawFieldsOf, setReq, unobservedEvents } from '@lorawan/registry/conformance';
import { JS_MIGRATIONS } from '../migrations';
import type { JsDevice } from './js-device';
import { JS_REGISTRY_POLICY } from './js-registry.policy';

/** The Join Server's registry (JS_REGISTRY_POLICY on the DeviceRegistry engine) against a real store. */

const APP = 'app-js';
const APP_KEY = '00112233445566778899AABBCCDDEEFF';
const NWK_KEY = '0F0E0D0C0B0A09080706050403020100';
const ZERO_KEY = '00000000000000000000000000000000';
const ZERO_EUI = '0000000000000000';
const JOIN_EUI = '70B3D57ED0000000';
const KEKS = 'k1=000102030405060708090A0B0C0D0E0F';
/** RFC 3394 §4.1: APP_KEY wrapped with KEK 000102…0F. */
const WRAPPED_APP_KEY = Buffer.from('1FA68B0A8112B447AEF34BD8FB5A7B829D3E862371D2CFE5', 'hex').toString('base64');
const EUI = (n: number) => `70B3D57ED0${n.toString(16).toUpperCase().padStart(6, '0')}`;
const ids = (
  device_id: string,
  extra: Record<string, string | undefined> = { dev_eui: EUI(Number.parseInt(device_id.replace(/\D/g, '') || '0', 10)), join_eui: JOIN_EUI },
) => ({
  device_id,
  application_ids: { application_id: APP },
  ...extra,
});

type Db = Awaited<ReturnType<typeof openTestDataSource>>;
const rawFields = (db: Db, dev: string) => rawFieldsOf(db.ds, APP, dev);

const events = unobservedEvents();

describe('JsEndDeviceRegistry (SQLite)', () => {
  let db: Db;
  let store: TypeOrmDeviceStore;
  let registry: DeviceRegistry<JsDevice>;
  const plain = () => keySealerFor('js', { keks: undefined, kekLabels: {} });

  beforeAll(async () => {
    db = await openTestDataSource('js', JS_MIGRATIONS, 'sqlite');
    store = new TypeOrmDeviceStore(db.ds);
    registry = new DeviceRegistry(store, JS_REGISTRY_POLICY, plain(), events, copySourceFor({}));
  });
  afterAll(async () => db.close());

  it('creates, gets (root keys only when masked), deletes ({}), then answers pkg/joinserver:device_not_found (404)', async () => {
    const res = await registry.set(
      setReq({ ids: ids('dev-1'), root_keys: { root_key_id: 'rk', app_key: { key: APP_KEY.toLowerCase() } } }, [
        'root_keys.app_key.key',
        'root_keys.root_key_id',
      ]),
      CTX,
    );
    expect(res).toEqual({ ids: ids('dev-1'), root_keys: { root_key_id: 'rk', app_key: { key: APP_KEY } } });
    expect(await registry.get(getReq(ids('dev-1', {})))).toEqual({ ids: ids('dev-1') });
    expect(await registry.get(getReq(ids('dev-1', {}), ['root_keys.root_key_id']))).toEqual({ ids: ids('dev-1'), root_keys: { root_key_id: 'rk' } });
    expect(await registry.get(getReq(ids('dev-1', {}), ['root_keys']))).toEqual({
      ids: ids('dev-1'),
      root_keys: { root_key_id: 'rk', app_key: { key: APP_KEY } },
    });
    expect(await registry.delete(delReq(ids('dev-1', {})), CTX)).toEqual({});
    for (const call of [registry.get(getReq(ids('dev-1', {}), ['root_keys'])), registry.delete(delReq(ids('dev-1', {})), CTX)]) {
      expect(await errorOf(call)).toMatchObject({ namespace: 'pkg/joinserver', name: 'device_not_found', code: 5, attributes: { device_uid: `${APP}.dev-1` } });
    }
  });

  describe('identifiers', () => {
    it('missing join_eui → pkg/joinserver:no_join_eui (on create and on update)', async () => {
      const err = await errorOf(registry.set(setReq({ ids: ids('dev-10', { dev_eui: EUI(10) }) }, ['resets_join_nonces']), CTX));
      expect(err).toMatchObject({ namespace: 'pkg/joinserver', name: 'no_join_eui', code: 3 });
      expect(await store.get(APP, 'dev-10')).toBeUndefined();
      await registry.set(setReq({ ids: ids('dev-10') }, []), CTX);
      expect(
        await errorOf(registry.set(setReq({ ids: ids('dev-10', { dev_eui: EUI(10) }), resets_join_nonces: true }, ['resets_join_nonces']), CTX)),
      ).toMatchObject({ name: 'no_join_eui' });
    });

    it('the zero JoinEUI is allowed', async () => {
      const res = await registry.set(setReq({ ids: ids('dev-11', { dev_eui: EUI(11), join_eui: ZERO_EUI }) }, []), CTX);
      expect(res).toEqual({ ids: ids('dev-11', { dev_eui: EUI(11), join_eui: ZERO_EUI }) });
      expect((await store.get(APP, 'dev-11'))?.ids.join_eui).toBe(ZERO_EUI);
    });

    it('missing or zero dev_eui → pkg/joinserver:no_dev_eui', async () => {
      expect(await errorOf(registry.set(setReq({ ids: ids('dev-12', { join_eui: JOIN_EUI }) }, []), CTX))).toMatchObject({
        namespace: 'pkg/joinserver',
        name: 'no_dev_eui',
        code: 3,
      });
      expect(await errorOf(registry.set(setReq({ ids: ids('dev-12', { dev_eui: ZERO_EUI, join_eui: JOIN_EUI }) }, []), CTX))).toMatchObject({
        namespace: 'pkg/joinserver',
        name: 'no_dev_eui',
        code: 3,
      });
      expect(await store.get(APP, 'dev-12')).toBeUndefined();
    });

    it('a second device with the same JoinEUI and DevEUI → pkg/internal/registry:end_device_euis_taken (6); another JoinEUI is fine', async () => {
      await registry.set(setReq({ ids: ids('dev-13') }, []), CTX);
      const err = await errorOf(
        registry.set(setReq({ ids: { ...ids('dev-14', { dev_eui: EUI(13), join_eui: JOIN_EUI }), application_ids: { application_id: 'app-js-2' } } }, []), CTX),
      );
      expect(err).toMatchObject({
        namespace: 'pkg/internal/registry',
        name: 'end_device_euis_taken',
        code: 6,
        attributes: { join_eui: JOIN_EUI, dev_eui: EUI(13), device_id: 'dev-13', application_id: APP },
      });
      await registry.set(setReq({ ids: ids('dev-14', { dev_eui: EUI(13), join_eui: ZERO_EUI }) }, []), CTX);
    });

    it('a DevEUI other than the stored one → pkg/joinserver:read_only_field ids.dev_eui', async () => {
      await registry.set(setReq({ ids: ids('dev-15') }, []), CTX);
      expect(await errorOf(registry.set(setReq({ ids: ids('dev-15', { dev_eui: EUI(99), join_eui: JOIN_EUI }) }, []), CTX))).toMatchObject({
        namespace: 'pkg/joinserver',
        name: 'read_only_field',
        attributes: { field: 'ids.dev_eui' },
      });
    });
  });

  describe('root keys', () => {
    it('a masked root key missing from the body counts as zero (as TTS) → field_value; masking the envelope removes it', async () => {
      await registry.set(setReq({ ids: ids('dev-19'), root_keys: { app_key: { key: APP_KEY } } }, ['root_keys.app_key.key']), CTX);
      expect(await errorOf(registry.set(setReq({ ids: ids('dev-19') }, ['root_keys.app_key.key']), CTX))).toMatchObject({
        name: 'field_value',
        attributes: { field: 'root_keys.app_key.key' },
      });
      await registry.set(setReq({ ids: ids('dev-19') }, ['root_keys.app_key']), CTX);
      expect((await registry.get(getReq(ids('dev-19'), ['root_keys']))).root_keys).toEqual({});
    });

    it('a zero root key with its path masked → pkg/joinserver:field_value, cause field_is_zero; nothing is stored', async () => {
      for (const name of ['app_key', 'nwk_key']) {
        for (const path of [`root_keys.${name}.key`, `root_keys.${name}`, 'root_keys']) {
          const err = await errorOf(registry.set(setReq({ ids: ids('dev-20'), root_keys: { [name]: { key: ZERO_KEY } } }, [path]), CTX));
          expect(err).toMatchObject({
            namespace: 'pkg/joinserver',
            name: 'field_value',
            code: 3,
            attributes: { field: `root_keys.${name}.key` },
            cause: { namespace: 'pkg/joinserver', name: 'field_is_zero', attributes: { name: `root_keys.${name}.key` } },
          });
        }
      }
      expect(await store.get(APP, 'dev-20')).toBeUndefined();
    });

    it('a zero key that is not masked is ignored (not stored)', async () => {
      await registry.set(setReq({ ids: ids('dev-21'), root_keys: { app_key: { key: APP_KEY }, nwk_key: { key: ZERO_KEY } } }, ['root_keys.app_key.key']), CTX);
      expect((await store.get(APP, 'dev-21'))?.fields).toEqual({ root_keys: { app_key: { key: APP_KEY } } });
    });

    it('a failing update leaves the stored device unchanged (revision and updated_at included)', async () => {
      await registry.set(setReq({ ids: ids('dev-22'), root_keys: { app_key: { key: APP_KEY } } }, ['root_keys.app_key.key']), CTX);
      const before = await store.get(APP, 'dev-22');
      await errorOf(
        registry.set(
          setReq({ ids: ids('dev-22'), resets_join_nonces: true, root_keys: { app_key: { key: ZERO_KEY } } }, ['resets_join_nonces', 'root_keys.app_key.key']),
          CTX,
        ),
      );
      expect(await store.get(APP, 'dev-22')).toEqual(before);
    });

    it('both keys and root_key_id round-trip; masking one key leaves the other', async () => {
      await registry.set(
        setReq({ ids: ids('dev-23'), root_keys: { root_key_id: 'id-1', app_key: { key: APP_KEY }, nwk_key: { key: NWK_KEY } } }, ['root_keys']),
        CTX,
      );
      await registry.set(setReq({ ids: ids('dev-23'), root_keys: { nwk_key: { key: APP_KEY } } }, ['root_keys.nwk_key.key']), CTX);
      expect(await registry.get(getReq(ids('dev-23', {}), ['root_keys']))).toEqual({
        ids: ids('dev-23'),
        root_keys: { root_key_id: 'id-1', app_key: { key: APP_KEY }, nwk_key: { key: APP_KEY } },
      });
    });
  });

  describe('Copy on create: resets_join_nonces', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'js-templates-'));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    const withCopy = (config: Parameters<typeof copySourceFor>[0]) => new DeviceRegistry(store, JS_REGISTRY_POLICY, plain(), events, copySourceFor(config));
    const LHT65 = { brand_id: 'dragino', model_id: 'lht65' };

    it('is copied from the matching template (bundled dragino/lht65: false), which wins over the profile', async () => {
      const r = withCopy({ defaultDeviceProfile: { resets_join_nonces: true } });
      const res = await r.set(setReq({ ids: ids('dev-30'), version_ids: LHT65 }, []), CTX);
      expect(res).toEqual({ ids: ids('dev-30'), resets_join_nonces: false });
      expect((await store.get(APP, 'dev-30'))?.fields).toEqual({ resets_join_nonces: false });
    });

    it('is copied from an operator template that sets it', async () => {
      const file = join(dir, 'templates.json');
      writeFileSync(
        file,
        JSON.stringify({
          templates: [{ version_ids: { brand_id: 'acme', model_id: 'resetter' }, end_device: { resets_join_nonces: true, supports_join: true } }],
        }),
      );
      const r = withCopy({ deviceTemplatesFile: file });
      await r.set(setReq({ ids: ids('dev-31'), version_ids: { brand_id: 'acme', model_id: 'resetter', firmware_version: '2.0' } }, []), CTX);
      expect((await store.get(APP, 'dev-31'))?.fields).toEqual({ resets_join_nonces: true });
    });

    it('is copied from the default profile when no template matches', async () => {
      const r = withCopy({ defaultDeviceProfile: { resets_join_nonces: true, lorawan_version: 'MAC_V1_0_3' } });
      expect(await r.set(setReq({ ids: ids('dev-32'), version_ids: { brand_id: 'unknown-brand', model_id: 'model-x' } }, []), CTX)).toEqual({
        ids: ids('dev-32'),
        resets_join_nonces: true,
      });
      await r.set(setReq({ ids: ids('dev-33') }, []), CTX);
      // Only the JS's Copy field: lorawan_version is not a JS field.
      expect((await store.get(APP, 'dev-33'))?.fields).toEqual({ resets_join_nonces: true });
    });

    it('a value in the request is kept; an update never copies', async () => {
      const r = withCopy({ defaultDeviceProfile: { resets_join_nonces: true } });
      await r.set(setReq({ ids: ids('dev-34'), resets_join_nonces: false, version_ids: LHT65 }, ['resets_join_nonces']), CTX);
      expect((await store.get(APP, 'dev-34'))?.fields).toEqual({ resets_join_nonces: false });
      await registry.set(setReq({ ids: ids('dev-35') }, []), CTX);
      await r.set(setReq({ ids: ids('dev-35') }, ['resets_join_nonces']), CTX);
      expect((await store.get(APP, 'dev-35'))?.fields).toEqual({});
    });
  });

  it('a label that is not in KEKS fails fast', () => {
    expect(() => keySealerFor('js', { keks: KEKS, kekLabels: { js: 'k2' } })).toThrow(/JS_KEK_LABEL "k2"/);
    expect(() => keySealerFor('js', { keks: undefined, kekLabels: { js: 'k1' } })).toThrow(/JS_KEK_LABEL "k1"/);
  });
});

for (const driver of ['sqlite', 'mysql'] as const) {
  describe(`JsEndDeviceRegistry root keys at rest (${driver === 'mysql' ? 'MySQL' : 'SQLite'})`, () => {
    let db: Db;
    let store: TypeOrmDeviceStore;
    beforeAll(async () => {
      db = await openTestDataSource('js', JS_MIGRATIONS, driver);
      store = new TypeOrmDeviceStore(db.ds);
    });
    afterAll(async () => db.close());

    it('with a KEK label the fields column holds kek_label and the RFC 3394 wrap, never the plain key; Get root_keys answers the plain key', async () => {
      const registry = new DeviceRegistry(store, JS_REGISTRY_POLICY, keySealerFor('js', { keks: KEKS, kekLabels: { js: 'k1' } }), events, copySourceFor({}));
      const res = await registry.set(
        setReq({ ids: ids('kek-1'), root_keys: { app_key: { key: APP_KEY }, nwk_key: { key: NWK_KEY } } }, ['root_keys.app_key.key', 'root_keys.nwk_key.key']),
        CTX,
      );
      expect(res).toEqual({ ids: ids('kek-1'), root_keys: { app_key: { key: APP_KEY }, nwk_key: { key: NWK_KEY } } });
      const raw = (await rawFields(db, 'kek-1')) ?? '';
      const stored = JSON.parse(raw) as { root_keys: Record<string, Record<string, string>> };
      expect(stored.root_keys['app_key']).toEqual({ kek_label: 'k1', encrypted_key: WRAPPED_APP_KEY });
      expect(stored.root_keys['nwk_key']).toEqual({ kek_label: 'k1', encrypted_key: expect.any(String) });
      for (const key of [APP_KEY, NWK_KEY]) {
        expect(raw.toUpperCase()).not.toContain(key);
        expect(raw).not.toContain(Buffer.from(key, 'hex').toString('base64'));
      }
      expect(await registry.get(getReq(ids('kek-1', {}), ['root_keys']))).toEqual({
        ids: ids('kek-1'),
        root_keys: { app_key: { key: APP_KEY }, nwk_key: { key: NWK_KEY } },
      });
      expect(await registry.get(getReq(ids('kek-1', {}), ['root_keys.app_key.key']))).toEqual({ ids: ids('kek-1'), root_keys: { app_key: { key: APP_KEY } } });
      // An update of another field keeps the wrapped key as it was.
      await registry.set(setReq({ ids: ids('kek-1'), resets_join_nonces: true }, ['resets_join_nonces']), CTX);
      expect((JSON.parse((await rawFields(db, 'kek-1')) ?? '{}') as typeof stored).root_keys['app_key']).toEqual({
        kek_label: 'k1',
        encrypted_key: WRAPPED_APP_KEY,
      });
    });

    it('without a KEK label the key is stored plain', async () => {
      const registry = new DeviceRegistry(store, JS_REGISTRY_POLICY, keySealerFor('js', { keks: KEKS, kekLabels: {} }), events, copySourceFor({}));
      await registry.set(setReq({ ids: ids('kek-2'), root_keys: { app_key: { key: APP_KEY } } }, ['root_keys.app_key.key']), CTX);
      expect(JSON.parse((await rawFields(db, 'kek-2')) ?? '{}')).toEqual({ root_keys: { app_key: { key: APP_KEY } } });
      expect(await registry.get(getReq(ids('kek-2', {}), ['root_keys']))).toEqual({ ids: ids('kek-2'), root_keys: { app_key: { key: APP_KEY } } });
    });
  });
}
