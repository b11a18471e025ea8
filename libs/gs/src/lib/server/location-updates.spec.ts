import { idleFrontend } from '../testing/idle-frontend';
import { GatewayConnection } from '../connection/gateway-connection';
import { LocationUpdates } from './location-updates';

const udp = idleFrontend('udp');
const at = (latitude: number, longitude: number, altitude = 10) => ({
  metrics: {},
  antenna_locations: [{ latitude, longitude, altitude, source: 'SOURCE_GPS' as const }],
});

describe('LocationUpdates (TTS handleLocationUpdates, debounced)', () => {
  const connection = (flag: boolean) => {
    const conn = new GatewayConnection({ gateway_id: 'gtw-1', eui: 'AA555A0000000101' }, ['EU_863_870_TTN'], udp, { address: '192.0.2.1', port: 1700 });
    conn.update_location_from_status = flag;
    return conn;
  };

  it('sends the first location at once, then a changed one once per debounce period; never an unchanged one', () => {
    const updates = new LocationUpdates(60_000);
    const conn = connection(true);
    expect(updates.take(conn, at(52.1, 5.1), 0)).toEqual({ latitude: 52.1, longitude: 5.1, altitude: 10, source: 'SOURCE_GPS' });
    expect(updates.take(conn, at(52.2, 5.1), 59_999)).toBeUndefined();
    expect(updates.take(conn, at(52.1, 5.1), 120_000)).toBeUndefined();
    expect(updates.take(conn, at(52.2, 5.1), 120_000)).toMatchObject({ latitude: 52.2 });
    expect(updates.take(conn, at(52.3, 5.1), 150_000)).toBeUndefined();
  });

  it('sends nothing for a gateway without update_location_from_status, or a status without a location', () => {
    const updates = new LocationUpdates(0);
    expect(updates.take(connection(false), at(52.1, 5.1))).toBeUndefined();
    expect(updates.take(connection(true), { metrics: { rxin: 1 } })).toBeUndefined();
  });

  it('each connection on its own (a reconnected gateway sends its location again)', () => {
    const updates = new LocationUpdates(3_600_000);
    expect(updates.take(connection(true), at(52.1, 5.1), 0)).toBeDefined();
    expect(updates.take(connection(true), at(52.1, 5.1), 1)).toBeDefined();
  });
});
