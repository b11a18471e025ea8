import { TTS_FIELD_MASK_PATHS } from '@lorawan/api';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiResponse, Http } from '../client';
import { ApiError, type TtsErrorDetails } from '../errors';
import type { ReportEntry } from '../import-report';
import type { RegistryName } from '../registries';
import { isObject, type JsonObject } from '../split';
import { importDevices, type ImportSummary, validateDevices } from './import';

const tts = (rpc: keyof typeof TTS_FIELD_MASK_PATHS): ReadonlySet<string> => new Set(TTS_FIELD_MASK_PATHS[rpc] as string[]);
const ALLOWED = {
  js: tts('/ttn.lorawan.v3.JsEndDeviceRegistry/Set'),
  ns: tts('/ttn.lorawan.v3.NsEndDeviceRegistry/Set'),
  as: tts('/ttn.lorawan.v3.AsEndDeviceRegistry/Set'),
};
const APP = 'app1';

const otaa = (id: string, n: number, extra: JsonObject = {}): JsonObject => ({
  ids: { device_id: id, dev_eui: `70B3D57E000000${n.toString(16).padStart(2, '0').toUpperCase()}`, join_eui: '70B3D57ED0000000' },
  supports_join: true,
  frequency_plan_id: 'EU_863_870_TTN',
  lorawan_version: 'MAC_V1_0_3',
  lorawan_phy_version: 'PHY_V1_0_3_REV_A',
  root_keys: { app_key: { key: '00112233445566778899AABBCCDDEEFF' } },
  ...extra,
});

const abp = (id: string, n: number): JsonObject => ({
  ids: { device_id: id, dev_eui: `70B3D57E000001${n.toString(16).padStart(2, '0').toUpperCase()}` },
  supports_join: false,
  frequency_plan_id: 'EU_863_870_TTN',
  lorawan_version: 'MAC_V1_0_3',
  lorawan_phy_version: 'PHY_V1_0_3_REV_A',
  session: {
    dev_addr: '26011234',
    keys: { f_nwk_s_int_key: { key: '0102030405060708090A0B0C0D0E0F10' }, app_s_key: { key: '1112131415161718191A1B1C1D1E1F20' } },
  },
});

const error = (status: number, details: TtsErrorDetails) =>
  new ApiError('X /', status, { code: details.code, message: details.name, details: [details] }, `HTTP ${status}`);
const itemError = (index: number, status: number, cause: TtsErrorDetails) =>
  error(status, { namespace: 'pkg/errors', name: 'batch_item', attributes: { index }, code: 6, cause });

/**
 * The four registries in memory behind the batch and single routes, all or nothing per batch as
 * the contract says. `refuse` makes a registry refuse a device (by its description).
 */
class FakeStack implements Http {
  readonly stores: Record<RegistryName, Map<string, JsonObject>> = { IS: new Map(), JS: new Map(), NS: new Map(), AS: new Map() };
  readonly calls: string[] = [];
  refuse: (registry: RegistryName, device: JsonObject) => TtsErrorDetails | undefined = () => undefined;

  private route(path: string): { registry: RegistryName; rest: string } {
    const match = /^\/api\/v3(?:\/(js|ns|as))?\/applications\/app1\/devices(.*)$/.exec(path);
    if (!match) throw new Error(`unexpected path ${path}`);
    return { registry: (match[1]?.toUpperCase() ?? 'IS') as RegistryName, rest: match[2] };
  }

  private ok(body: JsonObject): Promise<ApiResponse> {
    return Promise.resolve({ status: 200, headers: new Headers(), body });
  }

  private write(registry: RegistryName, device: JsonObject): TtsErrorDetails | undefined {
    const id = (device.ids as JsonObject).device_id as string;
    if (registry === 'IS') {
      if (this.stores.IS.has(id)) return { namespace: 'pkg/util/store', name: 'id_taken', code: 6 };
      const eui = (device.ids as JsonObject).dev_eui;
      if ([...this.stores.IS.values()].some((d) => (d.ids as JsonObject).dev_eui === eui))
        return { namespace: 'pkg/identityserver', name: 'end_device_euis_taken', code: 6 };
    }
    return this.refuse(registry, device);
  }

  get(path: string): Promise<ApiResponse> {
    const [p] = path.split('?');
    const { registry, rest } = this.route(p);
    this.calls.push(`GET ${registry}${rest === '' ? ' list' : ''}`);
    if (rest === '') return this.ok({ end_devices: [...this.stores.IS.values()] });
    const device = this.stores[registry].get(decodeURIComponent(rest.slice(1)));
    if (!device) return Promise.reject(error(404, { namespace: 'x', name: 'device_not_found', code: 5 }));
    return this.ok(device);
  }

