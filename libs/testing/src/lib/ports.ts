import { createServer } from 'node:net';

// Without the workspace's path aliases: jest's global setup (tools/jest/global-services.ts) loads this file as it is.

/**
 * Ports handed out below the kernel's ephemeral range (Linux: 32768–60999 by default): a port
 * the kernel picked as free (`listen(0)`) is in that range, and between the check and the child's
 * own listen it may become the source port of some outgoing connection (EADDRINUSE at start-up).
 */
const PORT_RANGE = { from: 20000, to: 32000 };
/** Ports this process handed out already (two children of one stack never get the same one). */
const handedOut = new Set<number>();

/** Whether a TCP port can be listened on, on every address (as the components listen). */
function canListen(port: number): Promise<boolean> {
  return new Promise((res) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', () => res(false));
    srv.listen({ port, host: '::', ipv6Only: false }, () => srv.close(() => res(true)));
  });
}

/** A TCP port free now, outside the ephemeral range, not handed out before by this process. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = PORT_RANGE.from + Math.floor(Math.random() * (PORT_RANGE.to - PORT_RANGE.from));
    if (handedOut.has(port) || !(await canListen(port))) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error(`no free TCP port in ${PORT_RANGE.from}–${PORT_RANGE.to} after 200 attempts`);
}
