import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Type } from '@nestjs/common';
import { BatchDeleteEndDevicesRequest, BatchSetEndDevicesRequest, type CallerIdentity, decodeMessage, Right, type RpcName } from '@lorawan/api';
import { EventPublisher } from '@lorawan/component';
import { loadConfig } from '@lorawan/config';
import type { ErrorDetails } from '@lorawan/errors';
import { recordEvents, rpcContext, startTestComponent, type TestComponent } from '@lorawan/testing';
import { InProcessBroker } from '@lorawan/transport';
import { DeviceRegistry, NO_COPY_SOURCE, type RegistryPolicy, type StoredDevice } from './device-registry';
import type { RegistrySet } from './registry-events.conformance';
import { CTX, errorOf, getReq, rawFieldsOf } from './registry-requests.conformance';
import { keySealerFor, type RegistryComponent } from './registry.providers';
import { openTestDataSource } from './registry-store.conformance';
import { TypeOrmDeviceStore } from './typeorm-device.store';
import type { RegistryService } from './registry.controller';

type Migrations = Parameters<typeof openTestDataSource>[1];

export interface RegistryBatchCase {
  component: RegistryComponent;
  service: RegistryService;
  migrations: Migrations;
  policy: RegistryPolicy<StoredDevice>;
  /** The component's Nest module, started on an in-process transport for the RPC-level cases. */
  module: Type<unknown>;
  /**
   * A valid Set creating device `device_id` of `application_id`, with a key in its mask (so it
   * needs `…_WRITE_KEYS`); `euis` (JS, NS) picks its JoinEUI + DevEUI, distinct per number.
   */
  device(application_id: string, device_id: string, euis: number): RegistrySet;
  /** A Set of `device_id` the registry's rules refuse (the policy's error, InvalidArgument). */
  invalid(application_id: string, device_id: string): RegistrySet;
  /** The name of the error `invalid` fails with. */
  invalidError: string;
  /** Whether JoinEUI + DevEUI identify one device (JS, NS). */
  uniqueEuis: boolean;
  /** The session DevAddr of `device(…, euis)`, when the registry keeps sessions (NS, AS): the data-plane lookup. */
  sessionDevAddr?: (euis: number) => string;
}

const KEKS = 'k1=000102030405060708090A0B0C0D0E0F';
const requestOf = (s: RegistrySet) => ({ end_device: s.end_device, field_mask: { paths: s.paths } });
const body = (application_id: string, sets: RegistrySet[]) => ({ application_ids: { application_id }, requests: sets.map(requestOf) });
const batchSet = (application_id: string, sets: RegistrySet[]) => decodeMessage(BatchSetEndDevicesRequest, body(application_id, sets));
const batchDelete = (application_id: string, device_ids: string[]) =>
  decodeMessage(BatchDeleteEndDevicesRequest, { application_ids: { application_id }, device_ids });

/** The chain of an error's `field` attributes, outermost first. */
function fieldsOf(error: ErrorDetails | undefined): unknown[] {
  const fields: unknown[] = [];
  for (let e = error; e; e = e.cause) if (e.attributes?.field !== undefined) fields.push(e.attributes.field);
  return fields;
}

/**
 * The batch routes of a JS/NS/AS registry (`<C>EndDeviceBatchRegistry.Set|Delete`): on the
 * component's schema on MySQL and on SQLite (keys sealed with a KEK), the engine's batch Set (all
 * or nothing, each request as the single Set, errors naming the request) and batch Delete (unknown
 * devices skipped, one batch event, data-plane lookups forgetting the devices); then through the
 * started component's handlers, the rights of every request's field mask.
 */
