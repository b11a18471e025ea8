import { EndDeviceRegistryService } from './end-device-registry.service';
import type { CreateResult, EndDeviceStore, IsEndDevice } from './end-device.model';
import {
  CreateEndDeviceRequest,
  decodeMessage,
  DeleteEndDeviceRequest,
  type EntityRef,
  ListEndDevicesRequest,
  SearchEndDevicesRequest,
  UpdateEndDeviceRequest,
} from '@lorawan/api';
import { EventPublisher } from '@lorawan/component';
import type { StackError } from '@lorawan/errors';
import { type EventRecorder, recordEvents, rpcContext } from '@lorawan/testing';
import { InProcessBroker } from '@lorawan/transport';
import type { IdentityDirectory } from '../identity.contracts';

/** A directory knowing the given applications (live ones only). */
function directoryWith(...applicationIds: string[]): IdentityDirectory {
  return {
    user: async () => undefined,
    exists: async (entity: EntityRef) => entity.kind === 'application' && applicationIds.includes(entity.id),
    collaboratorRights: async () => [],
  };
}

/** A store that loses the optimistic race a given number of times, to exercise the retry. */
function storeWith(device: IsEndDevice, losses: number): EndDeviceStore & { replaced: IsEndDevice[]; searches: unknown[][] } {
  let current = device;
  let toLose = losses;
  const replaced: IsEndDevice[] = [];
  const searches: unknown[][] = [];
  return {
    replaced,
    searches,
    create: async (): Promise<CreateResult> => ({ ok: true }),
    get: async () => current,
    findByEuis: async () => undefined,
    list: async () => ({ devices: [current], total: 1 }),
    search: async (...args) => {
      searches.push(args);
      return { devices: [{ ...current, attributes: { room: 'kitchen' } }], total: 7 };
    },
    replace: async (d, expected) => {
      if (toLose-- > 0 || expected !== current.updated_at) return false;
      current = d;
      replaced.push(d);
      return true;
    },
    delete: async () => true,
    createMany: async () => ({ ok: true }),
    getMany: async () => [current],
    deleteMany: async () => [],
  };
}

const existing: IsEndDevice = {
  ids: { device_id: 'dev1', application_ids: { application_id: 'app1' } },
  created_at: '2024-05-01T10:00:00.000000Z',
  updated_at: '2024-05-01T10:00:00.000000Z',
  name: 'old',
  description: 'keep',
};

