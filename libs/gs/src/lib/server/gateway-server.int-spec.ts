import { eventSubject, type EventJson, gatewayDownlinkSubject, GS_EVENTS, RPCS } from '@lorawan/api';
import { loadConfig } from '@lorawan/config';
import { Code, defineError } from '@lorawan/errors';
import { gpsMsToUtc, nextPingSlot, pingSlotFrequency, utcToGpsMs } from '@lorawan/lorawan';
import { uplinksShed } from '@lorawan/observability';
import { encode, inProcessMessaging, type RpcEnvelope } from '@lorawan/transport';
import {
  eventually,
  type EventRecorder,
  loraJoinRequest,
  recordEvents,
  rpcContext,
  serveRpcDouble,
  SimulatedUdpGateway,
  startTestComponent,
  type TestComponent,
} from '@lorawan/testing';
import { GsModule } from '../gs.module';
import { GatewayServerService } from './gateway-server.service';

/**
 * The Gateway Server component on the in-process transport: a simulated packet forwarder on
 * loopback UDP, the IS's gateway lookup and the NS's uplink handler as doubles on the broker.
 */
const EUI = 'AA555A0000000101';
const UNKNOWN = 'AA555A00000000FF';

/** The answers of the doubles (the IS's and NS's own errors). */
const GATEWAY_EUI_NOT_FOUND = defineError('pkg/identityserver/store', 'gateway_eui_not_found', 'gateway with EUI `{eui}` not found', Code.NotFound);
const DEVICE_NOT_FOUND = defineError('pkg/networkserver', 'device_not_found', 'device not found', Code.NotFound);
const NS_UNAVAILABLE = defineError('pkg/networkserver', 'join_server_unavailable', 'no Join Server answered', Code.Unavailable);

const joinRequest = loraJoinRequest();

/** An NS's class A `NsGs.ScheduleDownlink` request: RX1 at SF7, RX2 on 869.525 MHz at SF9. */
function classADownlink(uplinkToken: string, o: { rx1_delay: number; rx1_frequency: string; payload: Buffer; id: string }) {
  return {
    raw_payload: o.payload.toString('base64'),
    request: {
      class: 'CLASS_A',
      downlink_paths: [{ uplink_token: uplinkToken }],
      rx1_delay: o.rx1_delay,
      rx1_frequency: o.rx1_frequency,
      rx1_data_rate: { lora: { spreading_factor: 7, bandwidth: 125000 } },
      rx2_frequency: '869525000',
      rx2_data_rate: { lora: { spreading_factor: 9, bandwidth: 125000 } },
    },
    correlation_ids: [`ns:downlink:${o.id}`],
  };
}

