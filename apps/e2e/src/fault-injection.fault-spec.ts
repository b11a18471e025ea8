/**
 * The fault-injection suite (`npm run test:faults`, also run by `npm test`): the distributed stack
 * with two replicas of every component and two gateways, on a NATS and a MariaDB of the suite's own
 * (never the machine's), under a steady load of registry writes, open event streams, webhook
 * deliveries and radio traffic (ABP uplinks, and OTAA joins of devices registered as the load runs,
 * heard by two simulated gateways, one on each GS replica), while one fault after another is
 * injected:
 *
 * - `kill -9` of one replica of each component in turn (gateway, is, js, ns, as, events, gs), started
 *   again at once (what a supervisor does);
 * - NATS killed and started again (same port, same JetStream store);
 * - MariaDB killed and started again (same data);
 * - the webhook receiver down for a while, then back on the same port;
 * - one NS replica cut off (SIGSTOP: its connections stay open, nothing answers) for a while.
 *
 * The client behaves as a client behind a balancer does: a request that finds a gateway gone goes
 * to the other one, a 503/504 is retried after a pause. Asserted: no 500 and no 5xx other than
 * 503/504; every write the stack acknowledged (200) is there at the end; every simulated uplink
 * the AS acknowledged reaches the webhook at least once (duplicates counted); after each fault the
 * stack serves reads and writes again, and every event stream (reopened by its client when it
 * ended) carries new events, within `RECOVERY_BOUND_MS`; every readiness endpoint is true at the
 * end, and false while its dependency is away (NATS, MariaDB); each radio device's NS state stays
 * consistent (its session and MAC state kept, its FCnt never behind what reached the application
 * nor ahead of what it sent) and most of its frames get through (datagrams to a GS being restarted
 * are lost); every join-accept a device received (decrypted and checked by lora-packet) is the
 * session the NS holds for it, with the keys the device derived, and its DevNonce is used in the JS,
 * so that two replicas never answered one join-request with two sessions.
 */
import loraPacket from 'lora-packet';
import type { EventJson } from '@lorawan/api';
import {
  type AcceptedJoin,
  type PrivateService,
  SimulatedOtaaDevice,
  SimulatedUdpGateway,
  startDistributedStack,
  startPrivateMariaDb,
  startPrivateNats,
  type StackUnderTest,
  WebhookReceiver,
} from '@lorawan/testing';
import { abpAsDevice, abpNsDevice, isDevicePath, isDevicesPath, NS_OTAA, randomDevAddr, randomEui, randomKey, registryDevicePath } from './devices';
import { EventStream } from './event-stream';
import { type ConnectedGateway, connectGateways } from './gateways';
import { Api } from './http-client';
import { LPP } from './webhook-env';

/** How soon after a fault ends (the process, server or receiver is back) the stack must serve reads and writes again. */
const RECOVERY_BOUND_MS = 15_000;
/** How long a dependency stays away. */
const OUTAGE_MS = 3_000;
/** How long the receiver is down and the NS replica frozen. */
const LONG_OUTAGE_MS = 5_000;
/** The component processes, each with two replicas. */
const COMPONENTS = ['is', 'js', 'ns', 'as', 'events', 'gs'] as const;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** ABP devices whose uplinks the two simulated gateways (one on each GS replica) hear. */
const RADIO_DEVICES = 4;

interface RadioDevice {
  dev: string;
  devAddr: string;
  nwkSKey: string;
  appSKey: string;
  /** The next FCnt it sends. */
  fCnt: number;
}

/** A joined OTAA device: the join-accept it received and the session keys it derived from it. */
interface JoinedDevice {
  dev: string;
  devNonce: number;
  accepted: AcceptedJoin & { keys: { nwkSKey: string; appSKey: string } };
}

/** A subscriber of the application's events through one gateway, reopening its stream whenever it ends. */
interface Subscriber {
  /** Streams opened (200). */
  opened: number;
  events: number;
  /** The devices of the `end_device.create` events received. */
  created: Set<string>;
}