describe('EndDeviceRegistryService', () => {
  let transport: InProcessBroker;
  let publisher: EventPublisher;
  let events: EventRecorder;
  const ctx = rpcContext('EndDeviceRegistry.Call');
  beforeEach(() => {
    transport = new InProcessBroker();
    publisher = new EventPublisher(transport);
    events = recordEvents(transport);
  });
  afterEach(async () => transport.close());

  it('Update retries lost optimistic rounds and applies only the masked paths', async () => {
    const store = storeWith(existing, 10);
    const service = new EndDeviceRegistryService(store, directoryWith('app1'), publisher);
    const req = decodeMessage(UpdateEndDeviceRequest, {
      end_device: { ids: { device_id: 'dev1', application_ids: { application_id: 'app1' } }, name: 'new' },
      field_mask: { paths: ['name'] },
    });
    const out = await service.update(req, ctx);
    expect(out).toMatchObject({ name: 'new', created_at: existing.created_at });
    expect(store.replaced).toHaveLength(1);
    expect(store.replaced[0].description).toBe('keep');
    expect(store.replaced[0].updated_at > existing.updated_at).toBe(true);
  });

  it('List requires the order field in the field mask, but ids and created_at are always there', async () => {
    const service = new EndDeviceRegistryService(storeWith(existing, 0), directoryWith('app1'), publisher);
    const list = (q: object) => service.list(decodeMessage(ListEndDevicesRequest, { application_ids: { application_id: 'app1' }, ...q }));
    await expect(list({ order: 'name' })).rejects.toMatchObject({ errorName: 'order_not_in_field_mask' } satisfies Partial<StackError>);
    await expect(list({ order: '-name', field_mask: 'name' })).resolves.toMatchObject({ total: 1 });
    await expect(list({ order: '-created_at' })).resolves.toMatchObject({ total: 1 });
    await expect(list({ order: 'dev_eui' })).resolves.toMatchObject({ total: 1 });
  });

  it('Search passes its filters, order and page to the store and answers the searched fields and the total, as TTS', async () => {
    const store = storeWith(existing, 0);
    const service = new EndDeviceRegistryService(store, directoryWith('app1'), publisher);
    const search = (q: object) => service.search(decodeMessage(SearchEndDevicesRequest, { application_ids: { application_id: 'app1' }, ...q }));
    const out = await search({ name_contains: 'ol', attributes_contain: { room: 'kit' }, dev_eui_contains: 'b5', order: '-name', limit: 2, page: 3 });
    expect(store.searches[0]).toEqual([
      'app1',
      { name_contains: 'ol', attributes_contain: { room: 'kit' }, dev_eui_contains: 'b5' },
      { order: 'name', descending: true, limit: 2, offset: 4 },
    ]);
    // `name` and `attributes` were searched on: returned though the mask does not name them; `description` was not.
    expect(out.total).toBe(7);
    expect(out.body.end_devices).toEqual([
      { ids: existing.ids, created_at: existing.created_at, updated_at: existing.updated_at, name: 'old', attributes: { room: 'kitchen' } },
    ]);
    await expect(search({ order: 'description' })).rejects.toMatchObject({ errorName: 'order_not_in_field_mask' } satisfies Partial<StackError>);
    await expect(search({ order: 'description', field_mask: { paths: ['description'] } })).resolves.toBeDefined();
    await expect(search({ field_mask: { paths: ['root_keys'] } })).rejects.toMatchObject({ errorName: 'field_mask_paths' } satisfies Partial<StackError>);
  });

  it('Create stores a device only in an application that exists and is not deleted', async () => {
    const store = storeWith(existing, 0);
    const created: IsEndDevice[] = [];
    store.create = async (d) => {
      created.push(d);
      return { ok: true };
    };
    const service = new EndDeviceRegistryService(store, directoryWith('app1'), publisher);
    const create = (app: string) =>
      service.create(decodeMessage(CreateEndDeviceRequest, { end_device: { ids: { device_id: 'dev2', application_ids: { application_id: app } } } }), ctx);
    await expect(create('gone')).rejects.toMatchObject({
      namespace: 'pkg/identityserver/store',
      errorName: 'application_not_found',
      code: 5,
      attributes: { application_id: 'gone' },
    } satisfies Partial<StackError>);
    expect(created).toEqual([]);
    await expect(create('app1')).resolves.toMatchObject({ ids: { device_id: 'dev2', application_ids: { application_id: 'app1' } } });
    expect(created).toHaveLength(1);
  });

  describe('events (end_device.*, published once the operation succeeded)', () => {
    const EUIS = { dev_eui: '70B3D57ED005B59E', join_eui: '0000000000000001' };
    const stored: IsEndDevice = { ...existing, ids: { ...existing.ids, ...EUIS } };
    const storedIds = { device_ids: { device_id: 'dev1', application_ids: { application_id: 'app1' }, ...EUIS } };
    const visibility = { rights: ['RIGHT_APPLICATION_DEVICES_READ'] };
    const update = (service: EndDeviceRegistryService, paths: string[], c = ctx) =>
      service.update(
        decodeMessage(UpdateEndDeviceRequest, {
          end_device: { ids: { device_id: 'dev1', application_ids: { application_id: 'app1' } }, name: 'new' },
          field_mask: { paths },
        }),
        c,
      );
    const del = (service: EndDeviceRegistryService, c = ctx) =>
      service.delete(decodeMessage(DeleteEndDeviceRequest, { device_id: 'dev1', application_ids: { application_id: 'app1' } }), c);

    it('Create: end_device.create about the device as stored (EUIs canonical), no data, the request’s correlation IDs', async () => {
      const service = new EndDeviceRegistryService(storeWith(existing, 0), directoryWith('app1'), publisher);
      const create = rpcContext('EndDeviceRegistry.Create');
      await service.create(
        decodeMessage(CreateEndDeviceRequest, {
          end_device: { ids: { device_id: 'dev2', application_ids: { application_id: 'app1' }, dev_eui: '70b3d57ed005b59f', join_eui: '0000000000000001' } },
        }),
        create,
      );
      expect(await events.take()).toEqual([
        {
          name: 'end_device.create',
          identifiers: [
            { device_ids: { device_id: 'dev2', application_ids: { application_id: 'app1' }, dev_eui: '70B3D57ED005B59F', join_eui: '0000000000000001' } },
          ],
          correlation_ids: create.correlation_ids,
          visibility,
        },
      ]);
      expect(create.correlation_ids[0]).toMatch(/^rpc:\/ttn\.lorawan\.v3\.EndDeviceRegistry\/Create:[0-9A-Z]{26}$/);
    });

    it('Update: one end_device.update whose data is the request’s field-mask paths, even after lost optimistic rounds', async () => {
      const service = new EndDeviceRegistryService(storeWith(stored, 5), directoryWith('app1'), publisher);
      await update(service, ['name', 'description']);
      expect(await events.take()).toEqual([
        {
          name: 'end_device.update',
          identifiers: [storedIds],
          data: { '@type': 'type.googleapis.com/google.protobuf.Value', value: ['name', 'description'] },
          correlation_ids: ctx.correlation_ids,
          visibility,
        },
      ]);
    });

    it('Delete: end_device.delete names the device by its stored identifiers, though the request gave only its ID', async () => {
      const service = new EndDeviceRegistryService(storeWith(stored, 0), directoryWith('app1'), publisher);
      expect(await del(service)).toEqual({});
      expect(await events.take()).toEqual([{ name: 'end_device.delete', identifiers: [storedIds], correlation_ids: ctx.correlation_ids, visibility }]);
    });

    it('nothing is published for a failed operation', async () => {
      const store = storeWith(stored, 0);
      const service = new EndDeviceRegistryService(store, directoryWith('app1'), publisher);
      const create = (app: string) =>
        service.create(decodeMessage(CreateEndDeviceRequest, { end_device: { ids: { device_id: 'dev1', application_ids: { application_id: app } } } }), ctx);
      await expect(create('gone')).rejects.toMatchObject({ errorName: 'application_not_found' });
      store.create = async () => ({ ok: false, conflict: 'id' });
      await expect(create('app1')).rejects.toMatchObject({ errorName: 'id_taken' });
      store.create = async () => ({ ok: false, conflict: 'euis' });
      await expect(create('app1')).rejects.toMatchObject({ errorName: 'end_device_euis_taken' });
      await expect(update(service, ['ids.device_id'])).rejects.toMatchObject({ code: 3 });
      store.replace = async () => false;
      await expect(update(service, ['name'])).rejects.toMatchObject({ errorName: 'concurrent_update' });
      store.delete = async () => false;
      await expect(del(service)).rejects.toMatchObject({ errorName: 'end_device_not_found' });
      store.get = async () => undefined;
      await expect(update(service, ['name'])).rejects.toMatchObject({ errorName: 'end_device_not_found' });
      await expect(del(service)).rejects.toMatchObject({ errorName: 'end_device_not_found' });
      expect(await events.take()).toEqual([]);
    });
  });
});
