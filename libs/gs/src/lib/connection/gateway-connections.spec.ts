import { idleFrontend } from '../testing/idle-frontend';
import type { GatewayConnection } from './gateway-connection';
import { GatewayConnections, type GatewayResolver } from './gateway-connections';

const frontend = idleFrontend;

describe('GatewayConnections', () => {
  const found: GatewayResolver = async (eui) => ({
    status: 'found',
    gateway: { ids: { gateway_id: `gtw-${eui.slice(-2)}`, eui }, frequency_plan_ids: ['EU_863_870_TTN'] },
  });
  const remote = { address: '127.0.0.1', port: 1700 };

  function table(resolve: GatewayResolver = found) {
    const log = { connected: [] as string[], disconnected: [] as Array<[string, string]>, refused: [] as string[] };
    const connections = new GatewayConnections({ requireRegistered: true }, resolve, {
      connected: (c: GatewayConnection) => log.connected.push(`${c.ids.gateway_id}/${c.frontend.protocol}`),
      disconnected: (c: GatewayConnection, reason: string) => log.disconnected.push([c.ids.gateway_id, reason]),
      refused: (eui: string, reason: string) => log.refused.push(`${eui}:${reason}`),
    });
    return { connections, log };
  }

  it('connects an EUI once however many attempts race, through the frontend that asked first', async () => {
    let lookups = 0;
    const { connections, log } = table(async (eui) => (lookups++, found(eui)));
    const udp = frontend('udp');
    const [a, b] = await Promise.all([
      connections.connect('AA555A0000000101', udp, remote),
      connections.connect('AA555A0000000101', frontend('other'), remote),
    ]);
    expect(a).toBe(b);
    expect(lookups).toBe(1);
    expect(log.connected).toEqual(['gtw-01/udp']);
    expect(connections.get('aa555a0000000101')).toBe(a);
  });

  it('stops the connections of one frontend, and all of them when none is named', async () => {
    const { connections, log } = table();
    const udp = frontend('udp');
    const other = frontend('other');
    await connections.connect('AA555A0000000101', udp, remote);
    await connections.connect('AA555A0000000102', other, remote);
    connections.stop(udp);
    expect(log.disconnected).toEqual([['gtw-01', 'stopped']]);
    expect(connections.get('AA555A0000000102')).toBeDefined();
    connections.stop();
    expect(log.disconnected).toEqual([
      ['gtw-01', 'stopped'],
      ['gtw-02', 'stopped'],
    ]);
  });

  it('matches acknowledgments to pending downlinks by token, once each', async () => {
    const { connections } = table();
    const conn = await connections.connect('AA555A0000000101', frontend('udp'), remote);
    if (!conn) throw new Error('not connected');
    expect(conn.hasDownlinkPath).toBe(false);
    conn.claimDownlinkPath();
    expect(conn.hasDownlinkPath).toBe(true);
    const first = conn.pend('first');
    const second = conn.pend('second');
    expect(first.token).not.toBe(second.token);
    expect(first.token).toBeGreaterThanOrEqual(1);
    expect(first.token).toBeLessThanOrEqual(0xffff);
    expect(conn.acknowledged(second.token)?.context).toBe('second');
    expect(conn.acknowledged(second.token)).toBeUndefined();
  });

  it("ends a silent connection after its frontend's timeout (else the connections' default), reason timeout", async () => {
    const { connections, log } = table();
    const quick = await connections.connect('AA555A0000000101', frontend('udp', 1000), remote);
    const slow = await connections.connect('AA555A0000000102', frontend('ws'), remote);
    if (!quick || !slow) throw new Error('not connected');
    const t = quick.last_seen_ms;
    slow.seen(remote, t);
    connections.sweep(t + 1000);
    expect(log.disconnected).toEqual([]);
    connections.sweep(t + 1001);
    expect(log.disconnected).toEqual([['gtw-01', 'timeout']]);
    expect(connections.get('AA555A0000000101')).toBeUndefined();
    // The default: TTS's 3 minutes.
    connections.sweep(t + 180_000);
    expect(connections.get('AA555A0000000102')).toBe(slow);
    connections.sweep(t + 180_001);
    expect(log.disconnected).toEqual([
      ['gtw-01', 'timeout'],
      ['gtw-02', 'timeout'],
    ]);
  });

  it('disconnects a connection once, and only while it is the EUI’s (replaced)', async () => {
    const { connections, log } = table();
    const first = await connections.connect('AA555A0000000101', frontend('ws'), remote);
    if (!first) throw new Error('not connected');
    connections.disconnect(first, 'replaced');
    connections.disconnect(first, 'replaced');
    expect(log.disconnected).toEqual([['gtw-01', 'replaced']]);
    const second = await connections.connect('AA555A0000000101', frontend('ws'), remote);
    connections.disconnect(first, 'stopped');
    expect(connections.get('AA555A0000000101')).toBe(second);
    expect(log.disconnected).toHaveLength(1);
  });
});
