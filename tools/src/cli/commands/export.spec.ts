import type { ApiResponse, Http } from '../client';
import { ApiError } from '../errors';
import type { JsonObject } from '../split';
import { exportDevices } from './export';

const device = (id: string): JsonObject => ({ ids: { device_id: id, application_ids: { application_id: 'app1' } }, name: id });

/** The IS lists `count` devices in pages; the JS, NS and AS answer each Get with `part` (or refuse it). */
function fakeStack(count: number, part: (path: string) => JsonObject | ApiError): Http & { gets: string[] } {
  const gets: string[] = [];
  const ok = (body: JsonObject, total?: number): Promise<ApiResponse> =>
    Promise.resolve({ status: 200, headers: new Headers(total === undefined ? {} : { 'x-total-count': String(total) }), body });
  return {
    gets,
    get: (path: string) => {
      gets.push(path);
      const list = /^\/api\/v3\/applications\/app1\/devices\?.*limit=(\d+)&page=(\d+)/.exec(path);
      if (list) {
        const [limit, page] = [Number(list[1]), Number(list[2])];
        const ids = Array.from({ length: count }, (_, i) => `dev-${i}`).slice((page - 1) * limit, page * limit);
        return ok({ end_devices: ids.map(device) }, count);
      }
      const answer = part(path);
      return answer instanceof ApiError ? Promise.reject(answer) : ok(answer);
    },
    post: () => Promise.reject(new Error('no writes')),
    put: () => Promise.reject(new Error('no writes')),
    delete: () => Promise.reject(new Error('no writes')),
  };
}

describe('exportDevices', () => {
  it('writes one merged JSON line per device, page by page, with the total for the progress', async () => {
    const stack = fakeStack(5, (path): JsonObject => (path.includes('/ns/') ? { frequency_plan_id: 'EU_863_870_TTN' } : {}));
    const lines: string[] = [];
    const totals: number[] = [];
    let added = 0;
    const count = await exportDevices(
      stack,
      { applicationId: 'app1', withKeys: false, pageSize: 2 },
      { write: async (l) => void lines.push(l), progress: { setTotal: (t) => totals.push(t), add: (n) => (added += n) } },
    );
    expect(count).toBe(5);
    expect(added).toBe(5);
    expect(totals[0]).toBe(5);
    expect(lines.map((l) => JSON.parse(l))).toEqual(Array.from({ length: 5 }, (_, i) => ({ ...device(`dev-${i}`), frequency_plan_id: 'EU_863_870_TTN' })));
    expect(lines.every((l) => l.endsWith('}\n') && !l.slice(0, -1).includes('\n'))).toBe(true);
    // Without keys, no Get asks for key material.
    expect(stack.gets.filter((g) => /root_keys[,&]|root_keys$|session[,&]|session\.keys[,&]/.test(g))).toEqual([]);
  });

  it('--with-keys without the right to read them stops with the 403 and says which right', async () => {
    const forbidden = new ApiError('GET /api/v3/js/applications/app1/devices/dev-0', 403, undefined, 'HTTP 403: insufficient rights');
    const stack = fakeStack(3, (path) => (path.includes('/js/') ? forbidden : {}));
    const lines: string[] = [];
    await expect(
      exportDevices(
        stack,
        { applicationId: 'app1', withKeys: true, pageSize: 10 },
        { write: async (l) => void lines.push(l), progress: { setTotal: () => undefined, add: () => undefined } },
      ),
    ).rejects.toThrow(/--with-keys needs RIGHT_APPLICATION_DEVICES_READ_KEYS on app1/);
    expect(lines).toEqual([]);
  });
});
