/**
 * Key material is protected by construction (issue 29, finding 1), in both run modes:
 *
 * - the finding itself: after an OTAA join the NS holds the join-accept's network session keys in
 *   `pending_mac_state.queued_join_accept.keys`; a key with only `RIGHT_APPLICATION_DEVICES_READ`
 *   read them with `?field_mask=pending_mac_state`, and one with only `…_WRITE` stored chosen keys;
 * - the whole tree: every path each registry (JS, NS, AS) lets a Get name is asked for, alone, by a
 *   key without `…_READ_KEYS`, on a device holding a key in every envelope that registry stores:
 *   each answer is a refusal or carries no key (clear or wrapped); the IS's device routes refuse
 *   key paths to it too;
 * - a real OTAA join (frames by lora-packet): no event a subscriber without the key rights
 *   receives carries a session key, and the NS keeps no join-accept keys in its MAC state once the
 *   join-accept is sent, nor when it cannot be sent.
 */
import { ALLOWED_PATHS, type EventJson, KEY_PATHS } from '@lorawan/api';
import { SimulatedOtaaDevice, SimulatedUdpGateway, startDistributedStack, startEmbeddedStack, type StackUnderTest } from '@lorawan/testing';
import { Access, bearer, type CreatedKey } from '../access';
import { expectNoKeyMaterial, expectNoWrappedKeys, NS_OTAA, NS_OTAA_PATHS, otaaIds, randomEui, randomKey, Registries, type Registry, uid } from '../devices';
import { EventStream } from '../event-stream';
import { connectGateways } from '../gateways';
import { ADMIN_USER_ID, Api, type ApiResponse, createApplications, expectStatus, sleep } from '../http-client';

type Start = () => Promise<StackUnderTest>;
const MODES: Array<[string, Start]> = [
  ['distributed', () => startDistributedStack({ components: ['is', 'js', 'ns', 'as', 'events', 'gs'] })],
  ['embedded', () => startEmbeddedStack()],
];

const READ = ['RIGHT_APPLICATION_INFO', 'RIGHT_APPLICATION_DEVICES_READ', 'RIGHT_APPLICATION_TRAFFIC_READ'];
const WRITE = [...READ, 'RIGHT_APPLICATION_DEVICES_WRITE'];
const SERVICE: Record<Registry, string> = { js: 'JsEndDeviceRegistry', ns: 'NsEndDeviceRegistry', as: 'AsEndDeviceRegistry' };

/** A queued join-accept as the NS stores it, carrying `keys`. */
function queuedJoinAccept(devAddr: string, keys: Record<string, unknown>): Record<string, unknown> {
  return {
    payload: Buffer.alloc(17, 1).toString('base64'),
    request: {
      raw_payload: Buffer.alloc(23).toString('base64'),
      dev_addr: devAddr,
      selected_mac_version: 'MAC_V1_0_3',
      net_id: '000013',
      downlink_settings: { rx1_dr_offset: 0, rx2_dr: 3, opt_neg: false },
      rx_delay: 1,
    },
    keys,
    dev_addr: devAddr,
    net_id: '000013',
  };
}

const MAC_PARAMETERS = { rx1_delay: 1, rx2_data_rate_index: 0, rx2_frequency: '869525000', max_eirp: 16 };

/** A MAC state whose queued join-accept holds the network session keys (and an AppSKey), all distinct. */
function macStateWithJoinAccept(keys: string[]): Record<string, unknown> {
  return {
    current_parameters: MAC_PARAMETERS,
    desired_parameters: MAC_PARAMETERS,
    lorawan_version: 'MAC_V1_0_3',
    queued_join_accept: queuedJoinAccept('26011234', {
      session_key_id: 'AQID',
      f_nwk_s_int_key: { key: keys[0] },
      s_nwk_s_int_key: { key: keys[1] },
      nwk_s_enc_key: { key: keys[2] },
      app_s_key: { key: keys[3] },
    }),
  };
}

