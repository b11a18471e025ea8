/**
 * The AppAs downlink queue (push / replace / list under /api/v3/as/applications/{app}/devices/{dev}/down)
 * over HTTP, end to end, in both run modes (wire contract §9): FCnts from the AS session, payloads
 * encrypted with the AppSKey (wrapped with a KEK) into the NS's queue and listed decrypted, formatter encoding,
 * and the errors of bad input; and the webhook-scoped push/replace (§8.3: empty bodies, 406 when paused).
 */
import { createCipheriv } from 'node:crypto';
import { startDistributedStack, startEmbeddedStack, type StackUnderTest } from '@lorawan/testing';
import { Access, bearer } from './access';
import { Api, createApplications, expectTtsError, expectValidationError } from './http-client';
import { abpAsDevice, abpNsDevice, expectOk, isDevicesPath, randomDevAddr, randomKey, Registries, uid } from './devices';

const KEK_ENV = { KEKS: 'e2e=000102030405060708090A0B0C0D0E0F', JS_KEK_LABEL: 'e2e', NS_KEK_LABEL: 'e2e', AS_KEK_LABEL: 'e2e' };
type Start = () => Promise<StackUnderTest>;
const MODES: Array<[string, Start]> = [
  ['distributed', () => startDistributedStack({ components: ['is', 'js', 'ns', 'as'], env: KEK_ENV })],
  ['embedded', () => startEmbeddedStack({ env: KEK_ENV })],
];

type Json = Record<string, unknown>;
const b64 = (hex: string) => Buffer.from(hex, 'hex').toString('base64');

/** An independent FRMPayload cipher (LoRaWAN 1.0.x §4.3.3), so the test does not share the server's code. */
function frmDown(keyHex: string, devAddr: string, fCnt: number, payload: Buffer): string {
  const out = Buffer.alloc(payload.length);
  const cipher = createCipheriv('aes-128-ecb', Buffer.from(keyHex, 'hex'), null);
  for (let i = 0; i < payload.length; i += 16) {
    const a = Buffer.alloc(16);
    a[0] = 1;
    a[5] = 1;
    Buffer.from(devAddr, 'hex').reverse().copy(a, 6);
    a.writeUInt32LE(fCnt, 10);
    a[15] = i / 16 + 1;
    const s = cipher.update(a);
    for (let j = 0; j < 16 && i + j < payload.length; j++) out[i + j] = payload[i + j] ^ s[j];
  }
  return out.toString('base64');
}

