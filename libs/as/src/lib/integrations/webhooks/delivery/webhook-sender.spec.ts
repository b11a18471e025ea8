import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ForbiddenDestinationError } from './destination-guard';
import type { Delivery } from './webhook-job';
import { classifyTransportError, shownUrl, WebhookSender } from './webhook-sender';

const coded = (code: string, message = code) => Object.assign(new Error(message), { code });

describe('classifyTransportError', () => {
  it.each([
    ['a timeout of the whole request', new DOMException('signal timed out', 'TimeoutError'), 'timeout'],
    ['a headers timeout', coded('UND_ERR_HEADERS_TIMEOUT'), 'timeout'],
    ['a connect timeout', coded('UND_ERR_CONNECT_TIMEOUT'), 'timeout'],
    ['connection refused', coded('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:9'), 'transport'],
    ['a reset connection', coded('UND_ERR_SOCKET', 'other side closed'), 'transport'],
  ])('retries %s', (_what, err, name) => {
    const { cause, retryable } = classifyTransportError(err, 5000);
    expect(retryable).toBe(true);
    expect(cause.errorName).toBe(name);
  });

  it('does not retry a refused destination, also when wrapped', () => {
    const wrapped = new Error('fetch failed', { cause: new ForbiddenDestinationError('10.0.0.1') });
    const { cause, retryable } = classifyTransportError(wrapped, 5000);
    expect(retryable).toBe(false);
    expect(cause.toDetails()).toMatchObject({ name: 'forbidden_destination', code: 7, attributes: { address: '10.0.0.1' } });
  });

  it('does not retry a request that cannot be made (invalid header)', () => {
    expect(classifyTransportError(coded('UND_ERR_INVALID_ARG', 'invalid header'), 5000).retryable).toBe(false);
  });
});

describe('shownUrl', () => {
  it('drops user info and the query (credentials of the receiver), keeps scheme, host, port and path', () => {
    expect(shownUrl('https://user:secret@hooks.example.com:8443/ttn/up?token=abc&x=1')).toBe('https://hooks.example.com:8443/ttn/up?…');
    expect(shownUrl(new URL('http://127.0.0.1:9000/up'))).toBe('http://127.0.0.1:9000/up');
    expect(shownUrl('https://user:secret@h.example/t{/appID}?k={devEUI}')).toBe('https://h.example/t%7B/appID%7D?…');
    expect(shownUrl('not a url ://user:pw@x?q')).not.toContain('pw');
  });
});

describe('WebhookSender deadline (connect to the end of the response)', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    // /slow answers 500 and its body never ends; /ok answers 200 at once.
    server = createServer((req, res) => {
      if (req.url?.endsWith('/ok')) return res.end('{}');
      res.writeHead(500, { 'Content-Type': 'text/plain' });
      res.write('partial');
    });
    await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((res) => server.close(res));
  });

  const delivery = (path: string): Delivery => ({
    webhook: { ids: { webhook_id: 'hook', application_ids: { application_id: 'app' } }, base_url: base, format: 'json', uplink_message: { path } },
    up: { end_device_ids: { device_id: 'dev', application_ids: { application_id: 'app' } }, uplink_message: {} },
    kind: 'uplink_message',
    attempt: 1,
  });

  it('a response whose body does not end within the timeout is a retryable timeout; one that ends in time is delivered', async () => {
    const sender = new WebhookSender({ publicUrl: 'http://localhost:1885/api/v3', timeoutMs: 300, allowPrivateNetworks: true });
    try {
      expect(await sender.send(delivery('/ok'))).toEqual({ ok: true });
      const started = Date.now();
      const result = await sender.send(delivery('/slow'));
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);
      expect(result).toMatchObject({ ok: false, retryable: true });
      expect(result.ok === false && result.details).toMatchObject({ cause: { name: 'timeout' } });
    } finally {
      await sender.destroy();
    }
  });
});
