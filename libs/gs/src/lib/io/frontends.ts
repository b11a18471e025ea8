import type { StackConfig } from '@lorawan/config';
import type { GatewayConnections } from '../connection/gateway-connections';
import { BasicStationServer, type LinkAccess } from './basicstation/lns-server';
import type { FrontendEvents, GatewayFrontend } from './frontend';
import { UdpGatewayServer } from './udp/udp-server';

/**
 * The Gateway Server's frontends, one line each (TTS: the listeners `gatewayserver.go` starts):
 * each connects its gateways through the replica's `connections` and reports to `events`; those
 * that authenticate their gateways (Basics Station) ask `access`.
 */
export function gatewayFrontends(config: StackConfig['gs'], connections: GatewayConnections, events: FrontendEvents, access: LinkAccess): GatewayFrontend[] {
  const { lbs } = config;
  return [
    new UdpGatewayServer(
      { port: config.udpPort, host: config.udpHost, receiveBuffer: config.udpReceiveBuffer, connectionTimeoutMs: config.udpConnectionTimeoutMs },
      connections,
      events,
    ),
    new BasicStationServer(
      {
        port: lbs.port,
        host: lbs.host,
        ...(lbs.tls ? { tls: { port: lbs.tlsPort, ...lbs.tls } } : {}),
        pingIntervalMs: lbs.pingIntervalMs,
        missedPongs: lbs.missedPongs,
        authLimits: lbs.authLimits,
      },
      connections,
      access,
      events,
    ),
  ];
}
