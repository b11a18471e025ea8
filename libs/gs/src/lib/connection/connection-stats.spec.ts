import { idleFrontend } from '../testing/idle-frontend';
import { ConnectionStats, gatewayConnectionStats } from './connection-stats';
import { GatewayConnection } from './gateway-connection';

const udp = idleFrontend('udp');

describe('ConnectionStats', () => {
  it('counts each kind and keeps the latest time and status', () => {
    const stats = new ConnectionStats();
    stats.uplink(1000);
    stats.uplink(2000);
    stats.downlink(2500);
    stats.txAcknowledgment(2600);
    const status = { metrics: { rxin: 2 } };
    stats.status(status, 3000);
    expect(stats).toMatchObject({
      uplink_count: 2,
      last_uplink_ms: 2000,
      downlink_count: 1,
      last_downlink_ms: 2500,
      tx_acknowledgment_count: 1,
      last_tx_acknowledgment_ms: 2600,
      last_status_ms: 3000,
    });
    expect(stats.last_status).toBe(status);
  });
});

describe('gatewayConnectionStats (TTS GatewayConnectionStats)', () => {
  const ids = { gateway_id: 'gtw-1', eui: 'AA555A0000000101' };

  it('a fresh connection: protocol, connected_at, zero counts, the plan’s sub-bands unused, the remote address; no times or round trips yet', () => {
    const conn = new GatewayConnection(ids, ['EU_863_870_TTN'], udp, { address: '192.0.2.1', port: 1700 });
    const stats = gatewayConnectionStats(conn);
    expect(Object.keys(stats).sort()).toEqual(
      ['connected_at', 'downlink_count', 'gateway_remote_address', 'protocol', 'sub_bands', 'tx_acknowledgment_count', 'uplink_count'].sort(),
    );
    expect(stats).toMatchObject({ protocol: 'udp', uplink_count: '0', downlink_count: '0', gateway_remote_address: { ip: '192.0.2.1' } });
    expect(stats.sub_bands).toContainEqual({
      min_frequency: '869400000',
      max_frequency: '869650000',
      downlink_utilization_limit: 0.1,
      downlink_utilization: 0,
    });
    expect(stats.sub_bands?.every((sb) => sb.downlink_utilization === 0)).toBe(true);
  });

  it('the counts as uint64 strings, times in RFC 3339, round trips as durations (min, max, median of the last 30 min), the latest address', () => {
    const conn = new GatewayConnection(ids, ['EU_863_870_TTN'], udp, { address: '192.0.2.1', port: 1700 });
    const now = Date.parse('2026-11-28T12:00:00Z');
    conn.stats.uplink(now - 3000);
    conn.stats.uplink(now - 2000);
    conn.stats.downlink(now - 1500);
    conn.stats.txAcknowledgment(now - 1000);
    conn.stats.status({ metrics: { rxok: 1 } }, now - 500);
    for (const rtt of [40, 10, 25]) conn.scheduler?.rtts.record(rtt, now - 100);
    conn.seen({ address: '198.51.100.7', port: 1701 }, now);
    expect(gatewayConnectionStats(conn, now)).toMatchObject({
      uplink_count: '2',
      last_uplink_received_at: '2026-11-28T11:59:58.000Z',
      downlink_count: '1',
      last_downlink_received_at: '2026-11-28T11:59:58.500Z',
      tx_acknowledgment_count: '1',
      last_tx_acknowledgment_received_at: '2026-11-28T11:59:59.000Z',
      last_status_received_at: '2026-11-28T11:59:59.500Z',
      last_status: { metrics: { rxok: 1 } },
      round_trip_times: { min: '0.01s', max: '0.04s', median: '0.025s', count: 3 },
      gateway_remote_address: { ip: '198.51.100.7' },
    });
    expect(gatewayConnectionStats(conn, now + 31 * 60_000).round_trip_times).toBeUndefined();
  });

  it('a gateway whose plan is unknown has no scheduler: no sub-bands, no round trips', () => {
    const conn = new GatewayConnection(ids, ['NO_SUCH_PLAN'], udp, { address: '192.0.2.1', port: 1700 });
    const stats = gatewayConnectionStats(conn);
    expect(stats.sub_bands).toBeUndefined();
    expect(stats.round_trip_times).toBeUndefined();
  });
});
