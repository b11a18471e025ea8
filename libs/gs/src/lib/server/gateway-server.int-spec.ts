import { GS_EVENTS } from '@lorawan/api';
import { loadConfig } from '@lorawan/config';
import { Code, defineError } from '@lorawan/errors';
import type { RpcEnvelope } from '@lorawan/transport';
import {
  eventually,
  type EventRecorder,
  loraJoinRequest,
  recordEvents,
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

const joinRequest = loraJoinRequest();

describe('Gateway Server (in-process)', () => {
  let gs: TestComponent;
  let events: EventRecorder;
  let gateway: SimulatedUdpGateway;
  const uplinksAtNs: RpcEnvelope[] = [];
  let nsUp = true;

  beforeAll(async () => {
    gs = await startTestComponent(GsModule, { component: 'gs', config: loadConfig({ GS_UDP_PORT: '0', GS_UDP_HOST: '127.0.0.1', LOG_LEVEL: 'error' }) });
    events = recordEvents(gs.broker);
    serveRpcDouble(gs.broker, 'GsIs.GetGatewayForEUI', (req) =>
      (req.body as { eui: string }).eui === EUI
        ? { ok: { ids: { gateway_id: 'gtw-1', eui: EUI }, frequency_plan_ids: ['EU_863_870_TTN'] } }
        : { error: GATEWAY_EUI_NOT_FOUND.with({ eui: (req.body as { eui: string }).eui }).toDetails() },
    );
    serveRpcDouble(gs.broker, 'GsNs.HandleUplink', (req) => {
      if (!nsUp) return { error: DEVICE_NOT_FOUND.with().toDetails() };
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

  it('connects a registered gateway and hands each received copy to the NS, with gs.up.receive and gs.up.forward under its gs:uplink ID', async () => {
    expect(await gateway.push({ rxpk: [SimulatedUdpGateway.rxpk(joinRequest, { freq: 868.1, rssi: -37 })] })).toBe(0x01);
    await eventually(() => uplinksAtNs.length === 1);
    const up = uplinksAtNs[0];
    const body = up.body as { raw_payload: string; correlation_ids: string[]; rx_metadata: Array<Record<string, unknown>> };
    expect(Buffer.from(body.raw_payload, 'base64')).toEqual(joinRequest);
    expect(body.rx_metadata[0]).toMatchObject({ gateway_ids: { gateway_id: 'gtw-1', eui: EUI }, rssi: -37 });
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

  it('drops a CRC failure and what the NS refuses, with gs.up.drop naming why', async () => {
    await gateway.push({ rxpk: [SimulatedUdpGateway.rxpk(joinRequest, { stat: -1 })] });
    await eventually(() => events.all.filter((e) => e.name === GS_EVENTS.upDrop.name).length === 1);
    nsUp = false;
    await gateway.push({ rxpk: [SimulatedUdpGateway.rxpk(joinRequest)] });
    await eventually(() => events.all.filter((e) => e.name === GS_EVENTS.upDrop.name).length === 2);
    nsUp = true;
    const drops = (await events.take()).filter((e) => e.name === GS_EVENTS.upDrop.name);
    expect(drops.map((e) => (e.data as { name?: string }).name)).toEqual(['message_crc', 'device_not_found']);
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
});
