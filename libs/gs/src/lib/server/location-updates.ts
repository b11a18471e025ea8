import type { Location } from '@lorawan/api';
import type { GatewayConnection } from '../connection/gateway-connection';
import type { GatewayStatusJson } from '../io/messages';

/**
 * Which status locations go to the Identity Server (TTS `handleLocationUpdates` with
 * `UpdateGatewayLocationDebounceTime`): only of a gateway whose `update_location_from_status` is
 * set, only a location that differs from the one sent last, and at most one per `debounceMs` per
 * connection (the first at once). A GPS that wanders a few metres costs the IS one write an hour at
 * most per gateway; a status without a location sends nothing.
 */
export class LocationUpdates {
  private readonly sent = new WeakMap<GatewayConnection, { location: Location; at_ms: number }>();

  constructor(private readonly debounceMs: number) {}

  /** The location to send for this status now, if any (remembered as sent). */
  take(conn: GatewayConnection, status: GatewayStatusJson, now = Date.now()): Location | undefined {
    if (!conn.update_location_from_status) return undefined;
    const reported = status.antenna_locations?.[0];
    if (!reported) return undefined;
    const last = this.sent.get(conn);
    const location: Location = { latitude: reported.latitude, longitude: reported.longitude, altitude: reported.altitude, source: reported.source };
    if (last && (now - last.at_ms < this.debounceMs || same(last.location, location))) return undefined;
    this.sent.set(conn, { location, at_ms: now });
    return location;
  }
}

function same(a: Location, b: Location): boolean {
  return a.latitude === b.latitude && a.longitude === b.longitude && a.altitude === b.altitude;
}
