import { EndDeviceRegistryService } from './end-device-registry.service';
import type { CreateResult, EndDeviceStore, IsEndDevice } from './end-device.model';
import { CreateEndDeviceRequest, decodeMessage, type EntityRef, ListEndDevicesRequest, UpdateEndDeviceRequest } from '@lorawan/api';
import type { StackError } from '@lorawan/errors';
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
function storeWith(device: IsEndDevice, losses: number): EndDeviceStore & { replaced: IsEndDevice[] } {
  let current = device;
  let toLose = losses;
  const replaced: IsEndDevice[] = [];
  return {
    replaced,
    create: async (): Promise<CreateResult> => ({ ok: true }),
    get: async () => current,
    findByEuis: async () => undefined,
    list: async () => ({ devices: [current], total: 1 }),
    replace: async (d, expected) => {
      if (toLose-- > 0 || expected !== current.updated_at) return false;
      current = d;
      replaced.push(d);
      return true;
    },
    delete: async () => true,
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
  it('Update retries lost optimistic rounds and applies only the masked paths', async () => {
    const store = storeWith(existing, 10);
    const service = new EndDeviceRegistryService(store, directoryWith('app1'));
    const req = decodeMessage(UpdateEndDeviceRequest, { end_device: { ids: { device_id: 'dev1', application_ids: { application_id: 'app1' } }, name: 'new' }, field_mask: { paths: ['name'] } });
    const out = await service.update(req);
    expect(out).toMatchObject({ name: 'new', created_at: existing.created_at });
    expect(store.replaced).toHaveLength(1);
    expect(store.replaced[0].description).toBe('keep');
    expect(store.replaced[0].updated_at > existing.updated_at).toBe(true);
  });

  it('List requires the order field in the field mask, but ids and created_at are always there', async () => {
    const service = new EndDeviceRegistryService(storeWith(existing, 0), directoryWith('app1'));
    const list = (q: object) => service.list(decodeMessage(ListEndDevicesRequest, { application_ids: { application_id: 'app1' }, ...q }));
    await expect(list({ order: 'name' })).rejects.toMatchObject({ errorName: 'order_not_in_field_mask' } satisfies Partial<StackError>);
    await expect(list({ order: '-name', field_mask: 'name' })).resolves.toMatchObject({ total: 1 });
    await expect(list({ order: '-created_at' })).resolves.toMatchObject({ total: 1 });
    await expect(list({ order: 'dev_eui' })).resolves.toMatchObject({ total: 1 });
  });

  it('Create stores a device only in an application that exists and is not deleted', async () => {
    const store = storeWith(existing, 0);
    const created: IsEndDevice[] = [];
    store.create = async (d) => {
      created.push(d);
      return { ok: true };
    };
    const service = new EndDeviceRegistryService(store, directoryWith('app1'));
    const create = (app: string) => service.create(decodeMessage(CreateEndDeviceRequest, { end_device: { ids: { device_id: 'dev2', application_ids: { application_id: app } } } }));
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
});