describe.each(MODES)('AppAs downlink queue over HTTP (%s)', (_mode, start) => {
  let stack: StackUnderTest;
  const api = new Api(() => stack);
  const reg = new Registries(api);
  const app = uid('down-app');
  const base = (dev: string) => `/api/v3/as/applications/${app}/devices/${dev}/down`;
  const push = (dev: string, downlinks: unknown) => api.post(`${base(dev)}/push`, { downlinks });
  const replace = (dev: string, downlinks: unknown) => api.post(`${base(dev)}/replace`, { downlinks });
  const list = (dev: string) => api.get(base(dev));

  /** An ABP device in the IS, NS and AS; returns its DevAddr and AppSKey. */
  async function abpDevice(extraAs: Json = {}, extraPaths: string[] = []): Promise<{ dev: string; devAddr: string; appSKey: string }> {
    const dev = uid('dev');
    const ids = { device_id: dev };
    const devAddr = randomDevAddr();
    const appSKey = randomKey();
    expectOk(await api.post(isDevicesPath(app), { end_device: { ids: { ...ids, application_ids: { application_id: app } } } }), 'IS create');
    const ns = abpNsDevice(ids, devAddr, randomKey());
    await reg.setOk('ns', app, dev, ns.device, ns.paths);
    const as = abpAsDevice(ids, devAddr, appSKey);
    await reg.setOk('as', app, dev, { ...as.device, ...extraAs }, [...as.paths, ...extraPaths]);
    return { dev, devAddr, appSKey };
  }

  beforeAll(async () => {
    stack = await start();
    await createApplications(api, [app]);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('push answers {}; list answers the queue decrypted with FCnts 1, 2, 3 and as:downlink correlation IDs; stored encrypted', async () => {
    const { dev, devAddr, appSKey } = await abpDevice();
    expect(await list(dev)).toMatchObject({ status: 200, json: {} });
    const pushed = await push(dev, [
      { f_port: 1, frm_payload: 'AQID', priority: 'NORMAL' },
      { f_port: 15, frm_payload: 'BAU=', confirmed: true },
    ]);
    expectOk(pushed, 'push');
    expect(pushed.json).toEqual({});
    expectOk(await push(dev, [{ f_port: 2, frm_payload: 'Bg==' }]), 'push 2');
    const res = await list(dev);
    expectOk(res, 'list');
    const downlinks = (res.json as { downlinks: Json[] }).downlinks;
    expect(downlinks.map((d) => [d.f_port, d.f_cnt, d.frm_payload, d.confirmed, d.priority, d.session_key_id])).toEqual([
      [1, 1, 'AQID', undefined, 'NORMAL', 'AQID'],
      [15, 2, 'BAU=', true, undefined, 'AQID'],
      [2, 3, 'Bg==', undefined, undefined, 'AQID'],
    ]);
    for (const d of downlinks) expect((d.correlation_ids as string[]).some((c) => /^as:downlink:[0-9A-Z]{26}$/.test(c))).toBe(true);
    // The queue is the NS's (as in TTS): its registry holds it encrypted; the AS keeps its FCnt only.
    const got = await reg.getOk('ns', app, dev, ['session.queued_application_downlinks']);
    const stored = (got.json.session as { queued_application_downlinks: Json[] }).queued_application_downlinks;
    expect(stored.map((d) => d.frm_payload)).toEqual([
      frmDown(appSKey, devAddr, 1, Buffer.from('010203', 'hex')),
      frmDown(appSKey, devAddr, 2, Buffer.from('0405', 'hex')),
      frmDown(appSKey, devAddr, 3, Buffer.from('06', 'hex')),
    ]);
    const atAs = await reg.getOk('as', app, dev, ['session.queued_application_downlinks', 'session.last_a_f_cnt_down']);
    expect(atAs.json.session).toEqual({ last_a_f_cnt_down: 3 });
  });

  it('replace swaps the queue (FCnts go on); an empty replace clears it and list answers {}', async () => {
    const { dev } = await abpDevice();
    expectOk(
      await push(dev, [
        { f_port: 1, frm_payload: 'AQ==' },
        { f_port: 1, frm_payload: 'Ag==' },
      ]),
      'push',
    );
    const replaced = await replace(dev, [{ f_port: 7, frm_payload: 'qrs=' }]);
    expectOk(replaced, 'replace');
    expect(replaced.json).toEqual({});
    const res = await list(dev);
    expect((res.json as { downlinks: Json[] }).downlinks.map((d) => [d.f_port, d.f_cnt, d.frm_payload])).toEqual([[7, 3, 'qrs=']]);
    expectOk(await replace(dev, []), 'empty replace');
    expect(await list(dev)).toMatchObject({ status: 200, json: {} });
    expectOk(await api.post(`${base(dev)}/replace`, {}), 'replace without downlinks');
  });

  it('decoded_payload is encoded with the device down formatter; a formatter error is 400 and stores nothing', async () => {
    const script = 'function encodeDownlink(input) { if (!input.data.led) return { errors: ["led missing"] }; return { bytes: [1, input.fPort] }; }';
    const { dev } = await abpDevice({ formatters: { down_formatter: 'FORMATTER_JAVASCRIPT', down_formatter_parameter: script } }, ['formatters']);
    expectOk(await push(dev, [{ f_port: 5, decoded_payload: { led: true } }]), 'push decoded');
    const res = await list(dev);
    expect((res.json as { downlinks: Json[] }).downlinks.map((d) => [d.f_port, d.frm_payload])).toEqual([[5, b64('0105')]]);
    const bad = expectTtsError(await push(dev, [{ f_port: 5, decoded_payload: { led: false } }]), 400, 3, 'pkg/applicationserver', 'encode_payload');
    expect(bad.cause).toMatchObject({ name: 'output_errors', attributes: { errors: 'led missing' } });
    expect((await list(dev)).json).toEqual(res.json);
  });

  it('f_port, payload size and base64 errors are 400 and store nothing (all or nothing)', async () => {
    const { dev } = await abpDevice();
    expectOk(await push(dev, [{ f_port: 1, frm_payload: 'AQ==' }]), 'push');
    const before = (await list(dev)).json;
    expectTtsError(await push(dev, [{ f_port: 1, frm_payload: 'Ag==' }, { frm_payload: 'Aw==' }]), 400, 3, 'pkg/applicationserver', 'no_f_port');
    expectTtsError(await push(dev, [{ f_port: 0, frm_payload: 'Aw==' }]), 400, 3, 'pkg/applicationserver', 'no_f_port');
    expectTtsError(await push(dev, [{ f_port: 224, frm_payload: 'Aw==' }]), 400, 3, 'pkg/applicationserver', 'f_port_range');
    expectValidationError(await push(dev, [{ f_port: 256, frm_payload: 'Aw==' }]), /f_port/);
    expectTtsError(
      await replace(dev, [{ f_port: 1, frm_payload: Buffer.alloc(243).toString('base64') }]),
      400,
      3,
      'pkg/applicationserver',
      'payload_too_large',
      { size: 243, max: 242 },
    );
    expectValidationError(await push(dev, [{ f_port: 1, frm_payload: 'not base64!' }]), /frm_payload/);
    expect((await list(dev)).json).toEqual(before);
    expectOk(await push(dev, [{ f_port: 223, frm_payload: Buffer.alloc(242).toString('base64') }]), 'largest payload');
  });

  it('a device without session → 400 no_device_session (code 9); unknown device → 404 device_not_found', async () => {
    const dev = uid('dev');
    await reg.setOk('as', app, dev, { ids: { device_id: dev }, formatters: { up_formatter: 'FORMATTER_CAYENNELPP' } }, ['formatters']);
    expectTtsError(await push(dev, [{ f_port: 1, frm_payload: 'AQ==' }]), 400, 9, 'pkg/applicationserver', 'no_device_session');
    expectTtsError(await push(uid('absent'), [{ f_port: 1, frm_payload: 'AQ==' }]), 404, 5, 'pkg/applicationserver', 'device_not_found');
    expectTtsError(await list(uid('absent')), 404, 5, 'pkg/applicationserver', 'device_not_found');
  });

  it('webhook-scoped push/replace: 200 empty body and queued; paused → 406 empty body, nothing queued; unknown webhook → 404; no right → 403', async () => {
    const access = new Access(api);
    const { dev } = await abpDevice();
    const wh = uid('wh');
    const setWebhook = (webhook: Json, paths: string[]) => api.put(`/api/v3/as/webhooks/${app}/${wh}`, { webhook, field_mask: { paths } });
    expectOk(await setWebhook({ base_url: 'http://127.0.0.1:9/' }, ['base_url']), 'create webhook');
    const writer = bearer((await access.createKey('application', app, ['RIGHT_APPLICATION_TRAFFIC_DOWN_WRITE'])).token);
    const reader = bearer((await access.createKey('application', app, ['RIGHT_APPLICATION_TRAFFIC_READ'])).token);
    const whBase = (hook: string) => `/api/v3/as/applications/${app}/webhooks/${hook}/devices/${dev}/down`;
    const queued = async () => ((await api.get(base(dev), reader)).json as { downlinks?: Json[] }).downlinks?.map((d) => [d.f_port, d.f_cnt, d.frm_payload]);

    const pushed = await api.post(`${whBase(wh)}/push`, { downlinks: [{ f_port: 15, frm_payload: 'AQID', priority: 'NORMAL', confirmed: true }] }, writer);
    expect([pushed.status, pushed.text]).toEqual([200, '']);
    expect(await queued()).toEqual([[15, 1, 'AQID']]);
    expectOk(await api.post(`${whBase(wh)}/push`, { downlinks: [{ f_port: 2, frm_payload: 'Bg==' }] }, writer), 'second push');
    expect(await queued()).toEqual([
      [15, 1, 'AQID'],
      [2, 2, 'Bg=='],
    ]);

    const replaced = await api.post(`${whBase(wh)}/replace`, { downlinks: [{ f_port: 7, frm_payload: 'qrs=' }] }, writer);
    expect([replaced.status, replaced.text]).toEqual([200, '']);
    expect(await queued()).toEqual([[7, 3, 'qrs=']]);

    expectOk(await setWebhook({ paused: true }, ['paused']), 'pause webhook');
    for (const op of ['push', 'replace']) {
      const paused = await api.post(`${whBase(wh)}/${op}`, { downlinks: [{ f_port: 1, frm_payload: 'AQ==' }] }, writer);
      expect([op, paused.status, paused.text]).toEqual([op, 406, '']);
    }
    expect(await queued()).toEqual([[7, 3, 'qrs=']]);

    expectTtsError(
      await api.post(`${whBase(uid('nohook'))}/push`, { downlinks: [{ f_port: 1, frm_payload: 'AQ==' }] }, writer),
      404,
      5,
      'pkg/applicationserver/io/web',
      'webhook_not_found',
    );
    const forbidden = await api.post(`${whBase(wh)}/push`, { downlinks: [{ f_port: 1, frm_payload: 'AQ==' }] }, reader);
    expect(forbidden.status).toBe(403);
    expect(await queued()).toEqual([[7, 3, 'qrs=']]);
  });
});
