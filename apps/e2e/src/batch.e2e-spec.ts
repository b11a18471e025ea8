/**
 * The batch routes of the Join, Network and Application Server registries over HTTP, in both run
 * modes: TTS's `DELETE /api/v3/{js,ns,as}/applications/{id}/devices/batch?device_ids=…` and our
 * extension `PUT …/devices/batch` (1 to 1000 Sets, all or nothing, errors naming the request).
 */
import { startDistributedStack, startEmbeddedStack, type StackUnderTest } from '@lorawan/testing';
import { Api, createApplications, expectStatus, expectTtsError, expectValidationError } from './http-client';
import { otaaIds, REGISTRIES, registryDevicePath, registryDevicesPath, sampleDevice, uid } from './devices';

const MODES: Array<[string, () => Promise<StackUnderTest>]> = [
  ['distributed', () => startDistributedStack({ components: ['is', 'js', 'ns', 'as'] })],
  ['embedded', () => startEmbeddedStack()],
];

const APP = 'batch-app';

describe.each(MODES)('Batch routes of the JS, NS and AS registries (%s)', (_mode, start) => {
  let stack: StackUnderTest;
  const api = new Api(() => stack);

  beforeAll(async () => {
    stack = await start();
    await createApplications(api, [APP]);
  });
  afterAll(async () => {
    await stack?.stop();
  });
  afterEach(() => {
    expect(api.serverErrors).toEqual([]);
  });

  /** A Set request of a fresh sample device of the registry, with its application in its identifiers. */
  const request = (c: (typeof REGISTRIES)[number], device_id = uid('bd')) => {
    const sample = sampleDevice(c, { ...otaaIds(device_id), application_ids: { application_id: APP } });
    return { end_device: sample.device, field_mask: { paths: sample.paths } };
  };
  const batchPath = (c: string) => `${registryDevicesPath(c as (typeof REGISTRIES)[number], APP)}/batch`;
  const idOf = (r: { end_device: { ids?: { device_id?: string } } }) => r.end_device.ids?.device_id as string;

  describe.each(REGISTRIES)('%s', (c) => {
    it('PUT …/devices/batch stores every device and answers them in request order', async () => {
      const requests = [request(c), request(c), request(c)];
      const res = await api.put(batchPath(c), { requests });
      expectStatus(res, 200);
      expect(res.json.end_devices.map((d: { ids: { device_id: string } }) => d.ids.device_id)).toEqual(requests.map(idOf));
      for (const r of requests) expectStatus(await api.get(registryDevicePath(c, APP, idOf(r))), 200);
    });

    it('one invalid request (index 1): 400 naming requests[1] and the field; nothing stored', async () => {
      const requests = [request(c), request(c), request(c)];
      requests[1].end_device.ids = { ...requests[1].end_device.ids, dev_eui: 'not-an-eui' };
      const res = await api.put(batchPath(c), { requests });
      expectValidationError(res, 'dev_eui');
      expect(res.json.details[0].attributes.field).toBe('requests[1]');
      for (const r of requests) expectStatus(await api.get(registryDevicePath(c, APP, idOf(r))), 404);
    });

    it('a device of another application, or over 1000 requests: 400; nothing stored', async () => {
      const other = request(c);
      other.end_device.ids = { ...other.end_device.ids, application_ids: { application_id: 'other-app' } };
      const first = request(c);
      const res = await api.put(batchPath(c), { requests: [first, other] });
      expectTtsError(res, 400, 3, 'pkg/errors', 'validation', { field: 'requests[1]' });
      expectStatus(await api.get(registryDevicePath(c, APP, idOf(first))), 404);
      const many = Array.from({ length: 1001 }, () => request(c));
      expectTtsError(await api.put(batchPath(c), { requests: many }), 400, 3, 'pkg/errors', 'validation', { field: 'requests' });
    });

    it('DELETE …/devices/batch?device_ids=…: deletes those that exist, skips unknown IDs, answers {}', async () => {
      const requests = [request(c), request(c), request(c)];
      expectStatus(await api.put(batchPath(c), { requests }), 200);
      const [a, b, kept] = requests.map(idOf);
      const res = await api.delete(`${batchPath(c)}?device_ids=${a}&device_ids=no-such-device&device_ids=${b}`);
      expectStatus(res, 200);
      expect(res.json).toEqual({});
      expectStatus(await api.get(registryDevicePath(c, APP, a)), 404);
      expectStatus(await api.get(registryDevicePath(c, APP, b)), 404);
      expectStatus(await api.get(registryDevicePath(c, APP, kept)), 200);
      expectStatus(await api.delete(`${batchPath(c)}?device_ids=${kept}`), 200);
      expectStatus(await api.get(registryDevicePath(c, APP, kept)), 404);
      expectTtsError(await api.delete(batchPath(c)), 400, 3, 'pkg/errors', 'validation', { field: 'device_ids' });
    });
  });
});
