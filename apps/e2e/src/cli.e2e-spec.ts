/**
 * The device registration CLI (`tools/src/cli`, `npm run cli`) end to end: the built
 * `dist/tools/src/cli/main.js` as a child process against the embedded all-in-one stack, talking
 * HTTP like any client. Registration in the spec's order with rollback, the merged get and list,
 * deletion in reverse order, and its handling of configuration and failures.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startEmbeddedStack, type StackUnderTest } from '@lorawan/testing';
import { Api, createApplications, expectStatus } from './http-client';

const ROOT = resolve(__dirname, '../../..');
const CLI = join(process.env.LW_DIST_DIR ?? join(ROOT, 'dist'), 'tools/src/cli/main.js');

const APP = 'cli-app';
const APP_KEY = '00112233445566778899AABBCCDDEEFF';
const F_NWK_S_INT_KEY = '0102030405060708090A0B0C0D0E0F10';
const APP_S_KEY = '1112131415161718191A1B1C1D1E1F20';
const UPLINK_SCRIPT = 'function decodeUplink(input) { return { data: { bytes: input.bytes } }; }';

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed JSON of any shape
  json: any;
}

const otaa = (deviceId: string, devEui: string, extra: Record<string, unknown> = {}) => ({
  ids: { device_id: deviceId, application_ids: { application_id: APP }, dev_eui: devEui, join_eui: '70B3D57ED0000000' },
  name: `OTAA ${deviceId}`,
  attributes: { room: 'a' },
  supports_join: true,
  lorawan_version: 'MAC_V1_0_3',
  lorawan_phy_version: 'PHY_V1_0_3_REV_A',
  frequency_plan_id: 'EU_863_870_TTN',
  mac_settings: { supports_32_bit_f_cnt: true },
  root_keys: { app_key: { key: APP_KEY } },
  ...extra,
});

const abp = (deviceId: string, devEui: string, devAddr: string, appSKey = APP_S_KEY) => ({
  ids: { device_id: deviceId, application_ids: { application_id: APP }, dev_eui: devEui },
  name: `ABP ${deviceId}`,
  supports_join: false,
  lorawan_version: 'MAC_V1_0_3',
  lorawan_phy_version: 'PHY_V1_0_3_REV_A',
  frequency_plan_id: 'EU_863_870_TTN',
  session: {
    dev_addr: devAddr,
    keys: { session_key_id: 'AQID', f_nwk_s_int_key: { key: F_NWK_S_INT_KEY }, app_s_key: { key: appSKey } },
  },
  formatters: { up_formatter: 'FORMATTER_JAVASCRIPT', up_formatter_parameter: UPLINK_SCRIPT },
});

describe('device CLI against the embedded stack', () => {
  let stack: StackUnderTest;
  let workDir: string;
  const api = new Api(() => stack);

  beforeAll(async () => {
    stack = await startEmbeddedStack();
    await createApplications(api, [APP]);
    // The CLI runs in an empty folder, so no ./data/admin-api-key of the repository is picked up.
    workDir = mkdtempSync(join(tmpdir(), 'lw-cli-'));
  });

  afterAll(async () => {
    await stack?.stop();
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  /** Runs the CLI with the stack's URL and key in its environment (unless `env` replaces them). */
  function cli(args: string[], options: { stdin?: string; env?: Record<string, string> } = {}): Promise<CliRun> {
    const env = options.env ?? { LORAWAN_API_URL: stack.baseUrl, LORAWAN_API_KEY: stack.adminKey };
    return new Promise((res, rej) => {
      const child = spawn(process.execPath, [CLI, ...args], { cwd: workDir, env: { PATH: process.env.PATH ?? '', ...env } });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('error', rej);
      child.on('close', (code) => {
        let json: unknown;
        try {
          json = JSON.parse(stdout);
        } catch {
          json = undefined;
        }
        res({ code, stdout, stderr, json });
      });
      child.stdin.end(options.stdin ?? '');
    });
  }

  function writeDescription(name: string, description: unknown): string {
    const file = join(workDir, name);
    writeFileSync(file, JSON.stringify(description));
    return file;
  }

  /** Exit code 0, with stderr in the failure message. */
  function expectSuccess(run: CliRun): void {
    if (run.code !== 0) throw new Error(`CLI exited with ${run.code}:\n${run.stderr}\n${run.stdout}`);
  }

  /** An expected failure: the exit code, and a message rather than a stack trace. */
  function expectFailure(run: CliRun, code: number): void {
    if (run.code !== code) throw new Error(`CLI exited with ${run.code}, expected ${code}:\n${run.stderr}\n${run.stdout}`);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  }

  const paths = {
    IS: (dev: string) => `/api/v3/applications/${APP}/devices/${dev}`,
    JS: (dev: string) => `/api/v3/js/applications/${APP}/devices/${dev}`,
    NS: (dev: string) => `/api/v3/ns/applications/${APP}/devices/${dev}`,
    AS: (dev: string) => `/api/v3/as/applications/${APP}/devices/${dev}`,
  };

  async function expectAbsent(dev: string, registries: Array<keyof typeof paths> = ['IS', 'JS', 'NS', 'AS']): Promise<void> {
    for (const registry of registries) {
      const res = await api.get(paths[registry](dev));
      if (res.status !== 404) throw new Error(`${registry} still has ${dev}: HTTP ${res.status} ${res.text}`);
    }
  }

  describe('usage', () => {
    it('--help lists the commands and the description format', async () => {
      const run = await cli(['--help'], { env: {} });
      expectSuccess(run);
      for (const command of ['devices register', 'devices get', 'devices list', 'devices delete', 'root_keys']) expect(run.stdout).toContain(command);
    });

    it('an unknown command prints the usage on stderr and exits 2', async () => {
      const run = await cli(['gateways', 'list']);
      expectFailure(run, 2);
      expect(run.stderr).toContain('unknown command "gateways"');
      expect(run.stderr).toContain('Usage:');
      expect(run.stdout).toBe('');
    });
  });

  describe('register', () => {
    it('registers an OTAA device in the IS, JS, NS and AS and prints the merged result', async () => {
      const run = await cli(['devices', 'register', writeDescription('otaa-1.json', otaa('otaa-1', '70B3D57ED0000001'))]);
      expectSuccess(run);
      expect(run.json).toEqual(
        expect.objectContaining({
          ids: expect.objectContaining({
            device_id: 'otaa-1',
            application_ids: { application_id: APP },
            dev_eui: '70B3D57ED0000001',
            join_eui: '70B3D57ED0000000',
          }),
          name: 'OTAA otaa-1',
          attributes: { room: 'a' },
          root_keys: expect.objectContaining({ app_key: expect.objectContaining({ key: APP_KEY }) }),
          frequency_plan_id: 'EU_863_870_TTN',
          lorawan_version: 'MAC_V1_0_3',
          lorawan_phy_version: 'PHY_V1_0_3_REV_A',
          supports_join: true,
          created_at: expect.any(String),
        }),
      );
      expect(run.stderr).toContain('registered cli-app/otaa-1 in IS, JS, NS, AS');
    });

    it('stored each part in its registry', async () => {
      const is = await api.get(`${paths.IS('otaa-1')}?field_mask=name,attributes`);
      expectStatus(is, 200);
      expect(is.json).toEqual(expect.objectContaining({ name: 'OTAA otaa-1', attributes: { room: 'a' } }));
      expect(is.json).not.toHaveProperty('root_keys');
      const js = await api.get(`${paths.JS('otaa-1')}?field_mask=root_keys.app_key.key`);
      expectStatus(js, 200);
      expect(js.json.root_keys.app_key.key).toBe(APP_KEY);
      const ns = await api.get(`${paths.NS('otaa-1')}?field_mask=frequency_plan_id,lorawan_version,lorawan_phy_version,supports_join`);
      expectStatus(ns, 200);
      expect(ns.json).toEqual(
        expect.objectContaining({
          frequency_plan_id: 'EU_863_870_TTN',
          lorawan_version: 'MAC_V1_0_3',
          lorawan_phy_version: 'PHY_V1_0_3_REV_A',
          supports_join: true,
        }),
      );
      expectStatus(await api.get(paths.AS('otaa-1')), 200);
    });

    it('registers an ABP device from stdin (`-`): no JS part, each session key only where it belongs', async () => {
      const run = await cli(['devices', 'register', '-'], { stdin: JSON.stringify({ end_device: abp('abp-1', '70B3D57ED0000002', '26011234') }) });
      expectSuccess(run);
      expect(run.stderr).toContain('registered cli-app/abp-1 in IS, NS, AS');
      expect(run.json.ids.device_id).toBe('abp-1');
      expect(run.json.session.dev_addr).toBe('26011234');
      expect(run.json.session.keys.f_nwk_s_int_key.key).toBe(F_NWK_S_INT_KEY);
      expect(run.json.session.keys.app_s_key.key).toBe(APP_S_KEY);
      expect(run.json.formatters).toEqual({ up_formatter: 'FORMATTER_JAVASCRIPT', up_formatter_parameter: UPLINK_SCRIPT });

      await expectAbsent('abp-1', ['JS']);
      const ns = await api.get(`${paths.NS('abp-1')}?field_mask=session`);
      expectStatus(ns, 200);
      expect(ns.json.session.dev_addr).toBe('26011234');
      expect(ns.json.session.keys.f_nwk_s_int_key.key).toBe(F_NWK_S_INT_KEY);
      expect(ns.json.session.keys).not.toHaveProperty('app_s_key');
      const as = await api.get(`${paths.AS('abp-1')}?field_mask=session.keys.app_s_key.key,formatters`);
      expectStatus(as, 200);
      expect(as.json.session.keys.app_s_key.key).toBe(APP_S_KEY);
      expect(as.json.session.keys).not.toHaveProperty('f_nwk_s_int_key');
      expect(as.json.formatters.up_formatter).toBe('FORMATTER_JAVASCRIPT');
    });

    it('rolls back the IS and JS when the NS refuses the device (unknown frequency plan)', async () => {
      const run = await cli(['devices', 'register', writeDescription('bad-fp.json', otaa('bad-fp', '70B3D57ED0000003', { frequency_plan_id: 'NOPE' }))]);
      expectFailure(run, 1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain('failed at the Network Server (NS)');
      expect(run.stderr).toContain('HTTP 400');
      expect(run.stderr).toContain('rolled back: deleted from JS, IS');
      // The original TTS error body is printed too.
      expect(run.stderr).toMatch(/"code": 3/);
      await expectAbsent('bad-fp');
    });

    it('rolls back the NS and IS when the AS refuses the device (zero AppSKey)', async () => {
      const description = abp('bad-as', '70B3D57ED0000004', '26011235', '00000000000000000000000000000000');
      const run = await cli(['devices', 'register', writeDescription('bad-as.json', description)]);
      expectFailure(run, 1);
      expect(run.stderr).toContain('failed at the Application Server (AS)');
      expect(run.stderr).toContain('rolled back: deleted from NS, IS');
      await expectAbsent('bad-as');
    });

    it('leaves an existing device alone when the IS refuses a duplicate', async () => {
      const run = await cli(['devices', 'register', join(workDir, 'otaa-1.json')]);
      expectFailure(run, 1);
      expect(run.stderr).toContain('failed at the Identity Server (IS)');
      expect(run.stderr).toContain('HTTP 409');
      expect(run.stderr).not.toContain('rolled back');
      expectStatus(await api.get(paths.IS('otaa-1')), 200);
      expectStatus(await api.get(paths.JS('otaa-1')), 200);
      expectStatus(await api.get(paths.NS('otaa-1')), 200);
    });

    it('says what is wrong with an unusable description, before any request', async () => {
      const missing = await cli(['devices', 'register', join(workDir, 'nope.json')]);
      expectFailure(missing, 1);
      expect(missing.stderr).toContain('no such file');
      const noApp = await cli(['devices', 'register', '-'], { stdin: JSON.stringify({ ids: { device_id: 'x-1' } }) });
      expectFailure(noApp, 1);
      expect(noApp.stderr).toContain('ids.application_ids.application_id');
      const notJson = await cli(['devices', 'register', '-'], { stdin: '{"ids":' });
      expectFailure(notJson, 1);
      expect(notJson.stderr).toContain('not valid JSON');
    });
  });

  describe('get and list', () => {
    it('get merges the device from all registries', async () => {
      const run = await cli(['devices', 'get', APP, 'otaa-1']);
      expectSuccess(run);
      expect(run.json).toEqual(
        expect.objectContaining({
          ids: expect.objectContaining({ device_id: 'otaa-1', dev_eui: '70B3D57ED0000001' }),
          name: 'OTAA otaa-1',
          root_keys: expect.objectContaining({ app_key: expect.objectContaining({ key: APP_KEY }) }),
          frequency_plan_id: 'EU_863_870_TTN',
          supports_join: true,
          mac_settings: expect.any(Object),
          created_at: expect.any(String),
        }),
      );
      const abpRun = await cli(['devices', 'get', APP, 'abp-1']);
      expectSuccess(abpRun);
      expect(abpRun.json.name).toBe('ABP abp-1');
      expect(abpRun.json).not.toHaveProperty('root_keys');
      expect(abpRun.json.session.keys.f_nwk_s_int_key.key).toBe(F_NWK_S_INT_KEY);
      expect(abpRun.json.session.keys.app_s_key.key).toBe(APP_S_KEY);
      expect(abpRun.json.formatters.up_formatter).toBe('FORMATTER_JAVASCRIPT');
    });

    it('get of an unknown device fails with the IS 404', async () => {
      const run = await cli(['devices', 'get', APP, 'nobody']);
      expectFailure(run, 1);
      expect(run.stderr).toContain('HTTP 404');
      expect(run.stderr).toContain('end_device_not_found');
    });

    it('list pages through the IS and merges every device; the total goes to stderr', async () => {
      const all = await cli(['devices', 'list', APP]);
      expectSuccess(all);
      const devices = all.json.end_devices as Array<Record<string, unknown> & { ids: { device_id: string } }>;
      expect(devices.map((d) => d.ids.device_id)).toEqual(['abp-1', 'otaa-1']);
      expect(devices[0]).toEqual(expect.objectContaining({ name: 'ABP abp-1', session: expect.objectContaining({ dev_addr: '26011234' }) }));
      expect(devices[1]).toEqual(expect.objectContaining({ name: 'OTAA otaa-1', root_keys: expect.any(Object), frequency_plan_id: 'EU_863_870_TTN' }));
      expect(all.stderr).toContain('X-Total-Count: 2');

      const page2 = await cli(['devices', 'list', APP, '--limit', '1', '--page', '2']);
      expectSuccess(page2);
      expect(page2.json.end_devices.map((d: { ids: { device_id: string } }) => d.ids.device_id)).toEqual(['otaa-1']);
      expect(page2.stderr).toContain('X-Total-Count: 2');
    });
  });

  describe('configuration and failures', () => {
    it('reads the admin key the embedded stack writes to <DATA_DIR>/admin-api-key', async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'lw-cli-data-'));
      try {
        writeFileSync(join(dataDir, 'admin-api-key'), `${stack.adminKey}\n`);
        const run = await cli(['devices', 'get', APP, 'otaa-1'], { env: { LORAWAN_API_URL: stack.baseUrl, DATA_DIR: dataDir } });
        expectSuccess(run);
        expect(run.json.ids.device_id).toBe('otaa-1');
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    });

    it('takes --url and --api-key over the environment', async () => {
      const run = await cli(['devices', 'get', APP, 'otaa-1', '--url', stack.baseUrl, '--api-key', stack.adminKey], {
        env: { LORAWAN_API_URL: 'http://127.0.0.1:9', LORAWAN_API_KEY: 'NNSXS.WRONG.KEY' },
      });
      expectSuccess(run);
    });

    it('without any key, says how to give one (exit 2)', async () => {
      const run = await cli(['devices', 'get', APP, 'otaa-1'], { env: { LORAWAN_API_URL: stack.baseUrl, DATA_DIR: join(workDir, 'none') } });
      expectFailure(run, 2);
      expect(run.stderr).toContain('no API key');
    });

    it('a refused key prints the status and the TTS message', async () => {
      const run = await cli(['devices', 'list', APP], { env: { LORAWAN_API_URL: stack.baseUrl, LORAWAN_API_KEY: 'NNSXS.WRONGKEYID.WRONGSECRET' } });
      expectFailure(run, 1);
      expect(run.stderr).toMatch(/HTTP 40[01]: error:/);
    });

    it('an unreachable stack is a message, not a stack trace', async () => {
      const run = await cli(['devices', 'get', APP, 'otaa-1'], { env: { LORAWAN_API_URL: 'http://127.0.0.1:9', LORAWAN_API_KEY: stack.adminKey } });
      expectFailure(run, 1);
      expect(run.stderr).toContain('cannot reach http://127.0.0.1:9');
    });
  });

  describe('delete', () => {
    it('deletes from the AS, NS, JS and IS', async () => {
      const run = await cli(['devices', 'delete', APP, 'otaa-1']);
      expectSuccess(run);
      expect(run.json).toEqual({});
      expect(run.stderr).toContain('deleted cli-app/otaa-1 from AS, NS, JS, IS');
      await expectAbsent('otaa-1');
    });

    it('deletes an ABP device (absent from the JS)', async () => {
      const run = await cli(['devices', 'delete', APP, 'abp-1']);
      expectSuccess(run);
      expect(run.stderr).toContain('deleted cli-app/abp-1 from AS, NS, IS');
      await expectAbsent('abp-1');
    });

    it('lists an application without devices as an empty list (TTS answers {})', async () => {
      const run = await cli(['devices', 'list', APP]);
      expectSuccess(run);
      expect(run.json).toEqual({ end_devices: [] });
      expect(run.stderr).toContain('X-Total-Count: 0');
    });

    it('fails with the IS 404 for a device that does not exist', async () => {
      const run = await cli(['devices', 'delete', APP, 'abp-1']);
      expectFailure(run, 1);
      expect(run.stderr).toContain('HTTP 404');
    });

    it('leaves no server errors behind', () => {
      expect(api.serverErrors).toEqual([]);
    });
  });
});
