/**
 * The Gateway Server end to end, in both run modes: a gateway registered through the HTTP API, a
 * simulated Semtech packet forwarder on the stack's UDP port, and what a user sees on the event
 * stream of the gateway (connect, each received copy under its own gs:uplink ID, forwarded to the
 * Network Server, which answers that it knows no such device, status). Unknown gateways are acked and refused.
 */
import { type EventJson } from '@lorawan/api';
import { loraJoinRequest, SimulatedUdpGateway, startDistributedStack, startEmbeddedStack, type StackUnderTest } from '@lorawan/testing';
import { EventStream } from './event-stream';
import { ADMIN_USER_ID, Api, expectStatus } from './http-client';

type Start = () => Promise<StackUnderTest>;
const MODES: Array<[string, Start]> = [
  ['distributed', () => startDistributedStack({ components: ['is', 'ns', 'events', 'gs'] })],
  ['embedded', () => startEmbeddedStack()],
];

const randomEui = () =>
  `AA555A${Math.floor(Math.random() * 2 ** 40)
    .toString(16)
    .toUpperCase()
    .padStart(10, '0')}`;

describe.each(MODES)('Gateway Server (%s)', (_mode, start) => {
  let stack: StackUnderTest;
  let api: Api;
  const opened: Array<{ close(): void }> = [];

  beforeAll(async () => {
    stack = await start();
    api = new Api(() => stack);
  });
  afterAll(async () => {
    for (const o of opened) o.close();
    await stack?.stop();
  });

  async function forwarder(eui: string): Promise<SimulatedUdpGateway> {
    if (!stack.udpPort) throw new Error('the stack has no Gateway Server UDP port');
    const g = new SimulatedUdpGateway(eui, { host: '127.0.0.1', port: stack.udpPort });
    await g.open();
    opened.push(g);
    return g;
  }

  async function gatewayStream(gatewayId: string): Promise<EventStream> {
    const s = await EventStream.open(stack.baseUrl, {
      authorization: `Bearer ${stack.adminKey}`,
      body: { identifiers: [{ gateway_ids: { gateway_id: gatewayId } }], names: ['/^gs\\./'] },
    });
    opened.push(s);
    return s;
  }

  it('connects a registered gateway: gs.gateway.connect, then per copy gs.up.receive and gs.up.forward (the NS answered), and gs.status.receive', async () => {
    const eui = randomEui();
    const gatewayId = `gtw-${eui.slice(-8).toLowerCase()}`;
    expectStatus(
      await api.post(`/api/v3/users/${ADMIN_USER_ID}/gateways`, { gateway: { ids: { gateway_id: gatewayId, eui }, frequency_plan_id: 'EU_863_870_TTN' } }),
      200,
    );
    const stream = await gatewayStream(gatewayId);
    // TTS's first message of every stream, whatever its name filter.
    expect((await stream.nextEvent()).name).toBe('events.stream.start');
    const gateway = await forwarder(eui);
    const frame = loraJoinRequest();
    expect(await gateway.push({ rxpk: [SimulatedUdpGateway.rxpk(frame, { freq: 868.1, rssi: -40 })] })).toBe(0x01);
    const [connect, receive, forward] = await stream.nextEvents(3);
    expect([connect.name, receive.name, forward.name]).toEqual(['gs.gateway.connect', 'gs.up.receive', 'gs.up.forward']);
    for (const e of [connect, receive, forward]) expect(e.identifiers).toEqual([{ gateway_ids: { gateway_id: gatewayId, eui } }]);
    expect(connect.data).toMatchObject({ protocol: 'udp', gateway_remote_address: { ip: '127.0.0.1' } });
    const received = receive.data as { band_id: string; message: { raw_payload: string; settings: { frequency: string }; correlation_ids: string[] } };
    expect(received.band_id).toBe('EU_863_870');
    expect(Buffer.from(received.message.raw_payload, 'base64')).toEqual(frame);
    expect(received.message.settings.frequency).toBe('868100000');
    const [uplinkId] = received.message.correlation_ids;
    expect(uplinkId).toMatch(/^gs:uplink:[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(receive.correlation_ids).toContain(uplinkId);
    expect(forward.correlation_ids).toContain(uplinkId);
    // TTS's host name for the cluster's Network Server; an NS answer (here: no such device) still counts as forwarded.
    expect(forward.data).toEqual({ '@type': 'type.googleapis.com/google.protobuf.Value', value: 'cluster' });
    // A second copy gets its own correlation ID; status follows.
    await gateway.push({ rxpk: [SimulatedUdpGateway.rxpk(frame, { rssi: -60 })], stat: { rxnb: 2, rxok: 2 } });
    const next: EventJson[] = await stream.nextEvents(3);
    expect(next.map((e) => e.name).sort()).toEqual(['gs.status.receive', 'gs.up.forward', 'gs.up.receive']);
    const second = next.find((e) => e.name === 'gs.up.receive')?.data as { message: { correlation_ids: string[] } };
    expect(second.message.correlation_ids[0]).not.toBe(uplinkId);
    expect(next.find((e) => e.name === 'gs.status.receive')?.data).toMatchObject({ metrics: { rxin: 2, rxok: 2 } });
  });

  it('acks an unregistered gateway but connects nothing; malformed datagrams are dropped and the port keeps serving', async () => {
    const stranger = await forwarder(randomEui());
    expect(await stranger.push({ rxpk: [SimulatedUdpGateway.rxpk(loraJoinRequest())] })).toBe(0x01);
    expect(await stranger.pull()).toBe(0x04);
    stranger.sendRaw(Buffer.from([2, 0]));
    stranger.sendRaw(Buffer.from('{"not":"gwmp"}'));
    // Still answering.
    expect(await stranger.pull()).toBe(0x04);
  });
});
