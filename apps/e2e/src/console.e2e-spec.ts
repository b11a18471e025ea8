/**
 * The web console (/console) in Debian's headless Chromium, driven by playwright-core (no browser
 * download): sign in with the admin key, create an application, register a device while a second
 * tab follows the application's live events, edit and delete it, page through the device list.
 * Screenshots (desktop and phone-sized) go to test-artifacts/console/.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { startEmbeddedStack, type StackUnderTest } from '@lorawan/testing';

const CHROMIUM = process.env.TEST_CHROMIUM ?? '/usr/bin/chromium';
const ARTIFACTS = join(__dirname, '..', '..', '..', 'test-artifacts', 'console');
const APP = 'console-app';
const PHONE = { width: 390, height: 844 };

describe('web console (embedded)', () => {
  let stack: StackUnderTest;
  let browser: Browser;

  const shot = (page: Page, name: string) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });

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
    stack = await startEmbeddedStack();
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
      const res = await fetch(`${stack.baseUrl}/api/v3${r ? `/${r}` : ''}/applications/${APP}/devices/dev1`, {
        headers: { authorization: `Bearer ${stack.adminKey}` },
      });
      expect({ r, status: res.status }).toEqual({ r, status: 404 });
    }
    await watcher.getByTestId('event-table').getByText('end_device.delete', { exact: true }).waitFor();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    expect(await page.evaluate('sessionStorage.length')).toBe(0);
    await context.close();
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
    const res = await fetch(`${stack.baseUrl}/api/v3/applications/${APP}/devices/batch`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ end_devices }),
    });
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
    await page.getByRole('link', { name: 'pd-24' }).waitFor();
    await expect(rows.first().textContent()).resolves.toContain('pd-24');
    await page.getByLabel('Search this page').fill('pd-1');
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
    await shot(small, 'phone-gateways');
    await phone.close();
  });
});
