/**
 * `devices import` and `devices export` of the CLI (`tools/src/cli`) end to end, in both run modes:
 * the built CLI as a child process against the stack. Import of JSON lines and CSV (OTAA and ABP)
 * through the four registries with bad lines reported per line with the server's error, resume
 * after the import is killed half-way, `--dry-run`, key rights, and the export → import round
 * trip into another application.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startDistributedStack, startEmbeddedStack, type StackUnderTest } from '@lorawan/testing';
import { Access } from './access';
import { Api, createApplications, expectStatus } from './http-client';

const ROOT = resolve(__dirname, '../../..');
const CLI = join(process.env.LW_DIST_DIR ?? join(ROOT, 'dist'), 'tools/src/cli/main.js');

type Start = () => Promise<StackUnderTest>;
const MODES: Array<[string, Start]> = [
  ['distributed', () => startDistributedStack({ components: ['is', 'js', 'ns', 'as'] })],
  ['embedded', () => startEmbeddedStack()],
];

const JSONL_APP = 'imp-jsonl';
const COPY_APP = 'imp-copy';
const CSV_APP = 'imp-csv';
const KILL_APP = 'imp-kill';
const DRY_APP = 'imp-dry';
const RIGHTS_APP = 'imp-rights';

/** Devices per generated file: a few hundred, OTAA and ABP. */
const OTAA_COUNT = 160;
const ABP_COUNT = 80;
const KILL_COUNT = 300;

const hex = (n: number, digits: number) => n.toString(16).toUpperCase().padStart(digits, '0');
const devEui = (prefix: number, i: number) => `70B3D57E${hex(prefix, 2)}${hex(i, 6)}`;
const key = (i: number) => `00112233445566778899AABB${hex(i, 8)}`;

/** The NS's radio settings of every generated device. */
const RADIO = { lorawan_version: 'MAC_V1_0_3', lorawan_phy_version: 'PHY_V1_0_3_REV_A', frequency_plan_id: 'EU_863_870_TTN' };

/** A TTS EndDevice as `ttn-lw-cli end-devices list` would give it (the application is replaced by --application). */
const otaa = (deviceId: string, eui: string, i: number, extra: Record<string, unknown> = {}) => ({
  ids: { device_id: deviceId, application_ids: { application_id: 'elsewhere' }, dev_eui: eui, join_eui: '70B3D57ED0000000' },
  name: `OTAA ${deviceId}`,
  description: 'imported',
  attributes: { batch: 'one' },
  version_ids: { brand_id: 'the-things-products', model_id: 'the-things-uno', hardware_version: '1.0', firmware_version: '1.1', band_id: 'EU_863_870' },
  supports_join: true,
  ...RADIO,
  root_keys: { app_key: { key: key(i) } },
  ...extra,
});

const abp = (deviceId: string, eui: string, i: number) => ({
  ids: { device_id: deviceId, application_ids: { application_id: 'elsewhere' }, dev_eui: eui },
  name: `ABP ${deviceId}`,
  supports_join: false,
  ...RADIO,
  session: {
    dev_addr: `2601${hex(i, 4)}`,
    keys: { session_key_id: 'AQID', f_nwk_s_int_key: { key: key(i + 0x1000) }, app_s_key: { key: key(i + 0x2000) } },
  },
  formatters: { up_formatter: 'FORMATTER_CAYENNELPP' },
});

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

interface ReportLine {
  line: number;
  device_id?: string;
  status: 'failed' | 'skipped';
  registry?: string;
  error: { message: string; http_status?: number; details?: { namespace?: string; name?: string } };
  rolled_back?: string[];
  left_in?: string[];
}

const REGISTRIES = ['IS', 'JS', 'NS', 'AS'] as const;
type Registry = (typeof REGISTRIES)[number];
const PREFIX: Record<Registry, string> = { IS: '', JS: '/js', NS: '/ns', AS: '/as' };
const devicePath = (registry: Registry, app: string, dev: string) => `/api/v3${PREFIX[registry]}/applications/${app}/devices/${dev}`;

