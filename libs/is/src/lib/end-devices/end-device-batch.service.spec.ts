import { BatchCreateEndDevicesRequest, BatchDeleteEndDevicesRequest, BatchGetEndDevicesRequest, decodeMessage, type EntityRef } from '@lorawan/api';
import { EventPublisher } from '@lorawan/component';
import type { StackError } from '@lorawan/errors';
import { type EventRecorder, recordEvents, rpcContext } from '@lorawan/testing';
import { InProcessBroker } from '@lorawan/transport';
import type { IdentityDirectory } from '../identity.contracts';
import { type OpenedDatabase, openIsSqlite } from '../is-test-databases.conformance';
import { EndDeviceRegistryService } from './end-device-registry.service';
import { TypeOrmEndDeviceStore } from './typeorm-end-device.store';

const directory: IdentityDirectory = {
  user: async () => undefined,
  exists: async (entity: EntityRef) => entity.kind === 'application' && entity.id === 'app1',
  collaboratorRights: async () => [],
};

const ids = (device_id: string, extra: object = {}) => ({ device_id, application_ids: { application_id: 'app1' }, ...extra });

/** The EndDeviceBatchRegistry of the Identity Server, on the embedded store. */
describe('EndDeviceRegistryService batch calls', () => {
  let db: OpenedDatabase;
  let transport: InProcessBroker;
  let events: EventRecorder;
  let store: TypeOrmEndDeviceStore;
  let service: EndDeviceRegistryService;
  const ctx = rpcContext('EndDeviceBatchRegistry.Call');
  beforeEach(async () => {
    db = await openIsSqlite();
    transport = new InProcessBroker();
    events = recordEvents(transport);
    store = new TypeOrmEndDeviceStore(db.ds);
    service = new EndDeviceRegistryService(store, directory, new EventPublisher(transport));
  });
  afterEach(async () => {
    await transport.close();
    await db.close();
  });

  // Async, so a request the decoder refuses is a rejection as it is on the transport.
  const create = async (end_devices: object[], app = 'app1') =>
    service.batchCreate(decodeMessage(BatchCreateEndDevicesRequest, { application_ids: { application_id: app }, end_devices }), ctx);
  const total = async () => (await store.list('app1', { order: 'device_id', descending: false, limit: 1, offset: 0 })).total;

  it('Create stores every device in order, answers each as the single Create does, and publishes end_device.create per device', async () => {
    const out = await create([{ ids: ids('dev-b', { dev_eui: '70b3d57ed005b59e', join_eui: '0000000000000001' }), name: 'B' }, { ids: ids('dev-a') }]);
    expect(out.end_devices.map((d) => d.ids.device_id)).toEqual(['dev-b', 'dev-a']);
    expect(out.end_devices[0]).toMatchObject({ ids: { dev_eui: '70B3D57ED005B59E' }, name: 'B' });
    expect(out.end_devices[0].created_at).toBe(out.end_devices[0].updated_at);
    expect(await store.get('app1', 'dev-b')).toEqual(out.end_devices[0]);
    expect(await total()).toBe(2);
    expect((await events.take()).map((e) => [e.name, e.identifiers])).toEqual([
      ['end_device.create', [{ device_ids: ids('dev-b', { dev_eui: '70B3D57ED005B59E', join_eui: '0000000000000001' }) }]],
      ['end_device.create', [{ device_ids: ids('dev-a') }]],
    ]);
  });

  it('refuses 0 or more than 1000 devices, and an invalid device naming its index and field, storing nothing', async () => {
    const refused = (end_devices: object[]) => expect(create(end_devices)).rejects;
    await refused([]).toMatchObject({ code: 3, attributes: { field: 'end_devices' } } satisfies Partial<StackError>);
    await refused(Array.from({ length: 1001 }, (_, i) => ({ ids: ids(`dev-${i}`) }))).toMatchObject({ code: 3, attributes: { field: 'end_devices' } });
    const bad = [{ ids: ids('dev-1') }, { ids: ids('dev-2') }, { ids: ids('dev-3') }, { ids: ids('dev-4', { dev_eui: 'nothex' }) }];
    await expect(create(bad)).rejects.toMatchObject({
      code: 3,
      attributes: { field: 'end_devices[3]' },
      details: { attributes: { field: 'ids' }, cause: { attributes: { field: 'dev_eui' } } },
    });
    await refused([{ ids: ids('dev-1') }, { ids: { device_id: 'dev-2', application_ids: { application_id: 'other' } } }]).toMatchObject({
      code: 3,
      attributes: { field: 'end_devices[1]' },
      details: { attributes: { field: 'ids.application_ids.application_id' } },
    });
    expect(await total()).toBe(0);
    expect(await events.take()).toEqual([]);
  });

  it('refuses a device of an application that does not exist', async () => {
    await expect(create([{ ids: { device_id: 'dev-1', application_ids: { application_id: 'gone' } } }], 'gone')).rejects.toMatchObject({
      errorName: 'application_not_found',
    });
  });

  it('a taken ID or EUI pair, within the batch or in the store, is the single Create’s error wrapped with the index; nothing is stored', async () => {
    const euis = { dev_eui: '0102030405060708', join_eui: '1112131415161718' };
    await create([{ ids: ids('held', euis) }]);
    await events.take();
    const cases: Array<[object[], number, string]> = [
      [[{ ids: ids('new-1') }, { ids: ids('new-2') }, { ids: ids('new-1') }], 2, 'id_taken'],
      [
        [{ ids: ids('new-1', { ...euis, join_eui: '2122232425262728' }) }, { ids: ids('new-2', { ...euis, join_eui: '2122232425262728' }) }],
        1,
        'end_device_euis_taken',
      ],
      [[{ ids: ids('new-1') }, { ids: ids('held') }], 1, 'id_taken'],
      [[{ ids: ids('new-1') }, { ids: ids('new-2') }, { ids: ids('new-3', euis) }], 2, 'end_device_euis_taken'],
    ];
    for (const [devices, index, name] of cases) {
      await expect(create(devices)).rejects.toMatchObject({ errorName: name, code: 6, attributes: { index }, details: { name } });
    }
    await expect(create([{ ids: ids('new-3', euis) }])).rejects.toMatchObject({
      attributes: { index: 0, device_id: 'held', application_id: 'app1' },
    });
    expect(await store.get('app1', 'new-1')).toBeUndefined();
    expect(await total()).toBe(1);
    expect(await events.take()).toEqual([]);
  });

  it('Get answers the devices found, ordered by device ID, with the mask’s fields; the others are skipped', async () => {
    await create([
      { ids: ids('dev-b'), name: 'B', description: 'b' },
      { ids: ids('dev-a'), name: 'A' },
    ]);
    const get = async (q: object) => service.batchGet(decodeMessage(BatchGetEndDevicesRequest, { application_ids: { application_id: 'app1' }, ...q }));
    const out = await get({ device_ids: ['dev-b', 'nope', 'dev-a'], field_mask: 'name' });
    expect(out.end_devices?.map((d) => [d.ids?.device_id, d.name, d.description])).toEqual([
      ['dev-a', 'A', undefined],
      ['dev-b', 'B', undefined],
    ]);
    expect(await get({ device_ids: ['nope'] })).toEqual({});
    await expect(get({ device_ids: [] })).rejects.toMatchObject({ code: 3, attributes: { field: 'device_ids' } });
    await expect(get({ device_ids: Array.from({ length: 21 }, (_, i) => `dev-${i}`) })).rejects.toMatchObject({ code: 3 });
    await expect(get({ device_ids: ['dev-a'], field_mask: 'mac_state' })).rejects.toMatchObject({ code: 3 });
  });

  it('Delete removes the devices found at once and publishes one end_device.batch.delete naming them; none found: no event', async () => {
    const euis = { dev_eui: '0102030405060708', join_eui: '1112131415161718' };
    await create([{ ids: ids('dev-a', euis) }, { ids: ids('dev-b') }, { ids: ids('dev-c') }]);
    await events.take();
    const del = async (device_ids: string[]) =>
      service.batchDelete(decodeMessage(BatchDeleteEndDevicesRequest, { application_ids: { application_id: 'app1' }, device_ids }), ctx);
    expect(await del(['dev-b', 'nope', 'dev-a'])).toEqual({});
    expect(await store.getMany('app1', ['dev-a', 'dev-b', 'dev-c'])).toHaveLength(1);
    expect(await total()).toBe(1);
    expect(await events.take()).toEqual([
      {
        name: 'end_device.batch.delete',
        identifiers: [{ application_ids: { application_id: 'app1' } }],
        data: { '@type': 'type.googleapis.com/ttn.lorawan.v3.EndDeviceIdentifiersList', end_device_ids: [ids('dev-a', euis), ids('dev-b')] },
        correlation_ids: ctx.correlation_ids,
        visibility: { rights: ['RIGHT_APPLICATION_DEVICES_READ'] },
      },
    ]);
    expect(await del(['dev-a', 'nope'])).toEqual({});
    expect(await events.take()).toEqual([]);
  });
});
