import {
  CreateApplicationRequest,
  CreateEndDeviceRequest,
  CreateGatewayRequest,
  decodeMessage,
  ApplicationIdentifiers,
  GatewayIdentifiers,
} from '@lorawan/api';
import { EndDeviceRegistryService } from '../end-devices/end-device-registry.service';
import { CTX, type IdentityTestBed, openIdentityTestBed } from './identity-fixtures.conformance';

describe('IdentityDirectoryService (SQLite)', () => {
  let bed: IdentityTestBed;
  beforeAll(async () => {
    bed = await openIdentityTestBed();
    await bed.users.ensureAdminUser();
    await bed.stores.users.create({
      ids: { user_id: 'alice' },
      created_at: '2024-05-01T10:00:00.000000Z',
      updated_at: '2024-05-01T10:00:00.000000Z',
      state: 'STATE_APPROVED',
    });
    await bed.applications.create(
      decodeMessage(CreateApplicationRequest, { application: { ids: { application_id: 'app1' } }, collaborator: { user_ids: { user_id: 'alice' } } }),
      CTX,
    );
    await bed.gateways.create(
      decodeMessage(CreateGatewayRequest, { gateway: { ids: { gateway_id: 'gtw1' } }, collaborator: { user_ids: { user_id: 'alice' } } }),
      CTX,
    );
  });
  afterAll(async () => bed.close());

  it("answers a user's essentials, nothing for a missing or deleted user", async () => {
    expect(await bed.directory.user('admin')).toEqual({ user_id: 'admin', admin: true, state: 'STATE_APPROVED' });
    expect(await bed.directory.user('alice')).toEqual({ user_id: 'alice', admin: false, state: 'STATE_APPROVED' });
    expect(await bed.directory.user('nobody')).toBeUndefined();
  });

  it('knows which entities exist and are not deleted', async () => {
    for (const entity of [
      { kind: 'user', id: 'alice' },
      { kind: 'application', id: 'app1' },
      { kind: 'gateway', id: 'gtw1' },
    ] as const) {
      expect(await bed.directory.exists(entity)).toBe(true);
      expect(await bed.directory.exists({ ...entity, id: 'nope' })).toBe(false);
    }
    expect(await bed.directory.exists({ kind: 'organization', id: 'app1' })).toBe(false);
    expect(await bed.directory.exists({ kind: 'client', id: 'app1' })).toBe(false);
  });

  it('answers stored collaborator rights; none on deleted entities or for others', async () => {
    expect(await bed.directory.collaboratorRights('alice', { kind: 'application', id: 'app1' })).toEqual(['RIGHT_ALL']);
    expect(await bed.directory.collaboratorRights('alice', { kind: 'gateway', id: 'gtw1' })).toEqual(['RIGHT_ALL']);
    expect(await bed.directory.collaboratorRights('admin', { kind: 'application', id: 'app1' })).toEqual([]);
    expect(await bed.directory.collaboratorRights('alice', { kind: 'user', id: 'alice' })).toEqual([]);
    await bed.gateways.delete(decodeMessage(GatewayIdentifiers, { gateway_id: 'gtw1' }), CTX);
    expect(await bed.directory.exists({ kind: 'gateway', id: 'gtw1' })).toBe(false);
    expect(await bed.directory.collaboratorRights('alice', { kind: 'gateway', id: 'gtw1' })).toEqual([]);
  });

  it('lets the end-device registry create devices only in live applications', async () => {
    const devices = new EndDeviceRegistryService(bed.devices, bed.directory, bed.publisher);
    const create = (app: string, dev: string) =>
      devices.create(decodeMessage(CreateEndDeviceRequest, { end_device: { ids: { device_id: dev, application_ids: { application_id: app } } } }), CTX);
    await expect(create('app1', 'dev1')).resolves.toMatchObject({ ids: { device_id: 'dev1' } });
    await expect(create('app-missing', 'dev1')).rejects.toMatchObject({ errorName: 'application_not_found', attributes: { application_id: 'app-missing' } });
    await bed.devices.delete('app1', 'dev1');
    await bed.applications.delete(decodeMessage(ApplicationIdentifiers, { application_id: 'app1' }), CTX);
    await expect(create('app1', 'dev2')).rejects.toMatchObject({ errorName: 'application_not_found', code: 5 });
    expect(await bed.devices.get('app1', 'dev2')).toBeUndefined();
  });
});
