import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import loraPacket from 'lora-packet';
import { loadConfig } from '@lorawan/config';
import { type EventRecorder, recordEvents, startTestComponent, type TestComponent } from '@lorawan/testing';
import { JsModule } from '../js.module';

/**
 * NsJs.HandleJoin on a started Join Server (SQLite, in-process transport): devices registered
 * through JsEndDeviceRegistry.Set, join-requests built and join-accepts checked by lora-packet.
 */
const APP = 'app-join';
const APP_KEY = '98929B92C49EDBA9676D646D3B612456';
const JOIN_EUI = '70B3D57ED0000001';
const KEKS = 'ns-kek=000102030405060708090A0B0C0D0E0F,as-kek=0F0E0D0C0B0A09080706050403020100';
/** The gateway's admin caller, for the registry calls that set devices up. */
const ADMIN = {
  request_id: 'join-spec',
  correlation_ids: [],
  caller: { kind: 'admin-key' as const, id: 'admin', is_admin: true, key_rights: [], universal: true, rights: [] },
};
const devEui = (n: number) => `0004A30B00${n.toString(16).toUpperCase().padStart(6, '0')}`;

function joinRequest(devEuiHex: string, devNonce: number, key = APP_KEY): string {
  const nonce = Buffer.alloc(2);
  nonce.writeUInt16BE(devNonce);
  const frame = loraPacket.fromFields(
    { MType: 'Join Request', AppEUI: Buffer.from(JOIN_EUI, 'hex'), DevEUI: Buffer.from(devEuiHex, 'hex'), DevNonce: nonce },
    undefined,
    undefined,
    Buffer.from(key, 'hex'),
  );
  return (frame.getPHYPayload() as Buffer).toString('base64');
}

const handleJoin = (raw: string, version = 'MAC_V1_0_3') => ({
  raw_payload: raw,
  dev_addr: '260B1234',
  net_id: '000013',
  selected_mac_version: version,
  downlink_settings: { rx1_dr_offset: 0, rx2_dr: 3 },
  rx_delay: 5,
  cf_list: { type: 'FREQUENCIES', freq: [8671000, 8673000, 8675000, 8677000, 8679000] },
  correlation_ids: ['gs:uplink:01JDXJOINREQ000000000000000'],
});