  post(path: string, body: unknown): Promise<ApiResponse> {
    const { rest } = this.route(path);
    const b = body as { end_devices?: JsonObject[]; end_device?: JsonObject };
    if (rest === '/batch') {
      const devices = b.end_devices ?? [];
      this.calls.push(`POST IS batch ${devices.length}`);
      return this.batch('IS', devices);
    }
    this.calls.push('POST IS single');
    const refused = this.write('IS', b.end_device as JsonObject);
    if (refused) return Promise.reject(error(409, refused));
    this.stores.IS.set((b.end_device?.ids as JsonObject).device_id as string, b.end_device as JsonObject);
    return this.ok(b.end_device as JsonObject);
  }

  put(path: string, body: unknown): Promise<ApiResponse> {
    const { registry, rest } = this.route(path);
    if (rest === '/batch') {
      const requests = (body as { requests: Array<{ end_device: JsonObject }> }).requests;
      this.calls.push(`PUT ${registry} batch ${requests.length}`);
      return this.batch(
        registry,
        requests.map((r) => r.end_device),
      );
    }
    this.calls.push(`PUT ${registry} single`);
    const device = (body as { end_device: JsonObject }).end_device;
    const refused = this.write(registry, device);
    if (refused) return Promise.reject(error(400, refused));
    this.stores[registry].set((device.ids as JsonObject).device_id as string, device);
    return this.ok(device);
  }

  delete(path: string): Promise<ApiResponse> {
    const { registry, rest } = this.route(path);
    this.calls.push(`DELETE ${registry}`);
    if (!this.stores[registry].delete(decodeURIComponent(rest.slice(1)))) return Promise.reject(error(404, { namespace: 'x', name: 'not_found', code: 5 }));
    return this.ok({});
  }

  private batch(registry: RegistryName, devices: JsonObject[]): Promise<ApiResponse> {
    const saved = this.stores[registry];
    this.stores[registry] = new Map(saved);
    for (const [i, device] of devices.entries()) {
      const refused = this.write(registry, device);
      if (refused) {
        this.stores[registry] = saved;
        return Promise.reject(itemError(i, registry === 'IS' ? 409 : 400, refused));
      }
      this.stores[registry].set((device.ids as JsonObject).device_id as string, device);
    }
    return this.ok({ end_devices: devices });
  }

  has(id: string): RegistryName[] {
    return (['IS', 'JS', 'NS', 'AS'] as const).filter((r) => this.stores[r].has(id));
  }
}

