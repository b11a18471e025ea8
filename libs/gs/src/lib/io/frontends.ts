import type { StackConfig } from '@lorawan/config';
import type { GatewayConnections } from '../connection/gateway-connections';
import type { FrontendEvents, GatewayFrontend } from './frontend';
import { UdpGatewayServer } from './udp/udp-server';

/**
 * The Gateway Server's frontends, one line each (TTS: the listeners `gatewayserver.go` starts):
 * each connects its gateways through the replica's `connections` and reports to `events`.
 */
export function gatewayFrontends(config: StackConfig['gs'], connections: GatewayConnections, events: FrontendEvents): GatewayFrontend[] {
  return [
    new UdpGatewayServer(
      { port: config.udpPort, host: config.udpHost, receiveBuffer: config.udpReceiveBuffer, connectionTimeoutMs: config.udpConnectionTimeoutMs },
      connections,
      events,
    ),
  ];
}