export function describeRegistryBatch(c: RegistryBatchCase): void {
  const batch = c.service.replace('EndDeviceRegistry', 'EndDeviceBatchRegistry');

  for (const driver of ['mysql', 'sqlite'] as const) {
    describe(`${batch} on ${driver === 'mysql' ? 'MySQL' : 'SQLite'}`, () => {
      const APP = `app-${c.component}-batch`;
      let db: Awaited<ReturnType<typeof openTestDataSource>>;
      let registry: DeviceRegistry<StoredDevice>;
      const broker = new InProcessBroker();
      const events = recordEvents(broker);
      const dev = (n: number) => c.device(APP, `dev-${n}`, n);
      const stored = async (n: number) => (await rawFieldsOf(db.ds, APP, `dev-${n}`)) !== undefined;

      beforeAll(async () => {
        db = await openTestDataSource(c.component, c.migrations, driver);
        const keys = keySealerFor(c.component, { keks: KEKS, kekLabels: { [c.component]: 'k1' } });
        registry = new DeviceRegistry(new TypeOrmDeviceStore(db.ds), c.policy, keys, new EventPublisher(broker), NO_COPY_SOURCE, { sessionCacheSize: 16 });
      });
      afterAll(async () => {
        await db.close();
        broker.close();
      });

      it('Set of N devices stores them all (keys sealed), answers each as a single Set would, publishes one create event per device', async () => {
        const sets = [0, 1, 2, 3, 4].map(dev);
        const res = await registry.batchSet(batchSet(APP, sets), CTX);
        expect(res.end_devices).toHaveLength(5);
        for (const [i, answer] of res.end_devices.entries()) {
          expect(answer).toEqual(await registry.get(getReq(sets[i].end_device.ids, sets[i].paths)));
          expect((answer as { ids: { device_id: string } }).ids.device_id).toBe(`dev-${i}`);
          expect(await rawFieldsOf(db.ds, APP, `dev-${i}`)).toContain('"kek_label":"k1"');
        }
        const published = await events.take();
        expect(published.map((e) => [e.name, (e.identifiers[0] as { device_ids: { device_id: string } }).device_ids.device_id])).toEqual(
          [0, 1, 2, 3, 4].map((i) => [c.policy.events.create.name, `dev-${i}`]),
        );
        expect(published.every((e) => e.correlation_ids.join() === CTX.correlation_ids.join())).toBe(true);
      });

      it('Set of existing and new devices: update events (data: the request’s paths) and create events, in request order', async () => {
        const res = await registry.batchSet(batchSet(APP, [dev(0), dev(5)]), CTX);
        expect(res.end_devices).toHaveLength(2);
        expect((await events.take()).map((e) => [e.name, e.data])).toEqual([
          [c.policy.events.update.name, { '@type': 'type.googleapis.com/google.protobuf.Value', value: dev(0).paths }],
          [c.policy.events.create.name, undefined],
        ]);
      });

      it('one request the rules refuse (index 2): 400 naming requests[2] with the rule’s error as cause; nothing stored, no event', async () => {
        const err = await errorOf(registry.batchSet(batchSet(APP, [dev(10), dev(11), c.invalid(APP, 'dev-12'), dev(13)]), CTX));
        expect(err).toMatchObject({ name: 'validation', code: 3, attributes: { field: 'requests[2]' }, cause: { name: c.invalidError } });
        expect(await Promise.all([10, 11, 12, 13].map(stored))).toEqual([false, false, false, false]);
        expect(await events.take()).toEqual([]);
      });

      it('one request that fails validation (index 2): the field chain requests[2] → end_device → ids → dev_eui, as the single Set names it', () => {
        const bad = dev(12);
        const sets = [dev(10), dev(11), { ...bad, end_device: { ...bad.end_device, ids: { ...bad.end_device.ids, dev_eui: 'not-an-eui' } } }];
        let error: ErrorDetails | undefined;
        try {
          batchSet(APP, sets);
        } catch (err) {
          error = (err as { toDetails(): ErrorDetails }).toDetails();
        }
        expect(error).toMatchObject({ name: 'validation', code: 3 });
        expect(fieldsOf(error)).toEqual(['requests[2]', 'end_device', 'ids', 'dev_eui']);
      });

      it('0 or more than 1000 requests: 400 on `requests`', () => {
        expect(() => batchSet(APP, [])).toThrow('value must contain at least 1 item(s)');
        const many = Array.from({ length: 1001 }, (_, i) => dev(1000 + i));
        expect(() => batchSet(APP, many)).toThrow('value must contain no more than 1000 item(s)');
      });

      it('a device ID twice, or a device of another application: 400 naming the request and the field; nothing stored', async () => {
        const twice = await errorOf(registry.batchSet(batchSet(APP, [dev(20), dev(21), dev(22), dev(21)]), CTX));
        expect(twice).toMatchObject({ name: 'validation', attributes: { field: 'requests[3]' } });
        expect(fieldsOf(twice)).toEqual(['requests[3]', 'end_device.ids.device_id']);
        const other = await errorOf(registry.batchSet(batchSet(APP, [dev(23), c.device('app-other', 'dev-24', 24)]), CTX));
        expect(fieldsOf(other)).toEqual(['requests[1]', 'end_device.ids.application_ids.application_id']);
        expect(await Promise.all([20, 21, 22, 23].map(stored))).toEqual([false, false, false, false]);
        expect(await rawFieldsOf(db.ds, 'app-other', 'dev-24')).toBeUndefined();
        expect(await events.take()).toEqual([]);
      });

      if (c.uniqueEuis) {
        it('JoinEUI + DevEUI of another device (stored, or earlier in the batch): 409 end_device_euis_taken with the index; nothing stored', async () => {
          const taken = await errorOf(registry.batchSet(batchSet(APP, [dev(30), c.device(APP, 'dev-31', 0)]), CTX));
          expect(taken).toMatchObject({ name: 'end_device_euis_taken', code: 6, attributes: { index: 1, device_id: 'dev-0' } });
          expect(taken.cause).toMatchObject({ name: 'end_device_euis_taken' });
          const twice = await errorOf(registry.batchSet(batchSet(APP, [dev(32), dev(33), c.device(APP, 'dev-34', 33)]), CTX));
          expect(twice).toMatchObject({ name: 'end_device_euis_taken', attributes: { index: 2, device_id: 'dev-33' } });
          expect(await Promise.all([30, 31, 32, 33, 34].map(stored))).toEqual([false, false, false, false, false]);
          expect(await events.take()).toEqual([]);
        });
      }

      it('Delete: the devices that exist, unknown IDs skipped; one batch event naming the deleted devices; nothing when none existed', async () => {
        const before = (await registry.get(getReq({ device_id: 'dev-1', application_ids: { application_id: APP } }))) as { ids: object };
        expect(await registry.batchDelete(batchDelete(APP, ['dev-1', 'no-such-device', 'dev-2']), CTX)).toEqual({});
        expect(await Promise.all([0, 1, 2, 3].map(stored))).toEqual([true, false, false, true]);
        const [event, ...more] = await events.take();
        expect(more).toEqual([]);
        expect(event).toMatchObject({
          name: c.policy.events.batchDelete.name,
          identifiers: [{ application_ids: { application_id: APP } }],
          correlation_ids: CTX.correlation_ids,
        });
        const deleted = (event.data as { end_device_ids: Array<{ device_id: string }> }).end_device_ids;
        expect(deleted.map((ids) => ids.device_id).sort()).toEqual(['dev-1', 'dev-2']);
        expect(deleted.find((ids) => ids.device_id === 'dev-1')).toEqual(before.ids);
        expect(await registry.batchDelete(batchDelete(APP, ['no-such-device', 'dev-1']), CTX)).toEqual({});
        expect(await events.take()).toEqual([]);
      });

      if (c.sessionDevAddr) {
        const devAddrOf = c.sessionDevAddr;
        it('Delete: the data-plane lookups forget the deleted devices, also when a device of the same ID comes back', async () => {
          const devAddr = devAddrOf(3);
          // A data-plane write (an uplink's) remembers the device for lookups by its session DevAddr.
          await registry.modify({ application_id: APP, device_id: 'dev-3' }, (device) => ({ device, result: undefined }));
          const [old] = await registry.bySessionDevAddr(devAddr);
          expect(old.ids.device_id).toBe('dev-3');
          await registry.batchDelete(batchDelete(APP, ['dev-3']), CTX);
          expect(await registry.bySessionDevAddr(devAddr)).toEqual([]);
          // Re-created and updated once: at the revision of the record remembered before the delete.
          await new Promise((resolve) => setTimeout(resolve, 2));
          await registry.batchSet(batchSet(APP, [dev(3)]), CTX);
          await registry.batchSet(batchSet(APP, [dev(3)]), CTX);
          const [found] = await registry.bySessionDevAddr(devAddr);
          expect(found.ids.device_id).toBe('dev-3');
          expect(found.created_at).not.toBe(old.created_at);
          await events.take();
        });
      }
    });
  }

  describe(`${batch} handlers (rights of every request’s field mask)`, () => {
    const dir = mkdtempSync(join(tmpdir(), `lw-${c.component}-batch-`));
    const APP = `app-${c.component}-batch-rpc`;
    let component: TestComponent;
    const caller = (rights: Right[]): CallerIdentity => ({
      kind: 'api-key',
      id: 'spec',
      is_admin: false,
      key_rights: rights,
      universal: false,
      rights,
      entity: { kind: 'application', id: APP },
    });
    const call = async (method: 'Set' | 'Delete', request: object, rights: Right[]) => {
      const name = `${batch}.${method}` as RpcName;
      return component.call(name, request, rpcContext(name, caller(rights)));
    };
    const { RIGHT_APPLICATION_DEVICES_WRITE: WRITE, RIGHT_APPLICATION_DEVICES_WRITE_KEYS: WRITE_KEYS } = Right;

    beforeAll(async () => {
      component = await startTestComponent(c.module, {
        component: c.component,
        config: loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'error', MQTT_PORT: '0', MQTT_HOST: '127.0.0.1' }),
      });
    });
    afterAll(async () => {
      await component.close();
      component.broker.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('Set needs DEVICES_WRITE and the key rights any request’s mask calls for', async () => {
      const sets = [c.device(APP, 'dev-1', 101), c.device(APP, 'dev-2', 102)];
      const withoutKeys = { ...sets[0], paths: sets[0].paths.filter((p) => !p.includes('key')) };
      expect(await call('Set', body(APP, sets), [WRITE])).toMatchObject({ error: { name: 'insufficient_application_rights', code: 7 } });
      expect(await call('Set', body(APP, [withoutKeys, sets[1]]), [WRITE])).toMatchObject({ error: { name: 'insufficient_application_rights' } });
      const ok = await call('Set', body(APP, sets), [WRITE, WRITE_KEYS]);
      expect(ok).toMatchObject({ ok: { end_devices: [{ ids: { device_id: 'dev-1' } }, { ids: { device_id: 'dev-2' } }] } });
    });

    it('Delete needs DEVICES_WRITE; answers {}', async () => {
      expect(await call('Delete', { application_ids: { application_id: APP }, device_ids: ['dev-1'] }, [Right.RIGHT_APPLICATION_DEVICES_READ])).toMatchObject({
        error: { name: 'insufficient_application_rights' },
      });
      expect(await call('Delete', { application_ids: { application_id: APP }, device_ids: ['dev-1', 'dev-2', 'dev-9'] }, [WRITE])).toEqual({ ok: {} });
    });
  });
}
