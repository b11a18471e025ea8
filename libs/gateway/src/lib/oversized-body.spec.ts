import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterBody, answerExpectContinue } from './oversized-body';

const LIMIT = 1024;

/** A server that refuses every body over LIMIT with 413 the way the gateway does: after `afterBody`. */
async function serve(drainBytes: number): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    const answer = () => res.writeHead(413, { connection: 'close' }).end('too large');
    if (Number(req.headers['content-length']) > LIMIT) return afterBody(req, drainBytes, answer);
    req.resume().on('end', () => res.end('ok'));
  });
  answerExpectContinue(server, LIMIT);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/** POSTs `bytes` bytes (with `expect`, only after a 100 Continue); the status and whether a 100 Continue came. */
function post(port: number, bytes: number, headers: Record<string, string> = {}): Promise<{ status?: number; error?: string; continued: boolean }> {
  return new Promise((resolve) => {
    let continued = false;
    const req = request({ host: '127.0.0.1', port, method: 'POST', headers: { 'content-length': String(bytes), ...headers } }, (res) => {
      res.resume().on('end', () => resolve({ status: res.statusCode, continued }));
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code, continued }));
    const body = Buffer.alloc(bytes, 'x');
    if (headers.expect) {
      req.on('continue', () => {
        continued = true;
        req.end(body);
      });
      req.flushHeaders();
    } else req.end(body);
  });
}

describe('oversized bodies', () => {
  let s: Awaited<ReturnType<typeof serve>>;
  afterEach(() => s.server.close());

  it('reads and discards a body up to the drain bound, then answers: the client reads its 413', async () => {
    s = await serve(64 * 1024 * 1024);
    for (let i = 0; i < 5; i++) expect(await post(s.port, 16 * 1024 * 1024)).toEqual({ status: 413, continued: false });
  });

  it('answers Expect: 100-continue over the limit before the body is sent (no 100), and lets one under it go on', async () => {
    s = await serve(0);
    expect(await post(s.port, 16 * 1024 * 1024, { expect: '100-continue' })).toEqual({ status: 413, continued: false });
    expect(await post(s.port, 100, { expect: '100-continue' })).toEqual({ status: 200, continued: true });
  });
});