describe('Gateway Server (in-process)', () => {
  let gs: TestComponent;
  let events: EventRecorder;
  let gateway: SimulatedUdpGateway;
  const uplinksAtNs: RpcEnvelope[] = [];
  /** The EUIs the IS double knows, and the ones it was asked about. */
  const registered = new Set([EUI]);
  const lookups: string[] = [];
  let nsAnswer: 'ok' | 'not_found' | 'unavailable' = 'ok';

  beforeAll(async () => {
    gs = await startTestComponent(GsModule, {
      component: 'gs',
      config: loadConfig({ GS_UDP_PORT: '0', GS_UDP_HOST: '127.0.0.1', GS_LBS_PORT: '0', GS_LBS_HOST: '127.0.0.1', LOG_LEVEL: 'error' }),
    });
    events = recordEvents(gs.broker);
    serveRpcDouble(gs.broker, 'GsIs.GetGatewayForEUI', (req) => {
      const { eui } = req.body as { eui: string };
      lookups.push(eui);
      return registered.has(eui)
        ? { ok: { ids: { gateway_id: `gtw-${eui === EUI ? 1 : eui.slice(-2).toLowerCase()}`, eui }, frequency_plan_ids: ['EU_863_870_TTN'] } }
        : { error: GATEWAY_EUI_NOT_FOUND.with({ eui }).toDetails() };
    });
    serveRpcDouble(gs.broker, 'GsNs.HandleUplink', (req) => {
      if (nsAnswer === 'not_found') return { error: DEVICE_NOT_FOUND.with().toDetails() };
      if (nsAnswer === 'unavailable') return { error: NS_UNAVAILABLE.with().toDetails() };
      uplinksAtNs.push(req);
      return { ok: {} };
    });
    const port = gs.running.app.get(GatewayServerService).udp?.port;
    if (!port) throw new Error('the GS did not bind its UDP port');
    gateway = new SimulatedUdpGateway(EUI, { host: '127.0.0.1', port });
    await gateway.open();
  });
  afterAll(async () => {
    gateway.close();
    await gs.close();
    gs.broker.close();
  });

  /** A join-request the gateway hears now on `freq` (MHz): its concentrator time and the uplink token the NS got. */
  async function heardNow(freq: number): Promise<{ tmst: number; token: string }> {
    const tmst = gateway.concentratorTime();
    await gateway.push({ rxpk: [SimulatedUdpGateway.rxpk(joinRequest, { tmst, freq })] });
    const copy = (u: RpcEnvelope) => (u.body as { settings: { timestamp: number } }).settings.timestamp === tmst;
    await eventually(() => uplinksAtNs.some(copy));
    const up = uplinksAtNs.find(copy)?.body as { rx_metadata: Array<{ uplink_token: string }> };
    return { tmst, token: up.rx_metadata[0].uplink_token };
  }

  it('connects a registered gateway and hands each received copy to the NS, with gs.up.receive and gs.up.forward under its gs:uplink ID', async () => {
    expect(await gateway.push({ rxpk: [SimulatedUdpGateway.rxpk(joinRequest, { freq: 868.1, rssi: -37 })] })).toBe(0x01);
    await eventually(() => uplinksAtNs.length === 1);
    const up = uplinksAtNs[0];
    const body = up.body as { raw_payload: string; correlation_ids: string[]; received_at: string; rx_metadata: Array<Record<string, unknown>> };
    expect(Buffer.from(body.raw_payload, 'base64')).toEqual(joinRequest);
    // The GS's receive time, in the message and in each copy's metadata (TTS's webhooks show `rx_metadata[].received_at`).
    expect(body.received_at).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/);
    expect(body.rx_metadata[0]).toMatchObject({ gateway_ids: { gateway_id: 'gtw-1', eui: EUI }, rssi: -37, received_at: body.received_at });
    const [correlation] = body.correlation_ids;
    expect(correlation).toMatch(/^gs:uplink:/);
    expect(up.ctx.correlation_ids).toEqual([correlation]);
    await eventually(() => events.all.some((e) => e.name === GS_EVENTS.upForward.name));
    const published = await events.take();
    expect(published.map((e) => e.name)).toEqual(['gs.gateway.connect', 'gs.up.receive', 'gs.up.forward']);
    for (const e of published) expect(e.identifiers).toEqual([{ gateway_ids: { gateway_id: 'gtw-1', eui: EUI } }]);
    expect(published[0].data).toMatchObject({ protocol: 'udp', gateway_remote_address: { ip: '127.0.0.1' } });
    expect(published[1]).toMatchObject({
      correlation_ids: [correlation],
      data: { band_id: 'EU_863_870', message: { raw_payload: joinRequest.toString('base64') } },
    });
    expect(published[2]).toMatchObject({ correlation_ids: [correlation], data: { value: 'cluster' } });
  });

  it('drops a CRC failure, a frame that is no LoRaWAN frame and what the NS could not take (TTS: Unavailable, Internal, …) with gs.up.drop naming why; an NS answer (no such device) is forwarded', async () => {
    const handed = uplinksAtNs.length;
    await gateway.push({ rxpk: [SimulatedUdpGateway.rxpk(joinRequest, { stat: -1 })] });
    await eventually(() => events.all.filter((e) => e.name === GS_EVENTS.upDrop.name).length === 1);
    // Major version 1 (RFU), and too short to hold an MHDR and a MIC.
    await gateway.push({ rxpk: [SimulatedUdpGateway.rxpk(Buffer.from([0x01, 1, 2, 3, 4, 5])), SimulatedUdpGateway.rxpk(Buffer.from([0x40, 1]))] });
    await eventually(() => events.all.filter((e) => e.name === GS_EVENTS.upDrop.name).length === 3);
    expect(uplinksAtNs.length).toBe(handed);
    nsAnswer = 'unavailable';
    await gateway.push({ rxpk: [SimulatedUdpGateway.rxpk(joinRequest)] });
    await eventually(() => events.all.filter((e) => e.name === GS_EVENTS.upDrop.name).length === 4);
    nsAnswer = 'not_found';
    const forwards = () => events.all.filter((e) => e.name === GS_EVENTS.upForward.name).length;
    const forwarded = forwards();
    await gateway.push({ rxpk: [SimulatedUdpGateway.rxpk(joinRequest, { freq: 868.3 })] });
    await eventually(() => forwards() > forwarded);
    nsAnswer = 'ok';
    const published = await events.take();
    const drops = published.filter((e) => e.name === GS_EVENTS.upDrop.name);
    expect(drops.map((e) => (e.data as { name?: string }).name)).toEqual(['message_crc', 'unmarshal_payload', 'unmarshal_payload', 'join_server_unavailable']);
    expect(published.filter((e) => e.name === GS_EVENTS.upForward.name)).toHaveLength(1);
  });

  it('sends the downlink an NS schedules on the gateway’s own subject: RX1 as a PULL_RESP on the downlink path, gs.down.schedule.attempt then gs.down.send; TX_ACK received', async () => {
    const client = inProcessMessaging(gs.broker, { rpcTimeoutMs: 2000, shutdownGraceMs: 0 }).client();
    const subject = gatewayDownlinkSubject(RPCS['NsGs.ScheduleDownlink'].subject, 'gtw-1');
    const body = (uplinkToken: string) => classADownlink(uplinkToken, { rx1_delay: 5, rx1_frequency: '868100000', payload: Buffer.alloc(17, 9), id: 'TEST' });
    // No downlink path before the first PULL_DATA.
    await gateway.push({ rxpk: [SimulatedUdpGateway.rxpk(joinRequest, { tmst: 7_000_000, freq: 868.5 })] });
    await eventually(() => uplinksAtNs.some((u) => (u.body as { settings: { frequency: string } }).settings.frequency === '868500000'));
    const up = uplinksAtNs.find((u) => (u.body as { settings: { frequency: string } }).settings.frequency === '868500000')?.body as {
      rx_metadata: Array<{ uplink_token: string }>;
    };
    const token = up.rx_metadata[0].uplink_token;
    await expect(client.call(subject, { ctx: rpcContext('NsGs.ScheduleDownlink'), body: body(token) })).rejects.toMatchObject({ name: 'no_downlink_path' });
    expect(await gateway.pull()).toBe(0x04);
    const answer = await client.call(subject, { ctx: rpcContext('NsGs.ScheduleDownlink'), body: body(token) });
    expect(answer).toMatchObject({ rx1: true, downlink_path: { uplink_token: token } });
    const [down] = await gateway.waitForDownlinks(1);
    expect(down.txpk).toMatchObject({
      tmst: 12_000_000,
      freq: 868.1,
      datr: 'SF7BW125',
      powe: 14,
      ipol: true,
      size: 17,
      data: Buffer.alloc(17, 9).toString('base64'),
    });
    gateway.txAck(down.token);
    await eventually(() => events.all.some((e) => e.name === GS_EVENTS.txAckReceive.name));
    // No NS serves the acknowledgment here: it is dropped (gs.txack.drop) after gs.down.tx.success.
    await eventually(() => events.all.some((e) => e.name === GS_EVENTS.txAckDrop.name));
    const published = (await events.take()).filter((e) => e.name.startsWith('gs.down') || e.name.startsWith('gs.txack'));
    expect(published.map((e) => e.name)).toEqual([
      'gs.down.schedule.attempt',
      'gs.down.schedule.fail',
      'gs.down.schedule.attempt',
      'gs.down.send',
      'gs.txack.receive',
      'gs.down.tx.success',
      'gs.txack.drop',
    ]);
    expect(published[3]).toMatchObject({
      correlation_ids: expect.arrayContaining(['ns:downlink:TEST']),
      data: { scheduled: { frequency: '868100000', timestamp: 12_000_000, downlink: { tx_power: 16.15 } } },
    });
    // A gateway this replica does not hold has no subject here.
    await expect(
      client.call(gatewayDownlinkSubject(RPCS['NsGs.ScheduleDownlink'].subject, 'gtw-elsewhere'), {
        ctx: rpcContext('NsGs.ScheduleDownlink'),
        body: body(token),
      }),
    ).rejects.toThrow(/no responders/);
  });

  it('sends a class B downlink at its absolute time as tmms (GPS ms), only through a gateway whose latest uplink carried GPS time', async () => {
    const client = inProcessMessaging(gs.broker, { rpcTimeoutMs: 2000, shutdownGraceMs: 0 }).client();
    const subject = gatewayDownlinkSubject(RPCS['NsGs.ScheduleDownlink'].subject, 'gtw-1');
    const heardOn = async (freq: number, extra: Record<string, unknown> = {}): Promise<string> => {
      await gateway.push({ rxpk: [{ ...SimulatedUdpGateway.rxpk(joinRequest, { freq }), ...extra }] });
      const frequency = String(Math.round(freq * 1e6));
      await eventually(() => uplinksAtNs.some((u) => (u.body as { settings: { frequency: string } }).settings.frequency === frequency));
      const up = uplinksAtNs.find((u) => (u.body as { settings: { frequency: string } }).settings.frequency === frequency)?.body as {
        rx_metadata: Array<{ uplink_token: string }>;
      };
      return up.rx_metadata[0].uplink_token;
    };
    // The ping slot an NS would pick for the device, some 10 s ahead, on the EU ping slot channel at DR3.
    const slotGpsMs = nextPingSlot('260B1234', 'PING_EVERY_8S', utcToGpsMs(new Date(Date.now() + 10_000)));
    const absoluteTime = gpsMsToUtc(slotGpsMs).toISOString();
    const body = (uplinkToken: string) => ({
      raw_payload: Buffer.alloc(17, 7).toString('base64'),
      request: {
        class: 'CLASS_B',
        downlink_paths: [{ uplink_token: uplinkToken }],
        absolute_time: absoluteTime,
        rx2_frequency: pingSlotFrequency('EU_863_870', '260B1234', Math.floor(slotGpsMs / 1000)),
        rx2_data_rate: { lora: { spreading_factor: 9, bandwidth: 125000 } },
      },
      correlation_ids: ['ns:downlink:CLASS_B'],
    });
    expect(await gateway.pull()).toBe(0x04);
    const downlinks = gateway.downlinks.length;
    // No tmms in the latest rxpk: the gateway's GPS time is unknown.
    const untimed = await heardOn(867.1);
    await expect(client.call(subject, { ctx: rpcContext('NsGs.ScheduleDownlink'), body: body(untimed) })).rejects.toMatchObject({
      name: 'no_gps_sync',
      namespace: 'pkg/gatewayserver/io',
    });
    const timed = await heardOn(867.3, { tmms: utcToGpsMs(new Date()) });
    const answer = (await client.call(subject, { ctx: rpcContext('NsGs.ScheduleDownlink'), body: body(timed) })) as { delay: string; rx2?: boolean };
    expect(answer).toMatchObject({ rx2: true, downlink_path: { uplink_token: timed } });
    // The time left until the ping slot (10 s ahead, plus up to a ping period of 7.68 s).
    expect(Math.abs(parseFloat(answer.delay) - (Date.parse(absoluteTime) - Date.now()) / 1000)).toBeLessThan(1);
    const [down] = (await gateway.waitForDownlinks(downlinks + 1)).slice(downlinks);
    expect(down.txpk).toMatchObject({ tmms: slotGpsMs, freq: 869.525, datr: 'SF9BW125', powe: 27, ipol: true, size: 17 });
    expect(down.txpk.tmst).toBeUndefined();
    expect(down.txpk.imme).toBeUndefined();
    // An uplink without tmms again (GPS lost): no more class B through this gateway.
    await heardOn(867.5);
    await expect(client.call(subject, { ctx: rpcContext('NsGs.ScheduleDownlink'), body: body(timed) })).rejects.toMatchObject({ name: 'no_gps_sync' });
    const published = (await events.take()).filter((e) => e.name.startsWith('gs.down'));
    expect(published.map((e) => e.name)).toEqual([
      'gs.down.schedule.attempt',
      'gs.down.schedule.fail',
      'gs.down.schedule.attempt',
      'gs.down.send',
      'gs.down.schedule.attempt',
      'gs.down.schedule.fail',
    ]);
    // The contract's timestamps have microseconds.
    expect(published[3]).toMatchObject({
      data: { scheduled: { frequency: '869525000', time: absoluteTime.replace(/Z$/, '000Z'), downlink: { tx_power: 29.15 } } },
    });
    expect((published[3].data as { scheduled: Record<string, unknown> }).scheduled.timestamp).toBeUndefined();
  });

  it('reports gateway status, and acks but refuses an unknown gateway', async () => {
    await gateway.push({ stat: { rxnb: 3, rxok: 2, lati: 52.1, long: 5.1, alti: 10 } });
    await eventually(() => events.all.some((e) => e.name === GS_EVENTS.statusReceive.name));
    expect((await events.take()).find((e) => e.name === GS_EVENTS.statusReceive.name)?.data).toMatchObject({
      metrics: { rxin: 3, rxok: 2 },
      antenna_locations: [{ latitude: 52.1, longitude: 5.1, altitude: 10 }],
    });
    const stranger = new SimulatedUdpGateway(UNKNOWN, { host: '127.0.0.1', port: gs.running.app.get(GatewayServerService).udp?.port ?? 0 });
    await stranger.open();
    try {
      expect(await stranger.push({ rxpk: [SimulatedUdpGateway.rxpk(joinRequest)] })).toBe(0x01);
      await new Promise((r) => setTimeout(r, 100));
      expect(await events.take()).toEqual([]);
    } finally {
      stranger.close();
    }
  });

  it('books each downlink in the gateway’s scheduler: a second one at the same RX1 goes in RX2, a third is refused (tx_schedule: conflict in both); a TX_ACK refusal in RX1 sends it again in RX2 and frees RX1', async () => {
    const client = inProcessMessaging(gs.broker, { rpcTimeoutMs: 2000, shutdownGraceMs: 0 }).client();
    const subject = gatewayDownlinkSubject(RPCS['NsGs.ScheduleDownlink'].subject, 'gtw-1');
    const acks: Array<{ result: string }> = [];
    const ns = serveRpcDouble(gs.broker, 'GsNs.ReportTxAcknowledgment', (req) => {
      acks.push(req.body as { result: string });
      return { ok: {} };
    });
    try {
      const { tmst, token } = await heardNow(868.3);
      expect(await gateway.pull()).toBe(0x04);
      const body = classADownlink(token, { rx1_delay: 1, rx1_frequency: '868300000', payload: Buffer.alloc(17, 7), id: 'BOOKED' });
      const call = () => client.call(subject, { ctx: rpcContext('NsGs.ScheduleDownlink'), body });
      const before = gateway.downlinks.length;
      expect(await call()).toMatchObject({ rx1: true });
      expect(await call()).toMatchObject({ rx2: true });
      await expect(call()).rejects.toMatchObject({ name: 'tx_schedule', attributes: { rx1: 'conflict', rx2: 'conflict' } });
      const [rx1, rx2] = (await gateway.waitForDownlinks(before + 2)).slice(before);
      expect(rx1.txpk).toMatchObject({ tmst: (tmst + 1_000_000) >>> 0, freq: 868.3 });
      expect(rx2.txpk).toMatchObject({ tmst: (tmst + 2_000_000) >>> 0, freq: 869.525 });
      // The gateway refuses RX1 (a beacon or another network's downlink the GS cannot know of): no RX2 is free, so the NS hears of it.
      gateway.txAck(rx1.token, 'COLLISION_PACKET');
      await eventually(() => acks.length === 1);
      expect(acks[0]).toMatchObject({ result: 'COLLISION_PACKET' });
      // RX1 left the books: a downlink fits there again. Refused there too, it goes again in RX2, once RX2 is free.
      gateway.txAck(rx2.token, 'TOO_LATE');
      await eventually(() => acks.length === 2);
      expect(await call()).toMatchObject({ rx1: true });
      const [again] = (await gateway.waitForDownlinks(before + 3)).slice(before + 2);
      expect(again.txpk).toMatchObject({ tmst: (tmst + 1_000_000) >>> 0 });
      gateway.txAck(again.token, 'COLLISION_PACKET');
      const [retried] = (await gateway.waitForDownlinks(before + 4)).slice(before + 3);
      expect(retried.txpk).toMatchObject({ tmst: (tmst + 2_000_000) >>> 0, freq: 869.525, datr: 'SF9BW125' });
      gateway.txAck(retried.token);
      await eventually(() => acks.length === 3);
      expect(acks.map((a) => a.result)).toEqual(['COLLISION_PACKET', 'TOO_LATE', 'SUCCESS']);
    } finally {
      ns.unsubscribe();
    }
  });

  it('hands the gateways the NS may try next back with a refused downlink’s acknowledgment, with its frame and request; never in an event', async () => {
    const client = inProcessMessaging(gs.broker, { rpcTimeoutMs: 2000, shutdownGraceMs: 0 }).client();
    const subject = gatewayDownlinkSubject(RPCS['NsGs.ScheduleDownlink'].subject, 'gtw-1');
    const acks: Array<Record<string, unknown> & { downlink_message: Record<string, unknown> }> = [];
    const ns = serveRpcDouble(gs.broker, 'GsNs.ReportTxAcknowledgment', (req) => {
      acks.push(req.body as (typeof acks)[number]);
      return { ok: {} };
    });
    try {
      const { tmst, token } = await heardNow(868.5);
      expect(await gateway.pull()).toBe(0x04);
      await events.take();
      const next = [{ gateway_id: 'gtw-2', uplink_token: Buffer.from('the next gateway').toString('base64') }];
      const body = {
        // RX1 3 s after the uplink: its RX2 clear of the previous test's bookings.
        ...classADownlink(token, { rx1_delay: 3, rx1_frequency: '868500000', payload: Buffer.alloc(17, 5), id: 'ONWARD' }),
        next_paths: next,
      };
      const before = gateway.downlinks.length;
      expect(await client.call(subject, { ctx: rpcContext('NsGs.ScheduleDownlink'), body })).toMatchObject({ rx1: true });
      const [rx1] = (await gateway.waitForDownlinks(before + 1)).slice(before);
      // Refused in RX1, then (the GS's own retry) in RX2: the NS hears it, with what it needs to send the frame on.
      gateway.txAck(rx1.token, 'TX_FREQ');
      const [rx2] = (await gateway.waitForDownlinks(before + 2)).slice(before + 1);
      expect(rx2.txpk).toMatchObject({ tmst: (tmst + 4_000_000) >>> 0, data: rx1.txpk.data });
      gateway.txAck(rx2.token, 'TX_FREQ');
      await eventually(() => acks.length === 1);
      expect(acks[0]).toMatchObject({
        result: 'TX_FREQ',
        downlink_message: {
          correlation_ids: expect.arrayContaining(['ns:downlink:ONWARD']),
          raw_payload: body.raw_payload,
          request: body.request,
          next_paths: next,
        },
      });
      const published = (await events.take()).filter((e) => e.name.startsWith('gs.down') || e.name.startsWith('gs.txack'));
      expect(published.map((e) => e.name)).toEqual(
        expect.arrayContaining(['gs.down.schedule.attempt', 'gs.down.send', 'gs.txack.receive', 'gs.down.tx.fail', 'gs.txack.forward']),
      );
      for (const e of published) expect(JSON.stringify(e)).not.toContain('next_paths');
      // Without gateways left, the acknowledgment is what it was: the NS needs no frame to report the outcome.
      const again = await heardNow(868.5);
      const alone = classADownlink(again.token, { rx1_delay: 3, rx1_frequency: '868500000', payload: Buffer.alloc(17, 6), id: 'ALONE' });
      expect(await client.call(subject, { ctx: rpcContext('NsGs.ScheduleDownlink'), body: alone })).toMatchObject({ rx1: true });
      const [sent] = (await gateway.waitForDownlinks(before + 3)).slice(before + 2);
      gateway.txAck(sent.token);
      await eventually(() => acks.length === 2);
      expect(acks[1]).toMatchObject({ result: 'SUCCESS', downlink_message: { correlation_ids: expect.arrayContaining(['ns:downlink:ALONE']) } });
      expect(Object.keys(acks[1].downlink_message).sort()).toEqual(['correlation_ids']);
    } finally {
      ns.unsubscribe();
    }
  });

  it('looks an unknown EUI up once, and again at once when the IS registers a gateway with it (gateway.create)', async () => {
    const eui = 'AA555A00000000FE';
    const port = gs.running.app.get(GatewayServerService).udp?.port ?? 0;
    const newcomer = new SimulatedUdpGateway(eui, { host: '127.0.0.1', port });
    await newcomer.open();
    try {
      for (let i = 0; i < 3; i++) expect(await newcomer.pull()).toBe(0x04);
      await new Promise((r) => setTimeout(r, 50));
      expect(lookups.filter((e) => e === eui)).toEqual([eui]);
      registered.add(eui);
      const created: EventJson = {
        name: 'gateway.create',
        time: '2026-01-01T00:00:00.000000Z',
        identifiers: [{ gateway_ids: { gateway_id: 'gtw-fe', eui } }],
        correlation_ids: [],
        origin: 'is',
        visibility: { rights: [] },
        unique_id: '01H0000000000000000000000',
      };
      gs.broker.publish(eventSubject(created), encode(created));
      await new Promise((r) => setTimeout(r, 10));
      expect(await newcomer.pull()).toBe(0x04);
      await eventually(() => events.all.some((e) => e.name === GS_EVENTS.connect.name && JSON.stringify(e.identifiers).includes('gtw-fe')));
      expect(lookups.filter((e) => e === eui)).toEqual([eui, eui]);
    } finally {
      newcomer.close();
    }
  });
});

