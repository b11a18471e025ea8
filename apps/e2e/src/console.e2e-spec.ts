/**
 * The web console (/console) in Debian's headless Chromium, driven by playwright-core (no browser
 * download), against the distributed and the embedded stack: sign in with the admin key, create an
 * application, register an OTAA device while a second tab follows the application's live events,
 * edit and delete it; register an ABP device (no JS) and find its session in the NS and AS; page
 * through the device list; the gateways page shows a connected gateway's connection stats (polled
 * from the Gateway Server) and another as not connected; an application's MQTT tab shows its
 * connection and a new traffic key once (which the MQTT server then accepts); its Pub/Subs are
 * created, edited (the password never shown back) and deleted; a device page lists the uplinks the
 * Storage Integration stored, and says when it is not enabled. Screenshots (desktop and phone-sized, taken in embedded mode) go to
 * test-artifacts/console/.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import mqtt from 'mqtt';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { loraJoinRequest, SimulatedUdpGateway, startDistributedStack, startEmbeddedStack, type StackUnderTest } from '@lorawan/testing';

const CHROMIUM = process.env.TEST_CHROMIUM ?? '/usr/bin/chromium';
const ARTIFACTS = join(__dirname, '..', '..', '..', 'test-artifacts', 'console');
const APP = 'console-app';
const PHONE = { width: 390, height: 844 };

type Start = () => Promise<StackUnderTest>;
/** The parts of a registry's Get answer the ABP test reads. */
interface DeviceJson {
  name?: string;
  supports_join?: boolean;
  lorawan_version?: string;
  ids: { dev_eui?: string; dev_addr?: string };
  session: { dev_addr?: string; keys: { session_key_id?: string } };
}
const MODES: Array<[string, Start]> = [
  ['distributed', () => startDistributedStack({ components: ['is', 'js', 'ns', 'as', 'events', 'gs'] })],
  ['embedded', () => startEmbeddedStack({})],
];