describe('importDevices', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'lw-import-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function run(stack: FakeStack, lines: Array<JsonObject | string>, batchSize = 10): Promise<{ summary: ImportSummary; report: ReportEntry[] }> {
    const path = join(dir, `f${Math.random().toString(36).slice(2)}.jsonl`);
    writeFileSync(path, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n'));
    const report: ReportEntry[] = [];
    const summary = await importDevices(stack, { applicationId: APP, path, format: 'jsonl', batchSize, concurrency: 2 }, ALLOWED, {
      report: { add: (e) => report.push(e) },
      progress: { add: () => undefined },
    });
    return { summary, report: report.sort((a, b) => a.line - b.line) };
  }

  it('registers a chunk with one batch per registry, in the spec order, JS for OTAA only', async () => {
    const stack = new FakeStack();
    const { summary, report } = await run(stack, [otaa('dev-1', 1), abp('dev-2', 2), otaa('dev-3', 3)]);
    expect(summary).toEqual({ lines: 3, registered: 3, completed: 0, skipped: 0, failed: 0 });
    expect(report).toEqual([]);
    expect(stack.calls).toEqual(['GET IS list', 'POST IS batch 3', 'PUT JS batch 2', 'PUT NS batch 3', 'PUT AS batch 3']);
    expect(stack.has('dev-1')).toEqual(['IS', 'JS', 'NS', 'AS']);
    expect(stack.has('dev-2')).toEqual(['IS', 'NS', 'AS']);
    const ns = stack.stores.NS.get('dev-1') as JsonObject;
    expect(isObject(ns.ids) && ns.ids.application_ids).toEqual({ application_id: APP });
  });

  it('reports a refused device with the server error and rolls it back; the rest of the batch goes on', async () => {
    const stack = new FakeStack();
    stack.refuse = (registry, device) =>
      registry === 'NS' && device.frequency_plan_id === 'NOPE' ? { namespace: 'pkg/networkserver', name: 'frequency_plan_not_found', code: 3 } : undefined;
    const { summary, report } = await run(stack, [
      otaa('dev-1', 1),
      otaa('dev-2', 2, { frequency_plan_id: 'NOPE' }),
      '{"ids":',
      otaa('dev-1', 4),
      otaa('dev-5', 1),
    ]);
    expect(summary).toEqual({ lines: 5, registered: 1, completed: 0, skipped: 0, failed: 4 });
    expect(report.map((r) => [r.line, r.device_id, r.registry, r.error.details?.name, r.rolled_back])).toEqual([
      [2, 'dev-2', 'NS', 'frequency_plan_not_found', ['JS', 'IS']],
      [3, undefined, undefined, undefined, undefined],
      [4, 'dev-1', 'IS', 'id_taken', undefined],
      [5, 'dev-5', 'IS', 'end_device_euis_taken', undefined],
    ]);
    expect(report[1].error.message).toContain('not valid JSON');
    expect(stack.has('dev-2')).toEqual([]);
    expect(stack.has('dev-1')).toEqual(['IS', 'JS', 'NS', 'AS']);
  });

  it('resumes: skips complete devices, completes half-registered ones, leaves another device of the same ID alone', async () => {
    const stack = new FakeStack();
    const devices = [otaa('dev-1', 1), otaa('dev-2', 2), abp('dev-3', 3), otaa('dev-4', 4)];
    await run(stack, devices.slice(0, 1));
    // dev-2 reached the IS and the JS, dev-3 the IS only, before the first run died.
    stack.stores.IS.set('dev-2', devices[1]);
    stack.stores.JS.set('dev-2', devices[1]);
    stack.stores.IS.set('dev-3', devices[2]);
    // dev-4's ID is taken by another device (other EUIs).
    stack.stores.IS.set('dev-4', otaa('dev-4', 99));
    stack.calls.length = 0;

    const { summary, report } = await run(stack, devices);
    expect(summary).toEqual({ lines: 4, registered: 0, completed: 2, skipped: 1, failed: 1 });
    expect(report.map((r) => [r.line, r.status, r.registry, r.error.details?.name])).toEqual([
      [1, 'skipped', undefined, undefined],
      [4, 'failed', 'IS', 'id_taken'],
    ]);
    expect(stack.has('dev-2')).toEqual(['IS', 'JS', 'NS', 'AS']);
    expect(stack.has('dev-3')).toEqual(['IS', 'NS', 'AS']);
    expect(((stack.stores.IS.get('dev-4') as JsonObject).ids as JsonObject).dev_eui).toBe('70B3D57E00000063');
    expect(stack.calls.filter((c) => c.startsWith('POST'))).toEqual(['POST IS single']);
  });

  it('a half-registered device that cannot be completed is deleted everywhere', async () => {
    const stack = new FakeStack();
    const device = otaa('dev-1', 1, { frequency_plan_id: 'NOPE' });
    stack.stores.IS.set('dev-1', device);
    stack.stores.JS.set('dev-1', device);
    stack.refuse = (registry) => (registry === 'NS' ? { namespace: 'pkg/networkserver', name: 'frequency_plan_not_found', code: 3 } : undefined);
    const { summary, report } = await run(stack, [device]);
    expect(summary.failed).toBe(1);
    expect(report[0]).toEqual(expect.objectContaining({ registry: 'NS', rolled_back: ['AS', 'NS', 'JS', 'IS'] }));
    expect(stack.has('dev-1')).toEqual([]);
  });

  it('falls back to the single routes where the batch routes are missing', async () => {
    const stack = new FakeStack();
    const missing = () => Promise.reject(error(404, { namespace: 'pkg/web', name: 'route_not_found', code: 5 }));
    const post = stack.post.bind(stack);
    stack.post = (path, body) => (path.endsWith('/batch') ? missing() : post(path, body));
    const put = stack.put.bind(stack);
    stack.put = (path, body) => (path.endsWith('/batch') ? missing() : put(path, body));
    const { summary } = await run(stack, [otaa('dev-1', 1), abp('dev-2', 2), otaa('dev-3', 3), otaa('dev-4', 4)], 2);
    expect(summary.registered).toBe(4);
    expect(stack.has('dev-4')).toEqual(['IS', 'JS', 'NS', 'AS']);
  });
});

describe('validateDevices (--dry-run)', () => {
  it('validates every line with the contract and finds duplicate IDs and EUIs, sending nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lw-dry-'));
    try {
      const path = join(dir, 'd.jsonl');
      const lines = [otaa('dev-1', 1), otaa('dev-2', 1), otaa('dev-1', 3), otaa('dev-4', 4, { lorawan_version: 'MAC_V9' }), 'nope'];
      writeFileSync(path, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n'));
      const report: ReportEntry[] = [];
      const summary = await validateDevices(
        { applicationId: APP, path, format: 'jsonl' },
        { report: { add: (e) => report.push(e) }, progress: { add: () => undefined } },
      );
      expect(summary).toEqual({ lines: 5, valid: 1, failed: 4 });
      expect(report.map((r) => [r.line, r.error.message])).toEqual([
        [2, 'JoinEUI/DevEUI 70B3D57ED0000000/70B3D57E00000001 already on line 1 of the file'],
        [3, 'device ID dev-1 already on line 1 of the file'],
        [4, expect.stringMatching(/^error:pkg\/errors:validation .*lorawan_version/)],
        [5, expect.stringContaining('not valid JSON')],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