/** A data uplink as the device sends it (MAC 1.0.3), built by lora-packet. */
function dataUplink(d: Pick<RadioDevice, 'devAddr' | 'nwkSKey' | 'appSKey'>, fCnt: number): Buffer {
  return loraPacket
    .fromFields(
      { MType: 'Unconfirmed Data Up', DevAddr: Buffer.from(d.devAddr, 'hex'), FCnt: fCnt & 0xffff, FPort: 1, payload: Buffer.from('01670110', 'hex') },
      Buffer.from(d.appSKey, 'hex'),
      Buffer.from(d.nwkSKey, 'hex'),
    )
    .getPHYPayload() as Buffer;
}

interface Answer {
  status: number;
  json: unknown;
}

/** What the load saw: every status (retries included), and the writes and uplinks acknowledged. */
class Ledger {
  readonly statuses = new Map<number, number>();
  /** Status ≥ 500 other than 503/504, with the request. */
  readonly serverErrors: string[] = [];
  /** Requests that found no gateway at all (both refused the connection). */
  unreachable = 0;
  readonly isCreated: string[] = [];
  readonly nsSet: string[] = [];
  readonly uplinksAcked = new Set<number>();
  rejectedWrites = 0;
  /** OTAA devices of the join load: registered in all four registries, then joined through both gateways. */
  joinsSent = 0;
  joinsNotRegistered = 0;
  readonly joined: JoinedDevice[] = [];

  count(status: number, what: string): void {
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
    if (status >= 500 && status !== 503 && status !== 504) this.serverErrors.push(`${what} → ${status}`);
  }
}

/**
 * A client of two gateways behind a balancer: round robin; a refused or reset connection goes to
 * the other gateway; 503 and 504 are retried after 200 ms, for up to `patienceMs`.
 */
class BalancedClient {
  private next = 0;

  constructor(
    private readonly stack: () => StackUnderTest,
    private readonly ledger: Ledger,
    private readonly patienceMs = 20_000,
  ) {}

  async call(method: string, path: string, body?: unknown): Promise<Answer> {
    const started = Date.now();
    for (;;) {
      const answer = await this.once(method, path, body);
      if (answer.status !== 503 && answer.status !== 504 && answer.status !== 0) return answer;
      if (Date.now() - started > this.patienceMs) return answer;
      await sleep(200);
    }
  }

