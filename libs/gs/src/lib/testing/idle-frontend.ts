import type { GatewayFrontend } from '../io/frontend';

/** A frontend that sends nothing (specs): connections only need to tell frontends apart, and their timeouts. */
export function idleFrontend(protocol = 'udp', connectionTimeoutMs?: number): GatewayFrontend {
  return {
    protocol,
    ...(connectionTimeoutMs !== undefined ? { connectionTimeoutMs } : {}),
    start: async () => undefined,
    stop: async () => undefined,
    describe: () => ({ fields: {}, message: protocol }),
    send: () => undefined,
  };
}