describe.each(MODES)('web console (%s)', (mode, start) => {
  let stack: StackUnderTest;
  let browser: Browser;

  /** Screenshots of one mode only (the pages look the same in both). */
  const shot = async (page: Page, name: string) => {
    if (mode === 'embedded') await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
  };
  const adminFetch = (path: string, init: RequestInit = {}) =>
    fetch(`${stack.baseUrl}/api/v3${path}`, { ...init, headers: { authorization: `Bearer ${stack.adminKey}`, 'content-type': 'application/json' } });

  async function signIn(context: BrowserContext, path = '/console'): Promise<Page> {
    const page = await context.newPage();
    await page.goto(`${stack.baseUrl}${path}`);
    await page.getByLabel('API key').fill(stack.adminKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    return page;
  }

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    stack = await start();
    // playwright-core launches it with a fresh temporary profile (its --user-data-dir) and removes it on close.
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('serves the app shell, its hashed assets immutable, deep links as index.html', async () => {
    const index = await fetch(`${stack.baseUrl}/console/applications/x/devices/y`);
    expect(index.status).toBe(200);
    expect(index.headers.get('cache-control')).toBe('no-cache');
    const html = await index.text();
    const asset = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(asset).toBeDefined();
    const js = await fetch(`${stack.baseUrl}${asset}`);
    expect(js.status).toBe(200);
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await fetch(`${stack.baseUrl}/console/assets/missing.js`)).status).toBe(404);
  });

  it('signs in, creates an application and a device whose end_device.create arrives live, edits and deletes it', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${stack.baseUrl}/console`);
    await shot(page, 'sign-in');
    await page.getByLabel('API key').fill('NNSXS.WRONG.KEY');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByTestId('api-error').textContent()).resolves.toMatch(/HTTP 40[01]/);
    await page.getByLabel('API key').fill(stack.adminKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Applications' }).waitFor();
    expect(page.url()).not.toContain(stack.adminKey);

    await page.getByRole('button', { name: 'Create application' }).click();
    await page.getByLabel('Application ID').fill(APP);
    await page.getByLabel('Name').fill('Console app');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.getByRole('link', { name: APP }).click();
    await page.getByTestId('device-total').filter({ hasText: '0 devices' }).waitFor();
    await shot(page, 'applications-device-list-empty');

    // A second tab follows the application's events (its own session storage: it signs in too).
    const watcher = await signIn(context, `/console/applications/${APP}/events`);
    await watcher.getByTestId('stream-state').filter({ hasText: 'open' }).waitFor();

    await page.getByRole('button', { name: 'Register device' }).click();
    await page.getByLabel('Device ID').fill('dev1');
    await page.getByLabel('DevEUI').fill('70B3D57ED005B59E');
    await page.getByLabel('AppKey').fill('00112233445566778899AABBCCDDEEFF');
    await page.getByLabel('Name', { exact: true }).fill('Device one');
    await page.getByRole('button', { name: 'Register' }).click();
    await page.getByRole('heading', { name: 'Device one' }).waitFor();
    for (const r of ['IS', 'JS', 'NS', 'AS']) await page.getByText(`${r}: registered`).waitFor();
    await shot(page, 'device');

    await watcher.getByTestId('event-table').getByText('end_device.create', { exact: true }).waitFor({ timeout: 10000 });
    await watcher.getByTestId('event-table').getByText('ns.end_device.create').waitFor();
    await shot(watcher, 'live-events');

    // Keys: asked for only on request; the admin created the application, so it may read them.
    await page.getByRole('switch', { name: 'Show root and session keys' }).check({ force: true });
    await page.getByText('00112233445566778899AABBCCDDEEFF').waitFor();

    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByRole('dialog').getByLabel('Name').fill('Device renamed');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: 'Device renamed' }).waitFor();
    await watcher.getByTestId('event-table').getByText('end_device.update', { exact: true }).waitFor();

    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByTestId('device-total').filter({ hasText: '0 devices' }).waitFor();
    for (const r of ['as', 'ns', 'js', '']) {
      const res = await adminFetch(`${r ? `/${r}` : ''}/applications/${APP}/devices/dev1`);
      expect({ r, status: res.status }).toEqual({ r, status: 404 });
    }
    await watcher.getByTestId('event-table').getByText('end_device.delete', { exact: true }).waitFor();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    expect(await page.evaluate('sessionStorage.length')).toBe(0);
    await context.close();
  });

  it('registers an ABP device through the form (IS, NS, AS: no JS), its session in the NS and AS, and deletes it', async () => {
    const NWK_S_KEY = '2B7E151628AED2A6ABF7158809CF4F3C';
    const APP_S_KEY = '000102030405060708090A0B0C0D0E0F';
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await signIn(context, `/console/applications/${APP}/devices`);
    await page.getByRole('button', { name: 'Register device' }).click();
    await page.getByText('ABP', { exact: true }).click();
    await page.getByLabel('Device ID').fill('abp1');
    await page.getByLabel('Name', { exact: true }).fill('ABP one');
    await page.getByLabel('DevEUI').fill('70B3D57ED005B5AB');
    await page.getByLabel('DevAddr').fill('0100ABC');
    await page.getByLabel(/^NwkSKey/).fill(NWK_S_KEY);
    await page.getByLabel('AppSKey').fill(APP_S_KEY);
    // The form checks hex lengths itself: nothing is sent.
    await page.getByRole('button', { name: 'Register' }).click();
    await page.getByText('8 hex digits').waitFor();
    await shot(page, 'register-abp');
    expect((await adminFetch(`/applications/${APP}/devices/abp1`)).status).toBe(404);
    await page.getByLabel('DevAddr').fill('0100abcd');
    await page.getByRole('button', { name: 'Register' }).click();
    await page.getByRole('heading', { name: 'ABP one' }).waitFor();
    for (const r of ['IS', 'NS', 'AS']) await page.getByText(`${r}: registered`).waitFor();
    await page.getByText('JS: not registered').waitFor();

    // The IS takes the DevAddr in ids and, as TTS's, holds none (docs/identity-and-access.md); the NS and AS do.
    const is = (await (await adminFetch(`/applications/${APP}/devices/abp1?field_mask=name`)).json()) as DeviceJson;
    expect([is.name, is.ids.dev_eui]).toEqual(['ABP one', '70B3D57ED005B5AB']);
    const nsRes = await adminFetch(`/ns/applications/${APP}/devices/abp1?field_mask=supports_join,lorawan_version,session.dev_addr,session.keys`);
    expect(nsRes.status).toBe(200);
    const ns = (await nsRes.json()) as DeviceJson;
    expect(ns.supports_join ?? false).toBe(false);
    expect(ns.lorawan_version).toBe('MAC_V1_0_3');
    expect(ns.ids.dev_addr).toBe('0100ABCD');
    // MAC 1.0.x: the NwkSKey, sent as the FNwkSIntKey, is also the SNwkSIntKey and NwkSEncKey.
    expect(ns.session).toMatchObject({
      dev_addr: '0100ABCD',
      keys: { f_nwk_s_int_key: { key: NWK_S_KEY }, s_nwk_s_int_key: { key: NWK_S_KEY }, nwk_s_enc_key: { key: NWK_S_KEY } },
    });
    const asRes = await adminFetch(`/as/applications/${APP}/devices/abp1?field_mask=session.dev_addr,session.keys,formatters`);
    expect(asRes.status).toBe(200);
    const as = (await asRes.json()) as DeviceJson;
    expect(as.session).toMatchObject({ dev_addr: '0100ABCD', keys: { app_s_key: { key: APP_S_KEY }, session_key_id: ns.session.keys.session_key_id } });
    expect((await adminFetch(`/js/applications/${APP}/devices/abp1`)).status).toBe(404);

    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByTestId('device-total').filter({ hasText: '0 devices' }).waitFor();
    for (const r of ['as', 'ns', '']) {
      const res = await adminFetch(`${r ? `/${r}` : ''}/applications/${APP}/devices/abp1`);
      expect({ r, status: res.status }).toEqual({ r, status: 404 });
    }
    await context.close();
  });

  it("shows each gateway's connection from the GS's stats: protocol, uplinks; a gateway without one as not connected", async () => {
    const eui = 'AA555A0000C0150' + (mode === 'embedded' ? '1' : '2');
    for (const [id, gatewayEui] of [
      ['console-gtw', eui],
      ['console-gtw-off', undefined],
    ] as const) {
      const created = await adminFetch('/users/admin/gateways', {
        method: 'POST',
        body: JSON.stringify({ gateway: { ids: { gateway_id: id, ...(gatewayEui ? { eui: gatewayEui } : {}) }, frequency_plan_id: 'EU_863_870_TTN' } }),
      });
      expect(created.status).toBe(200);
    }
    if (!stack.udpPort) throw new Error('the stack has no Gateway Server UDP port');
    const udp = new SimulatedUdpGateway(eui, { host: '127.0.0.1', port: stack.udpPort });
    await udp.open();
    try {
      expect(await udp.pull()).toBe(0x04);
      await udp.push({ rxpk: [SimulatedUdpGateway.rxpk(loraJoinRequest()), SimulatedUdpGateway.rxpk(loraJoinRequest({ devNonce: '0002' }))] });
      const context = await browser.newContext();
      const page = await signIn(context, '/console/gateways');
      const row = page.getByTestId('gateway-console-gtw');
      await row.getByText(/^udp · since /).waitFor();
      await row.getByTestId('uplink-count').filter({ hasText: /^2$/ }).waitFor();
      await page.getByTestId('gateway-console-gtw-off').getByText('not connected').waitFor();
      // Live: the next uplink shows within a poll.
      await udp.push({ rxpk: [SimulatedUdpGateway.rxpk(loraJoinRequest({ devNonce: '0003' }))] });
      await row.getByTestId('uplink-count').filter({ hasText: /^3$/ }).waitFor({ timeout: 10_000 });
      await shot(page, 'gateways');
      await context.close();
    } finally {
      udp.close();
    }
  });

  it('pages and orders the device list (X-Total-Count), also on a phone-sized screen', async () => {
    const end_devices = Array.from({ length: 25 }, (_, i) => ({
      ids: {
        device_id: `pd-${String(i).padStart(2, '0')}`,
        application_ids: { application_id: APP },
        dev_eui: `70B3D57ED00600${i.toString(16).padStart(2, '0')}`.toUpperCase(),
        join_eui: '0000000000000000',
      },
      name: `Paged ${i}`,
    }));
    const res = await adminFetch(`/applications/${APP}/devices/batch`, { method: 'POST', body: JSON.stringify({ end_devices }) });
    expect(res.status).toBe(200);

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await signIn(context, `/console/applications/${APP}/devices`);
    const rows = page.getByTestId('device-table').locator('tbody tr');
    await page.getByTestId('device-total').filter({ hasText: '25 devices' }).waitFor();
    await expect(rows.count()).resolves.toBe(20);
    await page.getByRole('button', { name: '2', exact: true }).click();
    await page.getByRole('link', { name: 'pd-24' }).waitFor();
    await expect(rows.count()).resolves.toBe(5);
    await page.getByRole('combobox', { name: 'Order' }).click();
    await page.getByRole('option', { name: '-device_id', exact: true }).click();
    // Page 2 of the ascending order also shows pd-24 (last): wait for the descending page 1.
    await rows.first().filter({ hasText: 'pd-24' }).waitFor();
    await expect(rows.count()).resolves.toBe(20);
    // The IS search (device-list.tsx): IDs containing pd-1 are pd-10 … pd-19.
    await page.getByLabel('Search devices').fill('pd-1');
    await page.getByTestId('device-total').filter({ hasText: '10 devices' }).waitFor();
    await expect(rows.count()).resolves.toBe(10);
    await shot(page, 'device-list');
    await context.close();

    const phone = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
    const small = await signIn(phone);
    await small.getByRole('heading', { name: 'Applications' }).waitFor();
    await shot(small, 'phone-applications');
    await small.goto(`${stack.baseUrl}/console/applications/${APP}/devices`);
    await small.getByTestId('device-total').filter({ hasText: '25 devices' }).waitFor();
    await shot(small, 'phone-device-list');
    await small.getByRole('button', { name: 'Menu' }).click();
    await small.getByText('Gateways').click();
    await small.getByRole('heading', { name: 'Gateways' }).waitFor();
    // The menu closes on navigation: the screenshot waits until it has slid off the screen.
    const navbar = small.locator('.mantine-AppShell-navbar');
    for (const deadline = Date.now() + 5000; ; await small.waitForTimeout(50)) {
      const box = await navbar.boundingBox();
      if (!box || box.x + box.width <= 0) break;
      if (Date.now() > deadline) throw new Error('the menu did not close after navigating');
    }
    await shot(small, 'phone-gateways');
    await phone.close();
  });
  /** A new application of the admin user. */
  const createApp = async (id: string) => {
    const res = await adminFetch('/users/admin/applications', { method: 'POST', body: JSON.stringify({ application: { ids: { application_id: id } } }) });
    expect(res.status).toBe(200);
  };

  it("shows the application's MQTT connection and a new traffic key once, which the MQTT server accepts", async () => {
    const app = 'console-mqtt';
    await createApp(app);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await signIn(context, `/console/applications/${app}/mqtt`);
    await page.getByTestId('mqtt-username').waitFor();
    // MQTT_PUBLIC_ADDRESS is not set: PUBLIC_URL's host (127.0.0.1 in the test stacks) with the port the AS listens on; no TLS listener, no TLS address.
    expect(await page.getByTestId('mqtt-username').textContent()).toBe(app);
    expect(await page.getByTestId('mqtt-address').textContent()).toBe(`127.0.0.1:${stack.mqttPort}`);
    expect(await page.getByTestId('mqtt-tls-address').count()).toBe(0);
    const info = await adminFetch(`/as/applications/${app}/mqtt-connection-info`);
    expect([info.status, await info.json()]).toEqual([200, { public_address: `127.0.0.1:${stack.mqttPort}`, username: app }]);

    await page.getByRole('button', { name: 'Generate new API key' }).click();
    const key = (await page.getByTestId('mqtt-api-key').textContent()) ?? '';
    expect(key).toMatch(/^NNSXS\.[A-Z0-9]+\.[A-Z0-9]+$/);
    await shot(page, 'mqtt');
    // The IS holds it with exactly the traffic rights, and never answers the token again.
    const keys = (await (await adminFetch(`/applications/${app}/api-keys`)).json()) as { api_keys: Array<{ id: string; rights: string[]; key?: string }> };
    expect(keys.api_keys).toHaveLength(1);
    expect(keys.api_keys[0].rights.sort()).toEqual(['RIGHT_APPLICATION_TRAFFIC_DOWN_WRITE', 'RIGHT_APPLICATION_TRAFFIC_READ']);
    expect(JSON.stringify(keys)).not.toContain(key);
    // The connection info needs RIGHT_APPLICATION_INFO, which a traffic key has not.
    const refused = await fetch(`${stack.baseUrl}/api/v3/as/applications/${app}/mqtt-connection-info`, { headers: { authorization: `Bearer ${key}` } });
    expect(refused.status).toBe(403);

    // A real MQTT client connects with the username and key shown, and may subscribe to the traffic.
    const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${stack.mqttPort}`, { username: app, password: key, reconnectPeriod: 0, connectTimeout: 5000 });
    try {
      const granted = await client.subscribeAsync(`v3/${app}/devices/+/up`);
      expect(granted.map((g) => g.qos)).toEqual([0]);
    } finally {
      await client.endAsync();
    }

    // Shown once: after a reload the page has no key to show.
    await page.reload();
    await page.getByTestId('mqtt-username').waitFor();
    expect(await page.getByTestId('mqtt-api-key').count()).toBe(0);
    await context.close();
  });

  it('creates an MQTT Pub/Sub, edits it without ever showing its password, and deletes it', async () => {
    const app = 'console-pubsub';
    const SECRET = 'console-broker-secret-17';
    await createApp(app);
    const stored = async () => {
      const res = await adminFetch(`/as/pubsub/${app}/broker-1?field_mask=uplink_message,join_accept,downlink_push`);
      return {
        status: res.status,
        body: (await res.json()) as { base_topic?: string; mqtt?: Record<string, unknown>; uplink_message?: unknown; downlink_push?: unknown },
      };
    };
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await signIn(context, `/console/applications/${app}/pubsubs`);
    await page.getByText('No Pub/Subs.').waitFor();
    await page.getByRole('button', { name: 'Add Pub/Sub' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Pub/Sub ID').fill('broker-1');
    await dialog.getByText('MQTT', { exact: true }).click();
    // A port nothing listens on: the AS keeps trying to connect in the background.
    await dialog.getByLabel('Server URL').fill('mqtt://127.0.0.1:9');
    await dialog.getByLabel('Client ID').fill('console-e2e');
    await dialog.getByLabel('Username', { exact: true }).fill('as-user');
    await dialog.getByLabel('Password', { exact: true }).fill(SECRET);
    await dialog.getByLabel('Base topic').fill('lorawan');
    await dialog.getByRole('checkbox', { name: 'Downlink push (subscribed)' }).check();
    await shot(page, 'pubsub-create');
    await dialog.getByRole('button', { name: 'Create' }).click();
    const row = page.getByTestId('pubsub-broker-1');
    await row.getByText('mqtt://127.0.0.1:9').waitFor();
    await shot(page, 'pubsubs');
    const created = await stored();
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      base_topic: 'lorawan',
      mqtt: { server_url: 'mqtt://127.0.0.1:9', client_id: 'console-e2e', username: 'as-user', password: SECRET },
      uplink_message: { topic: 'up' },
      downlink_push: { topic: 'down/push' },
    });
    expect(await page.content()).not.toContain(SECRET);

    // Edit: the form shows no password; saving without one keeps the stored password.
    await row.getByRole('button', { name: 'Edit' }).click();
    await expect(dialog.getByLabel('Password', { exact: true }).inputValue()).resolves.toBe('');
    await expect(dialog.getByLabel('Username', { exact: true }).inputValue()).resolves.toBe('as-user');
    expect(await page.content()).not.toContain(SECRET);
    await dialog.getByLabel('Base topic').fill('lorawan-2');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await row.getByText('lorawan-2').waitFor();
    const edited = await stored();
    expect(edited.body).toMatchObject({ base_topic: 'lorawan-2', mqtt: { password: SECRET, username: 'as-user' }, downlink_push: { topic: 'down/push' } });

    page.once('dialog', (d) => void d.accept());
    await row.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No Pub/Subs.').waitFor();
    expect((await stored()).status).toBe(404);
    await context.close();
  });

  it("lists a device's uplinks stored by the Storage Integration, and says when it is not enabled", async () => {
    const app = 'console-storage';
    const dev = 'stored-1';
    await createApp(app);
    const ids = { device_id: dev, application_ids: { application_id: app }, dev_eui: '70B3D57ED0070001', join_eui: '0000000000000000' };
    expect((await adminFetch(`/applications/${app}/devices`, { method: 'POST', body: JSON.stringify({ end_device: { ids } }) })).status).toBe(200);
    const as = await adminFetch(`/as/applications/${app}/devices/${dev}`, {
      method: 'PUT',
      body: JSON.stringify({
        end_device: {
          ids,
          session: { dev_addr: '26010001', keys: { session_key_id: 'AQID', app_s_key: { key: '000102030405060708090A0B0C0D0E0F' } } },
          formatters: {
            up_formatter: 'FORMATTER_JAVASCRIPT',
            up_formatter_parameter: 'function decodeUplink(input) { return { data: { n: input.bytes[0] } }; }',
          },
        },
        field_mask: { paths: ['session.dev_addr', 'session.keys.session_key_id', 'session.keys.app_s_key.key', 'formatters'] },
      }),
    });
    expect(as.status).toBe(200);

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await signIn(context, `/console/applications/${app}/devices/${dev}`);
    await page.getByTestId('storage-disabled').waitFor();
    await page.getByText('No stored uplinks.').waitFor();

    const association = await adminFetch(`/as/applications/${app}/packages/associations/200`, {
      method: 'PUT',
      body: JSON.stringify({ default: { package_name: 'storage-integration' }, field_mask: { paths: ['package_name'] } }),
    });
    expect(association.status).toBe(200);
    for (const fCnt of [1, 2, 3]) {
      const up = { uplink_message: { f_port: 5, f_cnt: fCnt, frm_payload: Buffer.from([fCnt * 10]).toString('base64') } };
      expect((await adminFetch(`/as/applications/${app}/devices/${dev}/up/simulate`, { method: 'POST', body: JSON.stringify(up) })).status).toBe(200);
    }
    // The writes are batched: wait until the three are stored.
    for (let i = 0; ; i++) {
      const count = (await (await adminFetch(`/as/applications/${app}/packages/storage/uplink_message/count`)).json()) as { count?: Record<string, number> };
      if ((count.count?.[dev] ?? 0) >= 3) break;
      if (i > 100) throw new Error('the uplinks were not stored');
      await new Promise((r) => setTimeout(r, 100));
    }

    await page.getByRole('button', { name: 'Refresh' }).click();
    const rows = page.getByTestId('stored-uplinks').locator('tbody tr');
    await rows.nth(2).waitFor();
    await expect(rows.count()).resolves.toBe(3);
    // Newest first: FPort, FCnt and the decoded payload of each.
    const cells = await rows.evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].slice(1).map((td) => td.textContent)));
    expect(cells).toEqual([
      ['5', '3', '{"n":30}'],
      ['5', '2', '{"n":20}'],
      ['5', '1', '{"n":10}'],
    ]);
    expect(await page.getByTestId('storage-disabled').count()).toBe(0);
    await shot(page, 'device-history');
    await context.close();
  });
});