  /** One request, to one gateway and, when it cannot be reached, to the other; status 0 when neither answered. */
  private async once(method: string, path: string, body?: unknown): Promise<Answer> {
    const s = this.stack();
    const urls = s.baseUrls ?? [s.baseUrl];
    for (let tried = 0; tried < urls.length; tried++) {
      const url = urls[this.next++ % urls.length];
      let res: Response;
      try {
        res = await fetch(url + path, {
          method,
          headers: { authorization: `Bearer ${s.adminKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(30_000),
        });
      } catch {
        continue; // That gateway is gone (killed, restarting): the balancer takes the other.
      }
      const text = await res.text();
      this.ledger.count(res.status, `${method} ${path}`);
      let json: unknown;
      try {
        json = text ? JSON.parse(text) : undefined;
      } catch {
        json = text;
      }
      return { status: res.status, json };
    }
    this.ledger.unreachable++;
    return { status: 0, json: undefined };
  }
}

describe('fault injection: two replicas of everything under load, one fault after another', () => {
  let nats: PrivateService;
  let db: PrivateService;
  let stack: StackUnderTest;
  const receiver = new WebhookReceiver();
  const ledger = new Ledger();
  const client = new BalancedClient(() => stack, ledger);
  const app = 'faults-app';
  const uplinkDevice = 'faults-uplinks';
  /** Per fault: how long the process took to be ready again (kills), and then until the stack served a read and a write. */
  const recoveries: Array<{ fault: string; restart_ms?: number; served_ms: number; recovered_ms: number }> = [];
  let loadRunning = true;
  const loops: Array<Promise<void>> = [];
  const radio: RadioDevice[] = [];
  let gateways: ConnectedGateway[] = [];
  let radioSent = 0;
  /** Concentrator times of the simulated radio: each frame its own, always increasing. */
  let tmst = 0;
  const nextTmst = () => (tmst = (tmst + 50_000) % 2 ** 32) >>> 0;
  const subscribers: Subscriber[] = [];
  const openStreams = new Set<EventStream>();

  /** Registry writes: an IS create, then an NS set of the same device; one device after another. */
  async function writeLoop(worker: number): Promise<void> {
    for (let i = 0; loadRunning; i++) {
      const dev = `w${worker}-${i}`;
      const euis = { dev_eui: randomEui(), join_eui: randomEui() };
      const created = await client.call('POST', isDevicesPath(app), { end_device: { ids: { device_id: dev, ...euis }, name: `n-${dev}` } });
      if (created.status === 200) ledger.isCreated.push(dev);
      else {
        ledger.rejectedWrites++;
        continue;
      }
      const set = await client.call('PUT', registryDevicePath('ns', app, dev), {
        end_device: { ids: { device_id: dev, ...euis, application_ids: { application_id: app } }, ...NS_OTAA },
        field_mask: { paths: Object.keys(NS_OTAA) },
      });
      if (set.status === 200) ledger.nsSet.push(dev);
      else ledger.rejectedWrites++;
    }
  }

  /** Simulated uplinks (AS `up/simulate`), each with its own FCnt: the AS acknowledges once the webhook job is queued. */
  async function uplinkLoop(): Promise<void> {
    for (let fCnt = 1; loadRunning; fCnt++) {
      const res = await client.call('POST', `/api/v3/as/applications/${app}/devices/${uplinkDevice}/up/simulate`, {
        uplink_message: { f_port: 1, f_cnt: fCnt, frm_payload: LPP },
      });
      if (res.status === 200) ledger.uplinksAcked.add(fCnt);
      await sleep(50);
    }
  }

  /**
   * Radio traffic: each ABP device in turn sends its next FCnt every 50 ms, heard by both gateways
   * (so both GS replicas forward it and the NS replicas must deduplicate). Datagrams of a GS that
   * is down are lost, as on a real network; what the NS accepted must stay consistent.
   */
  async function radioLoop(): Promise<void> {
    for (let n = 0; loadRunning; n++) {
      const d = radio[n % radio.length];
      const frame = dataUplink(d, d.fCnt++);
      const at = nextTmst();
      // A PUSH_ACK not coming (a GS being restarted) is what a packet forwarder shrugs off.
      await Promise.allSettled(
        gateways.map((gw, i) => gw.udp.push({ rxpk: [SimulatedUdpGateway.rxpk(frame, { tmst: (at + i * 7) >>> 0, lsnr: 5 - i, rssi: -60 - i * 10 })] }, 500)),
      );
      radioSent++;
      await sleep(50);
    }
  }

  /**
   * OTAA joins: a device registered in the four registries (the spec's order), then its join-request
   * heard by both gateways; the join-accept (on either gateway, found by decrypting with the
   * device's key) gives the device its session, and the device sends its first uplink in it.
   */
  async function joinLoop(): Promise<void> {
    for (let n = 0; loadRunning; n++) {
      const dev = `join-${n}`;
      const ids = { device_id: dev, dev_eui: randomEui(), join_eui: randomEui() };
      const appKey = randomKey();
      const steps: Array<[string, string, unknown]> = [
        ['POST', isDevicesPath(app), { end_device: { ids } }],
        [
          'PUT',
          registryDevicePath('js', app, dev),
          { end_device: { ids, root_keys: { app_key: { key: appKey } } }, field_mask: { paths: ['root_keys.app_key.key'] } },
        ],
        [
          'PUT',
          registryDevicePath('ns', app, dev),
          { end_device: { ids, ...NS_OTAA, supports_join: true }, field_mask: { paths: [...Object.keys(NS_OTAA), 'supports_join'] } },
        ],
        ['PUT', registryDevicePath('as', app, dev), { end_device: { ids }, field_mask: { paths: [] } }],
      ];
      let registered = true;
      for (const [method, path, body] of steps) registered = registered && (await client.call(method, path, body)).status === 200;
      if (!registered) {
        ledger.joinsNotRegistered++;
        continue;
      }
      const device = new SimulatedOtaaDevice({ joinEui: ids.join_eui, devEui: ids.dev_eui, appKey, macVersion: 'MAC_V1_0_3' });
      const frame = device.joinRequest();
      const seen = gateways.map((gw) => gw.udp.downlinks.length);
      const at = nextTmst();
      await Promise.allSettled(
        gateways.map((gw, i) => gw.udp.push({ rxpk: [SimulatedUdpGateway.rxpk(frame, { tmst: (at + i * 7) >>> 0, lsnr: 7 - i, rssi: -50 - i * 10 })] }, 500)),
      );
      ledger.joinsSent++;
      const accepted = await joinAccept(device, seen, 6000);
      if (accepted && 'nwkSKey' in accepted.keys) {
        ledger.joined.push({ dev, devNonce: device.lastDevNonce as number, accepted: accepted as JoinedDevice['accepted'] });
        const up = dataUplink({ devAddr: accepted.devAddr, nwkSKey: accepted.keys.nwkSKey, appSKey: accepted.keys.appSKey }, 0);
        const upAt = nextTmst();
        await Promise.allSettled(
          gateways.map((gw, i) => gw.udp.push({ rxpk: [SimulatedUdpGateway.rxpk(up, { tmst: (upAt + i * 7) >>> 0, lsnr: 7 - i })] }, 500)),
        );
      }
      await sleep(300);
    }
  }

  /** The join-accept for `device` among the downlinks either gateway received after `seen`; undefined when none came within `timeoutMs`. */
  async function joinAccept(device: SimulatedOtaaDevice, seen: number[], timeoutMs: number): Promise<AcceptedJoin | undefined> {
    for (const deadline = Date.now() + timeoutMs; Date.now() < deadline && loadRunning; await sleep(50)) {
      for (const [i, gw] of gateways.entries()) {
        for (const down of gw.udp.downlinks.slice(seen[i])) {
          try {
            return device.acceptJoin(Buffer.from(down.txpk.data as string, 'base64'));
          } catch {
            // Another device's join-accept or a data downlink.
          }
        }
      }
    }
    return undefined;
  }

  /** A client following the application's events through gateway `i`: it reopens the stream (on any gateway) when it ends. */
  async function streamLoop(i: number): Promise<void> {
    const sub: Subscriber = { opened: 0, events: 0, created: new Set() };
    subscribers.push(sub);
    for (let attempt = i; loadRunning; attempt++) {
      const urls = stack.baseUrls ?? [stack.baseUrl];
      let stream: EventStream;
      try {
        stream = await EventStream.open(urls[attempt % urls.length], {
          authorization: `Bearer ${stack.adminKey}`,
          body: { identifiers: [{ application_ids: { application_id: app } }] },
        });
      } catch {
        await sleep(200); // That gateway is gone: the next try goes to the other one.
        continue;
      }
      ledger.count(stream.status, 'POST /api/v3/events');
      if (stream.status === 200) {
        sub.opened++;
        openStreams.add(stream);
        while (loadRunning && !stream.ended) {
          let event: EventJson;
          try {
            event = await stream.nextEvent(1000);
          } catch {
            continue;
          }
          sub.events++;
          if (event.name === 'end_device.create') {
            const dev = (event.identifiers[0] as { device_ids?: { device_id?: string } } | undefined)?.device_ids?.device_id;
            if (dev) sub.created.add(dev);
          }
        }
        openStreams.delete(stream);
      }
      stream.close();
      await sleep(200);
    }
  }

  /**
   * Until a read and a write both succeed (each a single try, no retries) and every event stream
   * carries the `end_device.create` of a write made after the fault: the milliseconds that took.
   */
  async function recovered(fault: string, restartMs?: number): Promise<void> {
    const started = Date.now();
    const probe = new BalancedClient(() => stack, ledger, 0);
    const probes: string[] = [];
    const tag = fault.replace(/[^a-z0-9]/g, '');
    let served: number | undefined;
    for (let n = 0; ; n++) {
      const read = await probe.call('GET', `/api/v3/applications/${app}?field_mask=name`);
      const dev = `probe-${tag}-${n}`;
      const write = read.status === 200 ? await probe.call('POST', isDevicesPath(app), { end_device: { ids: { device_id: dev } } }) : read;
      if (write.status === 200) probes.push(dev);
      if (read.status === 200 && write.status === 200) served ??= Date.now() - started;
      const streamsCaughtUp = subscribers.every((s) => probes.some((p) => s.created.has(p)));
      if (served !== undefined && streamsCaughtUp) break;
      if (Date.now() - started > RECOVERY_BOUND_MS * 2) {
        const streams = subscribers.map((s) => `${s.opened} opened, ${s.events} events, probes seen: ${probes.filter((p) => s.created.has(p)).length}`);
        throw new Error(
          `${fault}: not recovered ${RECOVERY_BOUND_MS * 2} ms after the fault ended (read ${read.status}, write ${write.status}; streams: ${streams.join('; ')})`,
        );
      }
      await sleep(served === undefined ? 100 : 300);
    }
    recoveries.push({
      fault,
      ...(restartMs === undefined ? {} : { restart_ms: restartMs }),
      served_ms: served as number,
      recovered_ms: Date.now() - started,
    });
  }

  async function readyz(url: string): Promise<number> {
    try {
      return (await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2000) })).status;
    } catch {
      return 0;
    }
  }
  const componentReadyz = (name: string) => readyz(`http://127.0.0.1:${stack.healthPorts.get(name)}`);

  beforeAll(async () => {
    [nats, db] = await Promise.all([startPrivateNats(), startPrivateMariaDb({ bufferPoolMb: 64 })]);
    await receiver.start();
    stack = await startDistributedStack({
      components: [...COMPONENTS],
      replicas: 2,
      gatewayReplicas: 2,
      natsUrl: nats.url,
      mysqlUrl: db.url,
      env: {
        RPC_TIMEOUT_MS: '5000',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_RETRY_BASE_MS: '200',
        WEBHOOK_RETRY_MAX_MS: '2000',
        WEBHOOK_TIMEOUT_MS: '3000',
        WEBHOOK_ACK_WAIT_MS: '5000',
      },
    });
    const setup = async (method: string, path: string, body: unknown) => {
      const res = await client.call(method, path, body);
      if (res.status !== 200) throw new Error(`setup ${method} ${path}: ${res.status} ${JSON.stringify(res.json)}`);
    };
    await setup('POST', '/api/v3/users/admin/applications', { application: { ids: { application_id: app } } });
    const ids = { device_id: uplinkDevice, dev_eui: randomEui(), join_eui: randomEui(), application_ids: { application_id: app } };
    await setup('POST', isDevicesPath(app), { end_device: { ids } });
    const as = abpAsDevice(ids, randomDevAddr(), randomKey());
    await setup('PUT', registryDevicePath('as', app, uplinkDevice), {
      end_device: { ...as.device, formatters: { up_formatter: 'FORMATTER_CAYENNELPP' } },
      field_mask: { paths: [...as.paths, 'formatters.up_formatter'] },
    });
    await setup('PUT', `/api/v3/as/webhooks/${app}/receiver`, {
      webhook: { ids: { webhook_id: 'receiver', application_ids: { application_id: app } }, base_url: receiver.url, format: 'json', uplink_message: {} },
      field_mask: { paths: ['base_url', 'format', 'uplink_message'] },
    });
    // Two gateways, one on each GS replica, and ABP devices in the NS and the AS.
    gateways = await connectGateways(new Api(() => stack), stack, { count: 2, replicas: true });
    for (let i = 0; i < RADIO_DEVICES; i++) {
      const d: RadioDevice = { dev: `radio-${i}`, devAddr: randomDevAddr(), nwkSKey: randomKey(), appSKey: randomKey(), fCnt: 0 };
      const radioIds = { device_id: d.dev, dev_eui: randomEui(), join_eui: randomEui(), application_ids: { application_id: app } };
      await setup('POST', isDevicesPath(app), { end_device: { ids: radioIds } });
      const ns = abpNsDevice(radioIds, d.devAddr, d.nwkSKey, { frequency_plan_id: 'EU_863_870_TTN' });
      await setup('PUT', registryDevicePath('ns', app, d.dev), { end_device: ns.device, field_mask: { paths: [...new Set(ns.paths)] } });
      const as = abpAsDevice(radioIds, d.devAddr, d.appSKey);
      await setup('PUT', registryDevicePath('as', app, d.dev), { end_device: as.device, field_mask: { paths: as.paths } });
      radio.push(d);
    }
    loops.push(writeLoop(0), writeLoop(1), uplinkLoop(), radioLoop(), joinLoop(), streamLoop(0), streamLoop(1));
  }, 240_000);

  afterAll(async () => {
    loadRunning = false;
    for (const s of openStreams) s.close();
    await Promise.allSettled(loops);
    for (const gw of gateways) gw.udp.close();
    await stack?.stop();
    await receiver.stop();
    await Promise.all([nats?.stop(), db?.stop()]);
  });

  it('survives a kill -9 of one replica of each component in turn, and of a gateway', async () => {
    await sleep(2000);
    for (const name of ['gateway#0', ...COMPONENTS.map((c) => `${c}#0`)]) {
      if (!stack.restart) throw new Error('the distributed stack must support restart');
      const killed = Date.now();
      await stack.restart(name);
      await recovered(`kill -9 ${name}`, Date.now() - killed);
    }
  }, 300_000);

  it('survives a NATS restart; the components are not ready while it is away', async () => {
    await nats.kill();
    await sleep(OUTAGE_MS / 2);
    expect(await componentReadyz('as#1')).toBe(503);
    await sleep(OUTAGE_MS / 2);
    await nats.start();
    await recovered('NATS restart');
  });

  it('survives a MariaDB restart; the IS is not ready while it is away', async () => {
    await db.kill();
    await sleep(OUTAGE_MS / 2);
    expect(await componentReadyz('is#1')).toBe(503);
    await sleep(OUTAGE_MS / 2);
    await db.start();
    await recovered('MariaDB restart');
  });

  it('delivers what was queued while the webhook receiver was down', async () => {
    await receiver.stop();
    await sleep(LONG_OUTAGE_MS);
    await receiver.start();
    await recovered('webhook receiver down');
  });

  it('survives an NS replica cut off from everything (SIGSTOP) for a while', async () => {
    const ns = stack.processes.get('ns#1');
    if (!ns) throw new Error('no ns#1');
    ns.kill('SIGSTOP');
    await sleep(LONG_OUTAGE_MS);
    ns.kill('SIGCONT');
    await recovered('NS replica partitioned');
  });

  it('lost nothing acknowledged, answered no 500, and is ready everywhere again', async () => {
    loadRunning = false;
    for (const s of openStreams) s.close();
    await Promise.all(loops);
    const check = new BalancedClient(() => stack, ledger);
    const missing = { is: [] as string[], ns: [] as string[] };
    for (const dev of ledger.isCreated) {
      const res = await check.call('GET', `${isDevicePath(app, dev)}?field_mask=name`);
      if (res.status !== 200 || (res.json as { name?: string }).name !== `n-${dev}`) missing.is.push(`${dev}: ${res.status}`);
    }
    for (const dev of ledger.nsSet) {
      const res = await check.call('GET', `${registryDevicePath('ns', app, dev)}?field_mask=frequency_plan_id`);
      if (res.status !== 200 || (res.json as { frequency_plan_id?: string }).frequency_plan_id !== NS_OTAA.frequency_plan_id)
        missing.ns.push(`${dev}: ${res.status}`);
    }
    // Every acknowledged uplink reaches the webhook (retries after the receiver's downtime included).
    type Up = { end_device_ids?: { device_id?: string }; uplink_message?: { f_cnt?: number } };
    const deliveredOf = (dev: string) =>
      receiver.requests.filter((r) => (r.json as Up)?.end_device_ids?.device_id === dev).map((r) => (r.json as Up).uplink_message?.f_cnt);
    const delivered = () => deliveredOf(uplinkDevice);
    const undelivered = () => [...ledger.uplinksAcked].filter((f) => !delivered().includes(f));
    await receiver.waitFor(() => undelivered().length === 0, 60_000, 'every acknowledged uplink delivered').catch(() => undefined);
    const deliveredCounts = new Map<number, number>();
    for (const f of delivered()) if (f !== undefined) deliveredCounts.set(f, (deliveredCounts.get(f) ?? 0) + 1);
    const duplicates = [...deliveredCounts.values()].reduce((n, c) => n + c - 1, 0);
    // Radio: what the NS accepted of each device stays consistent with what reached the application.
    const radioState = [];
    for (const d of radio) {
      const got = deliveredOf(d.dev).filter((f): f is number => f !== undefined);
      const res = await check.call('GET', `${registryDevicePath('ns', app, d.dev)}?field_mask=session,mac_state`);
      const ns = res.json as { session?: { dev_addr?: string; last_f_cnt_up?: number }; mac_state?: object };
      radioState.push({
        dev: d.dev,
        sent: d.fCnt,
        delivered: new Set(got).size,
        duplicates: got.length - new Set(got).size,
        max_delivered: got.length > 0 ? Math.max(...got) : undefined,
        last_f_cnt_up: ns.session?.last_f_cnt_up ?? 0,
        dev_addr_kept: ns.session?.dev_addr === d.devAddr,
        has_mac_state: ns.mac_state !== undefined,
        status: res.status,
      });
    }
    // Joins: the session the NS holds (pending until the first uplink reached it) is the one the device got, with its keys.
    type NsSession = { dev_addr?: string; keys?: { f_nwk_s_int_key?: { key?: string } } };
    const joinState = [];
    for (const j of ledger.joined) {
      const ns = await check.call('GET', `${registryDevicePath('ns', app, j.dev)}?field_mask=session,pending_session`);
      const js = await check.call('GET', `${registryDevicePath('js', app, j.dev)}?field_mask=used_dev_nonces`);
      const { session, pending_session: pending } = ns.json as { session?: NsSession; pending_session?: NsSession };
      const held = [session, pending].find((s) => s?.dev_addr === j.accepted.devAddr);
      joinState.push({
        dev: j.dev,
        status: [ns.status, js.status],
        session_held: held !== undefined,
        keys_match: held?.keys?.f_nwk_s_int_key?.key === j.accepted.keys.nwkSKey,
        dev_nonce_used: ((js.json as { used_dev_nonces?: number[] }).used_dev_nonces ?? []).includes(j.devNonce),
      });
    }
    const ready = await Promise.all([
      ...(stack.baseUrls ?? [stack.baseUrl]).map((u) => readyz(u)),
      ...[...stack.healthPorts.keys()].map((n) => componentReadyz(n)),
    ]);

    const summary = {
      registry_writes_acknowledged: ledger.isCreated.length + ledger.nsSet.length,
      registry_writes_lost: missing.is.length + missing.ns.length,
      writes_refused_or_given_up: ledger.rejectedWrites,
      uplinks_acknowledged: ledger.uplinksAcked.size,
      webhook_deliveries_lost: undelivered().length,
      webhook_duplicates: duplicates,
      statuses: Object.fromEntries(ledger.statuses),
      unreachable: ledger.unreachable,
      radio_uplinks_sent: radioSent,
      radio: radioState,
      joins: { sent: ledger.joinsSent, accepted: ledger.joined.length, not_registered: ledger.joinsNotRegistered },
      event_streams: subscribers.map((s) => ({ opened: s.opened, events: s.events })),
      recoveries,
    };
    console.info(`fault injection: ${JSON.stringify(summary)}`);
    expect(missing).toEqual({ is: [], ns: [] });
    expect(undelivered()).toEqual([]);
    expect(ledger.serverErrors).toEqual([]);
    expect(ledger.statuses.get(500) ?? 0).toBe(0);
    expect(ready.every((s) => s === 200)).toBe(true);
    for (const r of recoveries) expect(r.recovered_ms).toBeLessThanOrEqual(RECOVERY_BOUND_MS);
    for (const r of radioState) {
      expect(r).toMatchObject({ status: 200, dev_addr_kept: true, has_mac_state: true });
      // The session's FCnt never falls behind what reached the application, nor runs ahead of what the device sent.
      expect(r.last_f_cnt_up).toBeGreaterThanOrEqual(r.max_delivered ?? 0);
      expect(r.last_f_cnt_up).toBeLessThan(r.sent);
      // Most frames get through (datagrams to a GS being restarted are lost, as on air).
      expect(r.delivered).toBeGreaterThan(r.sent / 2);
    }
    expect(joinState.filter((j) => !(j.session_held && j.keys_match && j.dev_nonce_used))).toEqual([]);
    // Most joins are answered (a join-request to a GS being restarted, or whose RX1 an outage ate, is not).
    expect(ledger.joined.length).toBeGreaterThan(ledger.joinsSent / 2);
    expect(ledger.joined.length).toBeGreaterThanOrEqual(5);
    for (const s of subscribers) expect(s.opened).toBeGreaterThanOrEqual(1);
    // The load did run through the faults.
    expect(ledger.isCreated.length).toBeGreaterThan(50);
    expect(ledger.uplinksAcked.size).toBeGreaterThan(50);
  }, 180_000);
});
