import type { Server, Socket } from 'node:net';

/**
 * At most `max` connections open at once from one client address (HTTP_MAX_CONNECTIONS_PER_ADDRESS):
 * one more is destroyed as it arrives, before any TLS or HTTP work is spent on it, and `refused`
 * hears of it. The count is of TCP connections (with HTTPS, before the handshake). Behind a
 * balancer or proxy every client has its address: there the limit belongs on the balancer (0 here).
 */
export function limitConnectionsPerAddress(server: Server, max: number, refused: (address: string) => void): void {
  if (max <= 0) return;
  const open = new Map<string, number>();
  // First among the listeners: a refused socket never reaches the HTTP or TLS server's own.
  server.prependListener('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const count = open.get(address) ?? 0;
    if (count >= max) {
      socket.destroy();
      refused(address);
      return;
    }
    open.set(address, count + 1);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
  });
}