describe.each(MODES)('Tenant safety: key material (%s)', (mode, start) => {
  let stack: StackUnderTest;
  const api = new Api(() => stack);
  const access = new Access(api);
  const reg = new Registries(api);
  const app = uid('keys-app');
  let reader: CreatedKey;
  let writer: CreatedKey;
  const opened: Array<{ close(): void }> = [];

  beforeAll(async () => {
    stack = await start();
    await createApplications(api, [app]);
    reader = await access.createKey('application', app, READ);
    writer = await access.createKey('application', app, WRITE);
  }, 120_000);

  afterAll(async () => {
    for (const o of opened) o.close();
    await stack?.stop();
  });

  /** A registered OTAA device (IS, NS) whose NS record holds `pending_mac_state` (set by the admin, who holds every right). */
  async function nsDeviceWithQueuedJoinAccept(keys: string[]) {
    const dev = uid('dev');
    const ids = otaaIds(dev);
    expectStatus(await api.post(`/api/v3/applications/${app}/devices`, { end_device: { ids: { ...ids, application_ids: { application_id: app } } } }), 200);
    await reg.setOk('ns', app, dev, { ids, ...NS_OTAA, pending_mac_state: macStateWithJoinAccept(keys) }, [...NS_OTAA_PATHS, 'pending_mac_state']);
    return { dev, ids };
  }

  it('the finding: the join-accept keys in pending_mac_state need READ_KEYS to be read and WRITE_KEYS to be written', async () => {
    const keys = [randomKey(), randomKey(), randomKey(), randomKey()];
    const { dev, ids } = await nsDeviceWithQueuedJoinAccept(keys);
    // The admin reads them: the device does hold them.
    const full = await reg.getOk('ns', app, dev, ['pending_mac_state']);
    expect(full.json).toMatchObject({ pending_mac_state: { queued_join_accept: { keys: { f_nwk_s_int_key: { key: keys[0] } } } } });

    for (const mask of ['pending_mac_state', 'pending_mac_state.queued_join_accept', 'pending_mac_state.queued_join_accept.keys.nwk_s_enc_key.key']) {
      const res = await api.get(`/api/v3/ns/applications/${app}/devices/${dev}?field_mask=${mask}`, bearer(reader.token));
      expect([mask, res.status, res.json?.details?.[0]?.name]).toEqual([mask, 403, 'insufficient_application_rights']);
      expectNoKeyMaterial(res, keys, `${mode}: NS Get ${mask} without READ_KEYS`);
    }
    // What holds no key stays readable with the read right alone.
    const keyless = await api.get(
      `/api/v3/ns/applications/${app}/devices/${dev}?field_mask=pending_mac_state.queued_join_accept.dev_addr`,
      bearer(reader.token),
    );
    expect(keyless.status).toBe(200);
    expect(keyless.json).toMatchObject({ pending_mac_state: { queued_join_accept: { dev_addr: '26011234' } } });

    // A write of chosen keys without WRITE_KEYS is refused, and nothing is stored.
    const chosen = [randomKey(), randomKey(), randomKey(), randomKey()];
    const put = await api.put(
      `/api/v3/ns/applications/${app}/devices/${dev}`,
      { end_device: { ids, pending_mac_state: macStateWithJoinAccept(chosen) }, field_mask: { paths: ['pending_mac_state'] } },
      bearer(writer.token),
    );
    expect([put.status, put.json?.details?.[0]?.name]).toEqual([403, 'insufficient_application_rights']);
    const after = await reg.getOk('ns', app, dev, ['pending_mac_state.queued_join_accept.keys']);
    expect(after.json).toMatchObject({ pending_mac_state: { queued_join_accept: { keys: { f_nwk_s_int_key: { key: keys[0] } } } } });
    expectNoKeyMaterial(after, chosen, `${mode}: NS after a refused write`);
  });

  it('every path each registry’s Get allows: without READ_KEYS a refusal or an answer without key material, with READ_KEYS the keys', async () => {
    const dev = uid('tree');
    const ids = otaaIds(dev);
    expectStatus(await api.post(`/api/v3/applications/${app}/devices`, { end_device: { ids: { ...ids, application_ids: { application_id: app } } } }), 200);
    const keys: Record<Registry, string[]> = {
      js: [randomKey(), randomKey()],
      ns: Array.from({ length: 14 }, randomKey),
      as: [randomKey()],
    };
    await reg.setOk('js', app, dev, { ids, root_keys: { app_key: { key: keys.js[0] }, nwk_key: { key: keys.js[1] } } }, ['root_keys']);
    const netKeys = (k: string[]) => ({ session_key_id: 'AQID', f_nwk_s_int_key: { key: k[0] }, s_nwk_s_int_key: { key: k[1] }, nwk_s_enc_key: { key: k[2] } });
    await reg.setOk(
      'ns',
      app,
      dev,
      {
        ids,
        ...NS_OTAA,
        lorawan_version: 'MAC_V1_1',
        lorawan_phy_version: 'PHY_V1_1_REV_B',
        session: { dev_addr: '26011234', keys: netKeys(keys.ns.slice(0, 3)) },
        pending_session: { dev_addr: '26011235', keys: netKeys(keys.ns.slice(3, 6)) },
        mac_state: { ...macStateWithJoinAccept(keys.ns.slice(6, 10)), lorawan_version: 'MAC_V1_1' },
        pending_mac_state: { ...macStateWithJoinAccept(keys.ns.slice(10, 14)), lorawan_version: 'MAC_V1_1' },
      },
      [...NS_OTAA_PATHS, 'lorawan_version', 'lorawan_phy_version', 'session', 'pending_session', 'mac_state', 'pending_mac_state'],
    );
    // The AS's pending session comes from joins only; its Set takes the session.
    await reg.setOk('as', app, dev, { ids, session: { dev_addr: '26011234', keys: { session_key_id: 'AQID', app_s_key: { key: keys.as[0] } } } }, [
      'session.dev_addr',
      'session.keys.session_key_id',
      'session.keys.app_s_key.key',
    ]);

    for (const c of ['js', 'ns', 'as'] as const) {
      const allowed = [...ALLOWED_PATHS[`${SERVICE[c]}.Get` as keyof typeof ALLOWED_PATHS]];
      const statuses: Record<number, number> = {};
      for (const path of allowed) {
        const limited = await api.get(`/api/v3/${c}/applications/${app}/devices/${dev}?field_mask=${path}`, bearer(reader.token));
        statuses[limited.status] = (statuses[limited.status] ?? 0) + 1;
        const what = `${mode}: ${c.toUpperCase()} Get ${path} without READ_KEYS`;
        if (limited.status === 403) {
          expect([what, limited.json?.details?.[0]?.name]).toEqual([what, 'insufficient_application_rights']);
          expect([what, KEY_PATHS.read.some((k) => k === path || k.startsWith(`${path}.`))]).toEqual([what, true]);
          continue;
        }
        expect([what, limited.status]).toEqual([what, 200]);
        expectNoKeyMaterial(limited, keys[c], what);
        expectNoWrappedKeys(limited, what);
      }
      // Both outcomes occur: the walk is not vacuous.
      expect([c, statuses[200] > 10, statuses[403] > 1]).toEqual([c, true, true]);
      // With the key right every key is there to read (the admin holds every right).
      const all = await reg.getOk(c, app, dev, allowed);
      for (const key of keys[c]) expect([c, key, all.text.includes(key)]).toEqual([c, key, true]);
    }

    // The IS holds no keys; its device routes refuse key paths to a key without READ_KEYS all the same.
    for (const path of [
      `/api/v3/applications/${app}/devices/${dev}?field_mask=session.keys.app_s_key.key`,
      `/api/v3/applications/${app}/devices?field_mask=root_keys`,
      `/api/v3/applications/${app}/devices/batch?device_ids=${dev}&field_mask=pending_mac_state`,
      `/api/v3/search/applications/${app}/devices?field_mask=session`,
    ]) {
      const res = await api.get(path, bearer(reader.token));
      expect([path, res.status]).toEqual([path, 403]);
    }
  }, 120_000);

  it('an OTAA join: no event a subscriber without the key rights receives carries a key; the NS keeps no join-accept keys once sent, nor when it cannot send', async () => {
    const [gateway] = await connectGateways(api, stack, { count: 1, replicas: false });
    opened.push(gateway.udp);
    const stream = await EventStream.open(stack.baseUrl, {
      authorization: `Bearer ${reader.token}`,
      body: { identifiers: [{ application_ids: { application_id: app } }] },
    });
    opened.push(stream);
    expect((await stream.nextEvent()).name).toBe('events.stream.start');

    async function otaaDevice() {
      const dev = uid('join');
      const ids = { device_id: dev, dev_eui: randomEui(), join_eui: randomEui() };
      const appKey = randomKey();
      expectStatus(await api.post(`/api/v3/applications/${app}/devices`, { end_device: { ids: { ...ids, application_ids: { application_id: app } } } }), 200);
      await reg.setOk('js', app, dev, { ids, root_keys: { app_key: { key: appKey } } }, ['root_keys.app_key.key']);
      await reg.setOk('ns', app, dev, { ids, ...NS_OTAA, frequency_plan_id: 'EU_863_870_TTN' }, NS_OTAA_PATHS);
      await reg.setOk('as', app, dev, { ids }, []);
      return { dev, ids, appKey, sim: new SimulatedOtaaDevice({ joinEui: ids.join_eui, devEui: ids.dev_eui, appKey, macVersion: 'MAC_V1_0_3' }) };
    }

    // 1. A join answered through the gateway: the device derives its session keys (lora-packet).
    const joined = await otaaDevice();
    await gateway.udp.push({ rxpk: [SimulatedUdpGateway.rxpk(joined.sim.joinRequest(), { tmst: 77_000 })] });
    const [down] = await gateway.udp.waitForDownlinks(1, 5000);
    const accepted = joined.sim.acceptJoin(Buffer.from(down.txpk.data as string, 'base64'));
    gateway.udp.txAck(down.token);
    const sessionKeys = Object.values(accepted.keys as Record<string, string>);
    let ns: ApiResponse | undefined;
    for (let i = 0; i < 100; i++) {
      ns = await reg.getOk('ns', app, joined.dev, ['pending_session', 'pending_mac_state']);
      if ((ns.json as { pending_session?: unknown }).pending_session) break;
      await sleep(20);
    }
    expect(ns?.json).toMatchObject({ pending_session: { keys: { f_nwk_s_int_key: { key: (accepted.keys as { nwkSKey: string }).nwkSKey } } } });
    expect((ns?.json as { pending_mac_state: Record<string, unknown> }).pending_mac_state).not.toHaveProperty('queued_join_accept');

    // 2. A join-request from a gateway without a downlink path (no PULL_DATA): the join-accept cannot be sent.
    const stranded = await otaaDevice();
    const eui = randomEui();
    expectStatus(
      await api.post(`/api/v3/users/${ADMIN_USER_ID}/gateways`, {
        gateway: { ids: { gateway_id: uid('gtw-nopull'), eui }, frequency_plan_id: 'EU_863_870_TTN' },
      }),
      200,
    );
    const pushOnly = new SimulatedUdpGateway(eui, { host: '127.0.0.1', port: stack.udpPort as number });
    await pushOnly.open();
    opened.push(pushOnly);
    await pushOnly.push({ rxpk: [SimulatedUdpGateway.rxpk(stranded.sim.joinRequest(), { tmst: 88_000 })] });
    const seen: EventJson[] = [];
    const deadline = Date.now() + 10_000;
    while (!seen.some((e) => e.name === 'ns.down.join.schedule.fail' && JSON.stringify(e.identifiers).includes(stranded.dev))) {
      if (Date.now() > deadline) throw new Error(`${mode}: no ns.down.join.schedule.fail for ${stranded.dev}: ${seen.map((e) => e.name).join(', ')}`);
      seen.push(await stream.nextEvent(10_000));
    }
    let strandedState: Record<string, unknown> = {};
    for (let i = 0; i < 100; i++) {
      strandedState = (await reg.getOk('ns', app, stranded.dev, ['pending_mac_state'])).json as Record<string, unknown>;
      if (!(strandedState.pending_mac_state as Record<string, unknown> | undefined)?.queued_join_accept) break;
      await sleep(20);
    }
    expect(strandedState.pending_mac_state).toBeDefined();
    expect(strandedState.pending_mac_state).not.toHaveProperty('queued_join_accept');

    // Every event of both joins the limited subscriber received: no root key, no session key, clear or base64.
    await sleep(500);
    const text = stream.text;
    expect(stream.events.length).toBeGreaterThan(5);
    for (const key of [joined.appKey, stranded.appKey, ...sessionKeys]) {
      expect([key, text.toUpperCase().includes(key.toUpperCase())]).toEqual([key, false]);
      expect([key, text.includes(Buffer.from(key, 'hex').toString('base64'))]).toEqual([key, false]);
    }
  }, 60_000);
});