describe('NsJs.HandleJoin (SQLite)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lw-js-join-'));
  let js: TestComponent;
  let events: EventRecorder;

  beforeAll(async () => {
    js = await startTestComponent(JsModule, { component: 'js', config: loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'error', KEKS }) });
    events = recordEvents(js.broker);
  });
  afterAll(async () => {
    await js.close();
    js.broker.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const storedNonces = (deviceId: string) =>
    js.call(
      'JsEndDeviceRegistry.Get',
      { end_device_ids: { device_id: deviceId, application_ids: { application_id: APP } }, field_mask: { paths: ['used_dev_nonces', 'last_join_nonce'] } },
      ADMIN,
    );

  async function register(n: number, extra: Record<string, unknown> = {}, paths: string[] = []) {
    const reply = await js.call(
      'JsEndDeviceRegistry.Set',
      {
        end_device: {
          ids: { device_id: `dev-${n}`, application_ids: { application_id: APP }, join_eui: JOIN_EUI, dev_eui: devEui(n) },
          root_keys: { app_key: { key: APP_KEY } },
          ...extra,
        },
        field_mask: { paths: ['root_keys.app_key.key', ...paths] },
      },
      ADMIN,
    );
    expect(reply).toHaveProperty('ok');
  }

  it('accepts a join: a join-accept the device decrypts and verifies, keys the device derives, js.join.accept with the uplink correlation ID', async () => {
    await register(1);
    const reply = await js.call('NsJs.HandleJoin', handleJoin(joinRequest(devEui(1), 0x0102)));
    if (!('ok' in reply)) throw new Error(JSON.stringify(reply));
    const response = reply.ok as { raw_payload: string; session_keys: Record<string, { key?: string } | string> };
    const accept = loraPacket.fromWire(
      loraPacket.decryptJoinAccept(loraPacket.fromWire(Buffer.from(response.raw_payload, 'base64')), Buffer.from(APP_KEY, 'hex')),
    );
    expect(loraPacket.verifyMIC(accept, undefined, Buffer.from(APP_KEY, 'hex'))).toBe(true);
    const b = accept.getBuffers();
    const hex = (x: Buffer | undefined) => (x ?? Buffer.alloc(0)).toString('hex').toUpperCase();
    expect([hex(b.AppNonce), hex(b.NetID), hex(b.DevAddr), hex(b.CFList)]).toEqual(['000001', '000013', '260B1234', '184F84E85684B85E84886684586E8400']);
    const keys = loraPacket.generateSessionKeys10(
      Buffer.from(APP_KEY, 'hex'),
      Buffer.from('000013', 'hex'),
      Buffer.from('000001', 'hex'),
      Buffer.from('0102', 'hex'),
    );
    expect(response.session_keys).toMatchObject({
      f_nwk_s_int_key: { key: keys.NwkSKey.toString('hex').toUpperCase() },
      app_s_key: { key: keys.AppSKey.toString('hex').toUpperCase() },
    });
    expect(typeof response.session_keys.session_key_id).toBe('string');
    const published = await events.take();
    expect(published.map((e) => e.name)).toEqual(['js.end_device.create', 'js.join.accept']);
    expect(published[1]).toMatchObject({
      identifiers: [{ device_ids: { device_id: 'dev-1', application_ids: { application_id: APP }, join_eui: JOIN_EUI, dev_eui: devEui(1) } }],
      correlation_ids: expect.arrayContaining(['gs:uplink:01JDXJOINREQ000000000000000']),
    });
    // The nonces are stored with the device.
    expect(await storedNonces('dev-1')).toMatchObject({ ok: { used_dev_nonces: [0x0102], last_join_nonce: 1 } });
    // No session key or root key in any event.
    expect(JSON.stringify(events.all)).not.toContain(APP_KEY);
    expect(JSON.stringify(events.all)).not.toContain(keys.AppSKey.toString('hex').toUpperCase());
  });

  it('refuses a replayed DevNonce and a bad MIC with js.join.reject, changing nothing; an unknown device with device_not_found', async () => {
    await register(2);
    expect(await js.call('NsJs.HandleJoin', handleJoin(joinRequest(devEui(2), 7)))).toHaveProperty('ok');
    await events.take();
    expect(await js.call('NsJs.HandleJoin', handleJoin(joinRequest(devEui(2), 7)))).toMatchObject({
      error: { namespace: 'pkg/joinserver', name: 'reuse_dev_nonce', code: 3 },
    });
    expect(await js.call('NsJs.HandleJoin', handleJoin(joinRequest(devEui(2), 8, '00'.repeat(16))))).toMatchObject({
      error: { name: 'mic_mismatch', code: 3 },
    });
    const rejects = await events.take();
    expect(rejects.map((e) => [e.name, (e.data as { name?: string })?.name])).toEqual([
      ['js.join.reject', 'reuse_dev_nonce'],
      ['js.join.reject', 'mic_mismatch'],
    ]);
    expect(await storedNonces('dev-2')).toMatchObject({ ok: { used_dev_nonces: [7], last_join_nonce: 1 } });
    expect(await js.call('NsJs.HandleJoin', handleJoin(joinRequest(devEui(99), 1)))).toMatchObject({
      error: { namespace: 'pkg/joinserver', name: 'device_not_found', code: 5 },
    });
    expect(await events.take()).toEqual([]);
  });

  it('wraps the network keys and the AppSKey with the KEK labels the device names', async () => {
    await register(3, { network_server_kek_label: 'ns-kek', application_server_kek_label: 'as-kek' }, [
      'network_server_kek_label',
      'application_server_kek_label',
    ]);
    const reply = await js.call('NsJs.HandleJoin', handleJoin(joinRequest(devEui(3), 1)));
    expect(reply).toMatchObject({
      ok: {
        session_keys: {
          f_nwk_s_int_key: { kek_label: 'ns-kek', encrypted_key: expect.any(String) },
          app_s_key: { kek_label: 'as-kek', encrypted_key: expect.any(String) },
        },
      },
    });
    expect(JSON.stringify(reply)).not.toMatch(/"key":/);
  });

  it('AsJs.GetAppSKey answers the AppSKey of an accepted join by its session key ID, wrapped as the join answered it', async () => {
    await register(4);
    const joined = await js.call('NsJs.HandleJoin', handleJoin(joinRequest(devEui(4), 0x0404)));
    if (!('ok' in joined)) throw new Error(JSON.stringify(joined));
    const { session_keys } = joined.ok as { session_keys: { session_key_id: string; app_s_key: { key: string } } };
    const fetched = await js.call('AsJs.GetAppSKey', { session_key_id: session_keys.session_key_id, dev_eui: devEui(4), join_eui: JOIN_EUI });
    expect(fetched).toEqual({ ok: { app_s_key: session_keys.app_s_key } });
    // Wrapped for the AS when the device names its KEK label (device 3 of the previous test).
    const wrapped = await js.call('NsJs.HandleJoin', handleJoin(joinRequest(devEui(3), 2)));
    const id = (wrapped as { ok: { session_keys: { session_key_id: string } } }).ok.session_keys.session_key_id;
    expect(await js.call('AsJs.GetAppSKey', { session_key_id: id, dev_eui: devEui(3), join_eui: JOIN_EUI })).toMatchObject({
      ok: { app_s_key: { kek_label: 'as-kek', encrypted_key: expect.any(String) } },
    });
    // Another device's ID, or one never given: not found.
    expect(await js.call('AsJs.GetAppSKey', { session_key_id: id, dev_eui: devEui(4), join_eui: JOIN_EUI })).toMatchObject({
      error: { namespace: 'pkg/joinserver', name: 'session_keys_not_found', code: 5 },
    });
    expect(await js.call('AsJs.GetAppSKey', { session_key_id: 'AQID', dev_eui: devEui(4), join_eui: JOIN_EUI })).toMatchObject({
      error: { name: 'session_keys_not_found' },
    });
  });

  it('refuses requests that are not a join-request of a known device', async () => {
    expect(await js.call('NsJs.HandleJoin', { ...handleJoin(joinRequest(devEui(1), 9)), raw_payload: undefined })).toMatchObject({
      error: { name: 'validation' },
    });
    expect(await js.call('NsJs.HandleJoin', handleJoin(Buffer.alloc(23).toString('base64')))).toMatchObject({
      error: { namespace: 'pkg/joinserver', name: 'device_not_found' },
    });
    const data = loraPacket.fromFields(
      { MType: 'Unconfirmed Data Up', DevAddr: Buffer.from('26011BDA', 'hex'), FCnt: 1, FPort: 1, payload: Buffer.from('1234567890') },
      Buffer.alloc(16),
      Buffer.alloc(16),
    );
    expect(await js.call('NsJs.HandleJoin', handleJoin((data.getPHYPayload() as Buffer).subarray(0, 23).toString('base64')))).toMatchObject({
      error: { namespace: 'pkg/joinserver', name: 'payload_type' },
    });
  });
});