/** What two exports of the same devices may differ in: the application and the timestamps. */
function normalised(device: Record<string, unknown>): unknown {
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip);
    if (typeof value !== 'object' || value === null) return value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (k === 'created_at' || k === 'updated_at' || k === 'application_ids') continue;
      out[k] = strip(v);
    }
    return out;
  };
  return strip(device);
}

describe.each(MODES)('device import and export (%s)', (mode, start) => {
  let stack: StackUnderTest;
  let workDir: string;
  const api = new Api(() => stack);
  const access = new Access(api);

  beforeAll(async () => {
    stack = await start();
    await createApplications(api, [JSONL_APP, COPY_APP, CSV_APP, KILL_APP, DRY_APP, RIGHTS_APP]);
    workDir = mkdtempSync(join(tmpdir(), `lw-import-${mode}-`));
  });

  afterAll(async () => {
    await stack?.stop();
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  function spawnCli(args: string[], apiKey = stack.adminKey) {
    return spawn(process.execPath, [CLI, ...args], {
      cwd: workDir,
      env: { PATH: process.env.PATH ?? '', LORAWAN_API_URL: stack.baseUrl, LORAWAN_API_KEY: apiKey },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  }

  function cli(args: string[], apiKey?: string): Promise<CliRun> {
    return new Promise((res, rej) => {
      const child = spawnCli(args, apiKey);
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('error', rej);
      child.on('close', (code) => res({ code, stdout, stderr }));
    });
  }

  function expectExit(run: CliRun, code: number): void {
    if (run.code !== code) throw new Error(`CLI exited with ${run.code}, expected ${code}:\n${run.stderr}\n${run.stdout.slice(0, 3000)}`);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  }

  function writeLines(name: string, lines: Array<string | object>): string {
    const file = join(workDir, name);
    writeFileSync(file, `${lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n')}\n`);
    return file;
  }

  function readReport(file: string): ReportLine[] {
    return (
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as ReportLine)
        // Chunks settle concurrently: the report is in the order lines were settled.
        .sort((a, b) => a.line - b.line)
    );
  }

  /** The registries that have the device. */
  async function registriesOf(app: string, dev: string): Promise<Registry[]> {
    const found: Registry[] = [];
    for (const registry of REGISTRIES) {
      const res = await api.get(`${devicePath(registry, app, dev)}?field_mask=ids`);
      if (res.status === 200) found.push(registry);
      else expectStatus(res, 404);
    }
    return found;
  }

  /** Every device complete (JS for OTAA only) or absent everywhere; returns the complete ones. */
  async function expectWholeOrAbsent(app: string, devices: Array<{ id: string; otaa: boolean }>): Promise<string[]> {
    const complete: string[] = [];
    for (let i = 0; i < devices.length; i += 16) {
      await Promise.all(
        devices.slice(i, i + 16).map(async ({ id, otaa: isOtaa }) => {
          const found = await registriesOf(app, id);
          if (found.length === 0) return;
          expect({ id, found }).toEqual({ id, found: isOtaa ? ['IS', 'JS', 'NS', 'AS'] : ['IS', 'NS', 'AS'] });
          complete.push(id);
        }),
      );
    }
    return complete;
  }

  /** Deletes devices from the AS, NS, JS and IS through the batch Delete routes (20 IDs each). */
  async function deleteDevices(app: string, ids: string[]): Promise<void> {
    for (let i = 0; i < ids.length; i += 20) {
      const query = ids
        .slice(i, i + 20)
        .map((id) => `device_ids=${id}`)
        .join('&');
      for (const registry of ['AS', 'NS', 'JS', 'IS'] as const) {
        expectStatus(await api.delete(`/api/v3${PREFIX[registry]}/applications/${app}/devices/batch?${query}`), 200);
      }
    }
  }

  async function totalDevices(app: string): Promise<number> {
    return access.total(`/api/v3/applications/${app}/devices?field_mask=ids`);
  }

  // The JSON lines file: good OTAA and ABP devices, then the bad lines.
  const good = [
    ...Array.from({ length: OTAA_COUNT }, (_, i) => otaa(`otaa-${i}`, devEui(1, i), i)),
    ...Array.from({ length: ABP_COUNT }, (_, i) => abp(`abp-${i}`, devEui(2, i), i)),
  ];
  const goodIds = good.map((d) => ({ id: d.ids.device_id, otaa: d.supports_join }));
  /** Line numbers of the bad lines, after the good ones. */
  const BAD = {
    malformed: good.length + 1,
    duplicateId: good.length + 2,
    duplicateEui: good.length + 3,
    existing: good.length + 4,
    badPlan: good.length + 5,
    notAnObject: good.length + 6,
  };
  const badLines = [
    '{"ids": {"device_id": "broken-1", ',
    otaa('otaa-0', devEui(9, 1), 9001),
    otaa('dup-eui', devEui(1, 1), 9002),
    otaa('taken', devEui(9, 3), 9003),
    otaa('bad-plan', devEui(9, 4), 9004, { frequency_plan_id: 'NOPE' }),
    '[1, 2, 3]',
  ];

  describe('JSON lines', () => {
    let file: string;

    beforeAll(async () => {
      file = writeLines('devices.jsonl', [...good, ...badLines]);
      // A device of the same ID with other EUIs already exists: the import must leave it alone.
      expectStatus(
        await api.post(`/api/v3/applications/${JSONL_APP}/devices`, {
          end_device: {
            ids: { device_id: 'taken', application_ids: { application_id: JSONL_APP }, dev_eui: devEui(9, 99), join_eui: '70B3D57ED0000000' },
            name: 'mine',
          },
        }),
        200,
      );
    });

    it('--dry-run validates every line and registers nothing (no server needed)', async () => {
      const invalid = otaa('bad-eui', 'XYZ', 1);
      const dryFile = writeLines('dry.jsonl', [...good.slice(0, 20), invalid, good[3], '{"ids":']);
      const run = await cli(['devices', 'import', dryFile, '--application', DRY_APP, '--dry-run', '--url', 'http://127.0.0.1:9']);
      expectExit(run, 1);
      expect(JSON.parse(run.stdout)).toEqual({ lines: 23, valid: 20, failed: 3, report: `${dryFile}.report.jsonl` });
      const report = readReport(`${dryFile}.report.jsonl`);
      expect(report.map((r) => [r.line, r.status])).toEqual([
        [21, 'failed'],
        [22, 'failed'],
        [23, 'failed'],
      ]);
      expect(report[0].error.message).toMatch(/validation.*dev_eui/);
      expect(report[1].error.message).toContain('device ID otaa-3 already on line 4');
      expect(report[2].error.message).toContain('not valid JSON');
      expect(await totalDevices(DRY_APP)).toBe(0);
    });

    it('registers the good lines in all four registries and reports each bad line with the server error', async () => {
      const run = await cli(['devices', 'import', file, '--application', JSONL_APP, '--batch-size', '50']);
      expectExit(run, 1);
      const summary = JSON.parse(run.stdout);
      expect(summary).toEqual({
        lines: good.length + badLines.length,
        registered: good.length,
        completed: 0,
        skipped: 0,
        failed: badLines.length,
        report: `${file}.report.jsonl`,
      });
      expect(run.stderr).toContain(`imported ${good.length + badLines.length}/${good.length + badLines.length} 100%`);

      const report = readReport(`${file}.report.jsonl`);
      const byLine = new Map(report.map((r) => [r.line, r]));
      expect([...byLine.keys()].sort((a, b) => a - b)).toEqual(Object.values(BAD).sort((a, b) => a - b));
      expect(byLine.get(BAD.malformed)).toEqual(
        expect.objectContaining({ status: 'failed', device_id: 'broken-1', error: { message: expect.stringContaining('not valid JSON') } }),
      );
      expect(byLine.get(BAD.notAnObject)?.error.message).toContain('JSON object');
      for (const line of [BAD.duplicateId, BAD.existing]) {
        expect(byLine.get(line)).toEqual(expect.objectContaining({ status: 'failed', registry: 'IS', error: expect.objectContaining({ http_status: 409 }) }));
        expect(byLine.get(line)?.error.details?.name).toBe('id_taken');
      }
      expect(byLine.get(BAD.duplicateEui)).toEqual(
        expect.objectContaining({ device_id: 'dup-eui', registry: 'IS', error: expect.objectContaining({ http_status: 409 }) }),
      );
      expect(byLine.get(BAD.duplicateEui)?.error.details?.name).toBe('end_device_euis_taken');
      expect(byLine.get(BAD.badPlan)).toEqual(
        expect.objectContaining({ device_id: 'bad-plan', registry: 'NS', rolled_back: ['JS', 'IS'], error: expect.objectContaining({ http_status: 400 }) }),
      );

      expect(await expectWholeOrAbsent(JSONL_APP, goodIds)).toHaveLength(good.length);
      expect(await registriesOf(JSONL_APP, 'bad-plan')).toEqual([]);
      expect(await registriesOf(JSONL_APP, 'dup-eui')).toEqual([]);
      // The existing device is untouched, the first otaa-0 kept its EUI.
      const taken = await api.get(`${devicePath('IS', JSONL_APP, 'taken')}?field_mask=name`);
      expect(taken.json).toEqual(expect.objectContaining({ name: 'mine', ids: expect.objectContaining({ dev_eui: devEui(9, 99) }) }));
      expect(await registriesOf(JSONL_APP, 'taken')).toEqual(['IS']);
      const first = await api.get(`${devicePath('IS', JSONL_APP, 'otaa-0')}?field_mask=name`);
      expect(first.json.ids.dev_eui).toBe(devEui(1, 0));
      expect(await totalDevices(JSONL_APP)).toBe(good.length + 1);

      // Each part where it belongs.
      const js = await api.get(`${devicePath('JS', JSONL_APP, 'otaa-7')}?field_mask=root_keys.app_key.key`);
      expect(js.json.root_keys.app_key.key).toBe(key(7));
      const ns = await api.get(`${devicePath('NS', JSONL_APP, 'abp-3')}?field_mask=session.dev_addr,frequency_plan_id`);
      expect(ns.json).toEqual(
        expect.objectContaining({ frequency_plan_id: 'EU_863_870_TTN', session: expect.objectContaining({ dev_addr: `2601${hex(3, 4)}` }) }),
      );
      const as = await api.get(`${devicePath('AS', JSONL_APP, 'abp-3')}?field_mask=session.keys.app_s_key.key,formatters`);
      expect(as.json.session.keys.app_s_key.key).toBe(key(3 + 0x2000));
    });

    it('a rerun skips the complete devices and reports the bad lines again', async () => {
      const run = await cli(['devices', 'import', file, '--application', JSONL_APP]);
      expectExit(run, 1);
      const summary = JSON.parse(run.stdout);
      expect(summary).toEqual(expect.objectContaining({ registered: 0, completed: 0, skipped: good.length, failed: badLines.length }));
      const report = readReport(`${file}.report.jsonl`);
      expect(report.filter((r) => r.status === 'skipped')).toHaveLength(good.length);
      expect(report.filter((r) => r.status === 'failed').map((r) => r.line)).toEqual(expect.arrayContaining(Object.values(BAD)));
      expect(await totalDevices(JSONL_APP)).toBe(good.length + 1);
    });

    it('exports without keys with a key that may not read them; --with-keys then stops with the error', async () => {
      const reader = await access.createKey('application', JSONL_APP, ['RIGHT_APPLICATION_DEVICES_READ']);
      const plain = await cli(['devices', 'export', '--application', JSONL_APP], reader.token);
      expectExit(plain, 0);
      const lines = plain.stdout.split('\n').filter(Boolean);
      expect(lines).toHaveLength(good.length + 1);
      expect(plain.stdout).not.toContain(key(7));
      expect(plain.stdout).not.toContain('app_s_key');
      expect(JSON.parse(lines.find((l) => l.includes('"otaa-7"')) as string).frequency_plan_id).toBe('EU_863_870_TTN');

      const withKeys = await cli(['devices', 'export', '--application', JSONL_APP, '--with-keys'], reader.token);
      expectExit(withKeys, 1);
      expect(withKeys.stderr).toContain('RIGHT_APPLICATION_DEVICES_READ_KEYS');
      expect(withKeys.stdout).toBe('');
    });

    it('export → import into another application reproduces every device (with keys)', async () => {
      const exported = join(workDir, 'export.jsonl');
      const run = await cli(['devices', 'export', '--application', JSONL_APP, '--with-keys', '--output', exported, '--batch-size', '50']);
      expectExit(run, 0);
      expect(run.stderr).toContain(`exported ${good.length + 1} devices`);
      const lines = readFileSync(exported, 'utf8').split('\n').filter(Boolean);
      expect(lines).toHaveLength(good.length + 1);
      const otaa7 = JSON.parse(lines.find((l) => l.includes('"otaa-7"')) as string);
      expect(otaa7).toEqual(
        expect.objectContaining({
          name: 'OTAA otaa-7',
          root_keys: expect.objectContaining({ app_key: expect.objectContaining({ key: key(7) }) }),
          frequency_plan_id: 'EU_863_870_TTN',
        }),
      );

      // `taken` has no NS part (it was created in the IS only): it cannot be imported as it is.
      const importable = lines.filter((l) => !l.includes('"taken"'));
      // EUIs are unique in the whole stack (as in TTS): moving devices is export, delete, import.
      await deleteDevices(
        JSONL_APP,
        goodIds.map((d) => d.id),
      );
      expect(await totalDevices(JSONL_APP)).toBe(1);
      const copyFile = writeLines('copy.jsonl', importable);
      const imported = await cli(['devices', 'import', copyFile, '--application', COPY_APP]);
      expectExit(imported, 0);
      expect(JSON.parse(imported.stdout)).toEqual(expect.objectContaining({ registered: good.length, failed: 0 }));

      const again = join(workDir, 'export-copy.jsonl');
      expectExit(await cli(['devices', 'export', '--application', COPY_APP, '--with-keys', '--output', again]), 0);
      const copies = readFileSync(again, 'utf8').split('\n').filter(Boolean);
      expect(copies.map((l) => normalised(JSON.parse(l)))).toEqual(importable.map((l) => normalised(JSON.parse(l))));
      expect(JSON.parse(copies[0]).ids.application_ids).toEqual({ application_id: COPY_APP });
    });
  });

  describe('CSV', () => {
    it('imports OTAA and ABP rows of the documented columns', async () => {
      const rows = [
        'device_id,dev_eui,join_eui,name,description,frequency_plan_id,lorawan_version,lorawan_phy_version,supports_join,app_key,nwk_key,dev_addr,nwk_s_key,app_s_key,brand_id,model_id,hardware_version,firmware_version,band_id,attributes.room',
        ...Array.from(
          { length: 60 },
          (_, i) =>
            `csv-otaa-${i},${devEui(3, i)},70B3D57ED0000000,"Sensor, ${i}",,EU_863_870_TTN,MAC_V1_0_3,PHY_V1_0_3_REV_A,true,${key(i)},,,,,the-things-products,the-things-uno,1.0,1.1,EU_863_870,r${i}`,
        ),
        ...Array.from(
          { length: 40 },
          (_, i) =>
            `csv-abp-${i},${devEui(4, i)},,ABP ${i},"say ""hi""",EU_863_870_TTN,MAC_V1_0_3,PHY_V1_0_3_REV_A,false,,,2602${hex(i, 4)},${key(i + 0x100)},${key(i + 0x200)},,,,,,`,
        ),
        'csv-short,0102030405060708',
        `csv-otaa-0,${devEui(3, 999)},70B3D57ED0000000,dup,,EU_863_870_TTN,MAC_V1_0_3,PHY_V1_0_3_REV_A,true,${key(1)},,,,,,,,,,`,
      ];
      const file = writeLines('devices.csv', rows);
      const run = await cli(['devices', 'import', file, '--application', CSV_APP]);
      expectExit(run, 1);
      expect(JSON.parse(run.stdout)).toEqual(expect.objectContaining({ lines: 102, registered: 100, failed: 2 }));
      const report = readReport(`${file}.report.jsonl`);
      expect(report.map((r) => r.line)).toEqual(expect.arrayContaining([102, 103]));
      expect(report.find((r) => r.line === 102)?.error.message).toContain('2 fields where the header has 20 columns');
      expect(report.find((r) => r.line === 103)?.error.details?.name).toBe('id_taken');

      const devices = [
        ...Array.from({ length: 60 }, (_, i) => ({ id: `csv-otaa-${i}`, otaa: true })),
        ...Array.from({ length: 40 }, (_, i) => ({ id: `csv-abp-${i}`, otaa: false })),
      ];
      expect(await expectWholeOrAbsent(CSV_APP, devices)).toHaveLength(100);
      const is = await api.get(`${devicePath('IS', CSV_APP, 'csv-otaa-5')}?field_mask=name,attributes,version_ids`);
      expect(is.json).toEqual(
        expect.objectContaining({
          name: 'Sensor, 5',
          attributes: { room: 'r5' },
          version_ids: expect.objectContaining({ model_id: 'the-things-uno', firmware_version: '1.1' }),
        }),
      );
      const abpIs = await api.get(`${devicePath('IS', CSV_APP, 'csv-abp-2')}?field_mask=description`);
      expect(abpIs.json.description).toBe('say "hi"');
      const ns = await api.get(`${devicePath('NS', CSV_APP, 'csv-abp-2')}?field_mask=session.dev_addr,session.keys.f_nwk_s_int_key.key,supports_join`);
      expect(ns.json.session).toEqual(
        expect.objectContaining({
          dev_addr: `2602${hex(2, 4)}`,
          keys: expect.objectContaining({ f_nwk_s_int_key: expect.objectContaining({ key: key(2 + 0x100) }) }),
        }),
      );
      const js = await api.get(`${devicePath('JS', CSV_APP, 'csv-otaa-5')}?field_mask=root_keys.app_key.key`);
      expect(js.json.root_keys.app_key.key).toBe(key(5));
    });

    it('refuses a header with an unknown column before any request', async () => {
      const file = writeLines('unknown.csv', ['device_id,dev_eui,appkey', `csv-x,${devEui(5, 1)},${key(1)}`]);
      const run = await cli(['devices', 'import', file, '--application', CSV_APP]);
      expectExit(run, 1);
      expect(run.stderr).toContain('unknown column "appkey"');
      expect(run.stderr).toContain('nothing was imported');
      expect(await registriesOf(CSV_APP, 'csv-x')).toEqual([]);
    });
  });

  describe('resume', () => {
    it('a rerun after the import was killed half-way completes every device, none duplicated or half-registered', async () => {
      const devices = Array.from({ length: KILL_COUNT }, (_, i) => (i % 3 === 2 ? abp(`kill-${i}`, devEui(6, i), i) : otaa(`kill-${i}`, devEui(6, i), i)));
      const ids = devices.map((d) => ({ id: d.ids.device_id, otaa: d.supports_join }));
      const file = writeLines('kill.jsonl', devices);

      const child = spawnCli(['devices', 'import', file, '--application', KILL_APP, '--batch-size', '5', '--concurrency', '2']);
      let stderr = '';
      await new Promise<void>((res, rej) => {
        child.on('error', rej);
        child.on('exit', () => rej(new Error(`the import ended before it was killed:\n${stderr}`)));
        child.stderr.on('data', (d: Buffer) => {
          stderr += d.toString();
          // The first progress line (a tenth of the file) is the moment.
          if (/imported \d+\/300/.test(stderr)) {
            child.removeAllListeners('exit');
            child.on('exit', () => res());
            child.kill('SIGKILL');
          }
        });
      });
      const before = await totalDevices(KILL_APP);
      expect(before).toBeGreaterThan(0);
      expect(before).toBeLessThan(KILL_COUNT);

      // However the kill fell, one device is half-registered for sure: the first the IS has loses its NS and AS parts.
      const listed = await api.get(`/api/v3/applications/${KILL_APP}/devices?field_mask=ids&limit=1`);
      expectStatus(listed, 200);
      const half = listed.json.end_devices[0].ids.device_id as string;
      for (const registry of ['AS', 'NS'] as const) {
        const res = await api.delete(devicePath(registry, KILL_APP, half));
        if (res.status !== 404) expectStatus(res, 200);
      }
      expect(await registriesOf(KILL_APP, half)).not.toContain('AS');

      const run = await cli(['devices', 'import', file, '--application', KILL_APP]);
      expectExit(run, 0);
      const summary = JSON.parse(run.stdout);
      expect(summary.failed).toBe(0);
      expect(summary.completed).toBeGreaterThanOrEqual(1);
      expect(summary.registered + summary.completed + summary.skipped).toBe(KILL_COUNT);
      expect(summary.registered).toBe(KILL_COUNT - before);
      expect(await totalDevices(KILL_APP)).toBe(KILL_COUNT);
      expect(await expectWholeOrAbsent(KILL_APP, ids)).toHaveLength(KILL_COUNT);
    });
  });

  describe('key rights', () => {
    it('keys without the right to write them: each such line reported with the 403 and rolled back, the others registered', async () => {
      const writer = await access.createKey('application', RIGHTS_APP, ['RIGHT_APPLICATION_DEVICES_READ', 'RIGHT_APPLICATION_DEVICES_WRITE']);
      const keyless = (id: string, i: number) => {
        const device: Record<string, unknown> = otaa(id, devEui(7, i), i);
        delete device.root_keys;
        return device;
      };
      const file = writeLines('rights.jsonl', [
        otaa('r-keys-1', devEui(7, 1), 1),
        keyless('r-plain-2', 2),
        otaa('r-keys-3', devEui(7, 3), 3),
        keyless('r-plain-4', 4),
      ]);
      const run = await cli(['devices', 'import', file, '--application', RIGHTS_APP], writer.token);
      expectExit(run, 1);
      expect(JSON.parse(run.stdout)).toEqual(expect.objectContaining({ registered: 2, failed: 2 }));
      const report = readReport(`${file}.report.jsonl`);
      expect(report.map((r) => [r.line, r.device_id, r.registry, r.error.http_status, r.rolled_back])).toEqual([
        [1, 'r-keys-1', 'JS', 403, ['IS']],
        [3, 'r-keys-3', 'JS', 403, ['IS']],
      ]);
      expect(report[0].error.message).toContain('insufficient_application_rights');
      expect(await registriesOf(RIGHTS_APP, 'r-keys-1')).toEqual([]);
      expect(await registriesOf(RIGHTS_APP, 'r-plain-2')).toEqual(['IS', 'NS', 'AS']);
    });
  });

  it('leaves no server errors behind', () => {
    expect(api.serverErrors).toEqual([]);
  });
});
