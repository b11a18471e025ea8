import { SimulatedUdpGateway, type StackUnderTest } from '@lorawan/testing';
import { randomEui, uid } from './devices';
import { ADMIN_USER_ID, type Api, expectStatus } from './http-client';

export interface ConnectedGateway {
  id: string;
  eui: string;
  udp: SimulatedUdpGateway;
}

/**
 * Registers `count` gateways (EU_863_870_TTN) in the IS and connects a simulated packet forwarder
 * for each to the stack's UDP port, its downlink path open (PULL_DATA, then keep-alives every 2 s).
 * With `replicas`, gateway i goes to GS replica i (`gs#i`). The caller closes them.
 */
export async function connectGateways(api: Api, stack: StackUnderTest, o: { count: number; replicas: boolean }): Promise<ConnectedGateway[]> {
  const gateways: ConnectedGateway[] = [];
  for (let i = 0; i < o.count; i++) {
    const port = o.replicas ? stack.udpPorts?.get(`gs#${i}`) : stack.udpPort;
    if (!port) throw new Error('the stack has no Gateway Server UDP port');
    const eui = randomEui();
    const id = uid(`gtw${i}`);
    expectStatus(
      await api.post(`/api/v3/users/${ADMIN_USER_ID}/gateways`, { gateway: { ids: { gateway_id: id, eui }, frequency_plan_id: 'EU_863_870_TTN' } }),
      200,
    );
    const udp = new SimulatedUdpGateway(eui, { host: '127.0.0.1', port });
    await udp.open();
    gateways.push({ id, eui, udp });
    // The downlink path: a PULL_DATA (and keep-alives).
    if ((await udp.pull()) !== 0x04) throw new Error(`gateway ${id}: no PULL_ACK`);
    udp.keepAlive(2000);
  }
  return gateways;
}