describe('Gateway Server admission (in-process)', () => {
  let gs: TestComponent;
  let events: EventRecorder;
  let gateway: SimulatedUdpGateway;
  /** The NS double holds every call until released. */
  const held: Array<() => void> = [];

  beforeAll(async () => {
    gs = await startTestComponent(GsModule, {
      component: 'gs',
      config: loadConfig({
        GS_UDP_PORT: '0',
        GS_UDP_HOST: '127.0.0.1',
        GS_LBS_PORT: '0',
        GS_LBS_HOST: '127.0.0.1',
        LOG_LEVEL: 'error',
        GS_NS_MAX_IN_FLIGHT: '4',
      }),
    });
    events = recordEvents(gs.broker);
    serveRpcDouble(gs.broker, 'GsIs.GetGatewayForEUI', (req) => ({
      ok: { ids: { gateway_id: 'gtw-admission', eui: (req.body as { eui: string }).eui }, frequency_plan_ids: ['EU_863_870_TTN'] },
    }));
    serveRpcDouble(gs.broker, 'GsNs.HandleUplink', () => new Promise((resolve) => held.push(() => resolve({ ok: {} }))));
    const port = gs.running.app.get(GatewayServerService).udp?.port;
    if (!port) throw new Error('the GS did not bind its UDP port');
    gateway = new SimulatedUdpGateway('AA555A0000000201', { host: '127.0.0.1', port });
    await gateway.open();
  });
  afterAll(async () => {
    held.forEach((release) => release());
    gateway.close();
    await gs.close();
    gs.broker.close();
  });

  it('sheds a frame that finds its limit of frames in flight to the NS reached, before its events and its call: counted, gs.up.drop network_server_busy', async () => {
    const shedBefore = await shedCount();
    // Ten different join-requests, each heard twice (two antennas: the copies of a frame are shed with it, counted once).
    const frames = Array.from({ length: 10 }, (_, i) => loraJoinRequest({ devNonce: `10${i.toString(16).padStart(2, '0')}` }));
    await gateway.push({ rxpk: frames.flatMap((frame) => [SimulatedUdpGateway.rxpk(frame), SimulatedUdpGateway.rxpk(frame, { rssi: -90 })]) });
    await eventually(() => held.length === 4);
    // The copies of one datagram are handled in one go: those not sent are shed by now.
    expect((await shedCount()) - shedBefore).toBe(6);
    const published = await events.take();
    const receivedFrames = new Set(
      published.filter((e) => e.name === GS_EVENTS.upReceive.name).map((e) => (e.data as { message: { raw_payload: string } }).message.raw_payload),
    );
    expect(receivedFrames.size).toBe(4);
    const drops = published.filter((e) => e.name === GS_EVENTS.upDrop.name);
    expect(drops.length).toBeGreaterThan(0);
    expect(drops.length).toBeLessThanOrEqual(12);
    for (const drop of drops) expect(drop.data).toMatchObject({ namespace: 'pkg/gatewayserver', name: 'network_server_busy', code: Code.ResourceExhausted });
    // Answered, the NS gets frames again.
    held.splice(0).forEach((release) => release());
    await gateway.push({ rxpk: [SimulatedUdpGateway.rxpk(loraJoinRequest({ devNonce: '2000' }))] });
    await eventually(() => held.length === 1);
  });
});

async function shedCount(): Promise<number> {
  const metric = await uplinksShed.get();
  return metric.values.filter((v) => v.labels.component === 'gs').reduce((sum, v) => sum + v.value, 0);
}
