import { createServer } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { limitConnectionsPerAddress } from './connection-limit';

/** Connects from `localAddress`; resolves with the socket and whether the server closed it within 300 ms unanswered. */
function open(port: number, localAddress: string): Promise<{ socket: Socket; refused: boolean }> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, localAddress });
    let answered = false;
    socket.on('data', () => (answered = true));
    socket.on('error', () => undefined);
    socket.once('connect', () => socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
    const timer = setTimeout(() => resolve({ socket, refused: false }), 300);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve({ socket, refused: !answered });
    });
  });
}

describe('limitConnectionsPerAddress', () => {
  it('closes a connection beyond the limit of its address as it arrives; other addresses and freed slots are served', async () => {
    const server = createServer((_req, res) => res.end('ok'));
    const refused: string[] = [];
    limitConnectionsPerAddress(server, 2, (address) => refused.push(address));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const [a, b] = [await open(port, '127.0.0.2'), await open(port, '127.0.0.2')];
      expect([a.refused, b.refused]).toEqual([false, false]);
      expect((await open(port, '127.0.0.2')).refused).toBe(true);
      expect(refused).toEqual(['127.0.0.2']);
      const other = await open(port, '127.0.0.3');
      expect(other.refused).toBe(false);
      a.socket.destroy();
      await new Promise((r) => setTimeout(r, 50));
      const again = await open(port, '127.0.0.2');
      expect(again.refused).toBe(false);
      for (const s of [b, other, again]) s.socket.destroy();
    } finally {
      server.close();
    }
  });

  it('limits nothing with 0', () => {
    const server = createServer();
    limitConnectionsPerAddress(server, 0, () => undefined);
    expect(server.listenerCount('connection')).toBe(1);
  });
});
