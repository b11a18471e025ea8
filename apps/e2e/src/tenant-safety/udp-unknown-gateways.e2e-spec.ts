/**
 * Unauthenticated UDP must not amplify into the Identity Server (issue 29, finding 6): PUSH_DATA
 * from random gateway EUIs used to cost one `GsIs.GetGatewayForEUI` each (6,000 datagrams, 6,002
 * lookups), and rotating EUIs passes the per-EUI flood filter. In both run modes:
 * - a flood of random EUIs costs the IS at most the burst plus `GS_UNKNOWN_EUI_LOOKUPS_PER_SEC`
 *   lookups a second; the rest are dropped and counted (`lorawan_gs_udp_dropped_total{reason="lookup_throttled"}`);
 * - an unknown EUI's answer is remembered: its next datagrams cost no lookup;
 * - a gateway registered after it was refused connects at its next datagram (`gateway.create`
 *   makes every GS replica forget the answer), not after the negative cache's TTL;
 * - the stack stays up and a registered gateway still connects after the flood.
 * The IS's side is read from its own metrics (`lorawan_rpc_server_handled_total`), which main has too.
 */
import { createSocket, type Socket } from 'node:dgram';
import { randomBytes } from 'node:crypto';
import { loraJoinRequest, SimulatedUdpGateway, startDistributedStack, startEmbeddedStack, type StackUnderTest } from '@lorawan/testing';
import { ADMIN_USER_ID, Api, expectStatus, sleep } from '../http-client';
import { metricSum, scrape } from '../prometheus';

const RATE = 20;
const ENV = { GS_UNKNOWN_EUI_LOOKUPS_PER_SEC: String(RATE) };
type Start = () => Promise<StackUnderTest>;
const MODES: Array<[string, Start]> = [
  ['distributed', () => startDistributedStack({ components: ['is', 'gs'], env: ENV })],
  ['embedded', () => startEmbeddedStack({ env: ENV })],
];

const randomEui = () => `AA555A${randomBytes(5).toString('hex').toUpperCase()}`;
const PUSH_BODY = Buffer.from(JSON.stringify({ rxpk: [SimulatedUdpGateway.rxpk(loraJoinRequest())] }));
/** A GWMP v2 PUSH_DATA of one join-request from `eui`. */
const pushData = (eui: string) => Buffer.concat([Buffer.from([2, 0x12, 0x34, 0x00]), Buffer.from(eui, 'hex'), PUSH_BODY]);

describe.each(MODES)('unknown gateway EUIs cost the IS a bounded number of lookups (%s)', (mode, start) => {
  let stack: StackUnderTest;
  let socket: Socket;
  const api = new Api(() => stack);

  const isMetrics = () => scrape(mode === 'distributed' ? `http://127.0.0.1:${stack.healthPorts.get('is#0')}/metrics` : `${stack.baseUrl}/metrics`);
  const gsMetrics = () => scrape(mode === 'distributed' ? `http://127.0.0.1:${stack.healthPorts.get('gs#0')}/metrics` : `${stack.baseUrl}/metrics`);
  const isLookups = async () => metricSum(await isMetrics(), 'lorawan_rpc_server_handled_total', { component: 'is', rpc: 'GsIs.GetGatewayForEUI' });
  const connected = async () => metricSum(await gsMetrics(), 'lorawan_gs_connected_gateways', { protocol: 'udp' });
  const send = (datagram: Buffer) =>
    new Promise<void>((resolve, reject) => socket.send(datagram, stack.udpPort, '127.0.0.1', (err) => (err ? reject(err) : resolve())));

  /** Waits until the IS's lookup count stops moving (lookups in flight answered), and returns it. */
  async function settledLookups(): Promise<number> {
    let last = await isLookups();
    for (;;) {
      await sleep(300);
      const now = await isLookups();
      if (now === last) return now;
      last = now;
    }
  }

  async function register(eui: string): Promise<void> {
    const gatewayId = `ts-gtw-${eui.slice(-10).toLowerCase()}`;
    expectStatus(
      await api.post(`/api/v3/users/${ADMIN_USER_ID}/gateways`, { gateway: { ids: { gateway_id: gatewayId, eui }, frequency_plan_id: 'EU_863_870_TTN' } }),
      200,
    );
  }

  beforeAll(async () => {
    stack = await start();
    socket = createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    socket?.close();
    await stack?.stop();
  });

  it('remembers that an EUI is unknown: five datagrams from it cost one lookup', async () => {
    const before = await settledLookups();
    const eui = randomEui();
    for (let i = 0; i < 5; i++) {
      await send(pushData(eui));
      await sleep(100);
    }
    expect((await settledLookups()) - before).toBe(1);
  });

  it('connects a gateway registered after it was refused at its next datagram (gateway.create forgets the refusal)', async () => {
    const eui = randomEui();
    const before = await settledLookups();
    await send(pushData(eui));
    // Refused: the IS was asked and said it does not know the EUI.
    for (let i = 0; i < 30 && (await isLookups()) === before; i++) await sleep(100);
    expect((await isLookups()) - before).toBe(1);
    const gateways = await connected();
    await register(eui);
    // Well within the negative cache's TTL (5 min by default).
    const deadline = Date.now() + 5000;
    while ((await connected()) === gateways && Date.now() < deadline) {
      await send(pushData(eui));
      await sleep(250);
    }
    expect(await connected()).toBe(gateways + 1);
  });

  it('a flood of 3000 random EUIs: at most the burst plus the rate per second reach the IS, the rest are dropped and counted; the stack stays up', async () => {
    await sleep(1100); // the bucket full again
    const before = await settledLookups();
    const started = Date.now();
    for (let i = 0; i < 3000; i++) {
      await send(pushData(randomEui()));
      if (i % 100 === 99) await sleep(10);
    }
    const lookups = (await settledLookups()) - before;
    const seconds = (Date.now() - started) / 1000;
    const throttled = metricSum(await gsMetrics(), 'lorawan_gs_udp_dropped_total', { reason: 'lookup_throttled' });
    process.stdout.write(`${JSON.stringify({ flood: 'random EUIs', mode, datagrams: 3000, is_lookups: lookups, seconds, throttled })}\n`);
    // Generous: the burst (one second's worth), the rate over the whole time, and as much again.
    expect(lookups).toBeLessThanOrEqual(2 * (RATE + RATE * seconds));
    expect(throttled).toBeGreaterThan(1000);
    for (const [name, child] of stack.processes) expect([name, child.exitCode, child.signalCode]).toEqual([name, null, null]);
    expect((await fetch(`${stack.baseUrl}/readyz`)).status).toBe(200);
    // A gateway registered now still connects (the bucket refills within a second).
    const eui = randomEui();
    await register(eui);
    const gateways = await connected();
    const deadline = Date.now() + 5000;
    while ((await connected()) === gateways && Date.now() < deadline) {
      await send(pushData(eui));
      await sleep(250);
    }
    expect(await connected()).toBe(gateways + 1);
  });
});
