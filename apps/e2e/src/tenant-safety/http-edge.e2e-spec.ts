/**
 * The HTTP edge against careless and abusive clients (issue 29, findings 7 and 8), in both run modes:
 * - a cached credential is refused at the instant its key expires, however long AUTH_CACHE_TTL_MS;
 *   an event stream of that key ends then too, and one of a deleted key ends at once;
 * - a request body sent one byte at a time is cut off (408) within HTTP_REQUEST_TIMEOUT_MS, an
 *   idle connection is closed after HTTP_IDLE_TIMEOUT_MS, and an event stream outlives both;
 * - one address holds at most HTTP_MAX_CONNECTIONS_PER_ADDRESS connections: one more is closed at
 *   once, other addresses are served, a freed slot is reused;
 * - a body over the limit gets its 413 (TTS's shape) in a way every client reads it: fetch (undici),
 *   curl with `Expect: 100-continue` (its default for large bodies: answered before the body is
 *   sent, whatever its size) and without (the body is read and discarded first, up to
 *   HTTP_OVERSIZED_BODY_DRAIN_BYTES).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDistributedStack, startEmbeddedStack, type StackUnderTest } from '@lorawan/testing';
import { uid } from '../devices';
import { EventStream } from '../event-stream';
import { Api, createApplications, expectStatus, expectTtsError, sleep } from '../http-client';
import { RawConnection } from '../raw-http';

const REQUEST_TIMEOUT_MS = 2000;
const IDLE_TIMEOUT_MS = 1000;
const MAX_CONNECTIONS = 6;
const DRAIN_BYTES = 16 * 1024 * 1024;
const ENV = {
  AUTH_CACHE_TTL_MS: '120000',
  HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
  HTTP_IDLE_TIMEOUT_MS: String(IDLE_TIMEOUT_MS),
  HTTP_MAX_CONNECTIONS_PER_ADDRESS: String(MAX_CONNECTIONS),
  HTTP_OVERSIZED_BODY_DRAIN_BYTES: String(DRAIN_BYTES),
};
type Start = () => Promise<StackUnderTest>;
const MODES: Array<[string, Start]> = [
  ['distributed', () => startDistributedStack({ components: ['is', 'events'], env: ENV })],
  ['embedded', () => startEmbeddedStack({ env: ENV })],
];

interface CurlResult {
  exitCode: number;
  status?: number;
  body: string;
  stderr: string;
}

/** `curl -X POST --data-binary @file` with the given headers; the status from `-w`. */
function curlPost(url: string, file: string, headers: string[]): Promise<CurlResult> {
  const args = ['-sS', '-X', 'POST', '--data-binary', `@${file}`, '-w', '\n%{http_code}', ...headers.flatMap((h) => ['-H', h]), url];
  return new Promise((resolve) => {
    execFile('curl', args, { maxBuffer: 1024 * 1024 }, (err, stdout, stderr) => {
      const lines = stdout.split('\n');
      const status = Number(lines.pop());
      resolve({ exitCode: err ? Number((err as { code?: number }).code ?? 1) : 0, status: status || undefined, body: lines.join('\n'), stderr });
    });
  });
}

describe.each(MODES)('the HTTP edge against careless and abusive clients (%s)', (_mode, start) => {
  let stack: StackUnderTest;
  let port: number;
  let dir: string;
  const api = new Api(() => stack);
  const app = uid('ts-edge');
  const opened: Array<{ close(): void }> = [];

  beforeAll(async () => {
    stack = await start();
    port = Number(new URL(stack.baseUrl).port);
    dir = mkdtempSync(join(tmpdir(), 'ts-edge-'));
    await createApplications(api, [app]);
  });
  afterAll(async () => {
    for (const o of opened) o.close();
    await stack?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function raw(localAddress?: string): Promise<RawConnection> {
    const c = await RawConnection.open(port, localAddress);
    opened.push(c);
    return c;
  }

  /** A device creation body of about `bytes` bytes, written to a file for curl. */
  function bodyFile(name: string, bytes: number): string {
    const file = join(dir, name);
    writeFileSync(file, JSON.stringify({ end_device: { ids: { device_id: 'big' }, description: 'x'.repeat(bytes) } }));
    return file;
  }

  function expectTooLarge(status: number | undefined, body: string): void {
    expectTtsError(
      { status: status ?? 0, headers: new Headers({ 'content-type': 'application/json' }), text: body, json: JSON.parse(body), ms: 0 },
      413,
      3,
      'pkg/web',
      'request_too_large',
    );
  }

  it('refuses a cached key at the instant it expires, though AUTH_CACHE_TTL_MS is two minutes', async () => {
    const expiresAt = Date.now() + 3000;
    const created = await api.post(`/api/v3/applications/${app}/api-keys`, {
      name: 'expiring',
      rights: ['RIGHT_APPLICATION_INFO'],
      expires_at: new Date(expiresAt).toISOString(),
    });
    expectStatus(created, 200);
    const get = () => api.get(`/api/v3/applications/${app}`, { headers: { authorization: `Bearer ${created.json.key}` } });
    expectStatus(await get(), 200);
    await sleep(expiresAt - 700 - Date.now());
    expectStatus(await get(), 200);
    await sleep(expiresAt + 20 - Date.now());
    expectTtsError(await get(), 401, 16, 'pkg/identityserver', 'api_key_expired');
  });

  it('ends an event stream when its key expires, and at once when its key is deleted', async () => {
    const key = async (expiresAt?: number) => {
      const created = await api.post(`/api/v3/applications/${app}/api-keys`, {
        name: 'streaming',
        rights: ['RIGHT_APPLICATION_INFO', 'RIGHT_APPLICATION_TRAFFIC_READ'],
        ...(expiresAt ? { expires_at: new Date(expiresAt).toISOString() } : {}),
      });
      expectStatus(created, 200);
      return created.json as { id: string; key: string };
    };
    const follow = async (token: string) => {
      const stream = await EventStream.open(stack.baseUrl, {
        authorization: `Bearer ${token}`,
        body: { identifiers: [{ application_ids: { application_id: app } }] },
      });
      opened.push(stream);
      expect((await stream.nextEvent()).name).toBe('events.stream.start');
      return stream;
    };
    const endOf = async (stream: EventStream) => {
      await stream.whenEnded(5000);
      return (JSON.parse(stream.text.trim().split('\n').pop() as string) as { error?: { code: number; message: string } }).error;
    };

    const expiresAt = Date.now() + 3000;
    const expiring = await follow((await key(expiresAt)).key);
    const deleted = await key();
    const revoked = await follow(deleted.key);
    expectStatus(await api.delete(`/api/v3/applications/${app}/api-keys/${deleted.id}`), 200);
    const revokedEnd = await endOf(revoked);
    expect(revokedEnd).toMatchObject({ code: 16, message: expect.stringContaining('api_key_not_found') });
    // The expiring key's stream is untouched by another key's deletion, and ends when it expires.
    expect(expiring.ended).toBe(false);
    const expiredEnd = await endOf(expiring);
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAt);
    expect(expiredEnd).toMatchObject({ code: 16, message: expect.stringContaining('api_key_expired') });
  });

  it('cuts off a request body sent one byte every 250 ms with 408 within HTTP_REQUEST_TIMEOUT_MS', async () => {
    const c = await raw();
    c.write(
      `POST /api/v3/applications/${app}/devices HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${stack.adminKey}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{',
    );
    const trickle = setInterval(() => c.write(' '), 250);
    try {
      // Generous: the timeout, the server's check interval and a loaded machine.
      expect(await c.waitClosed(REQUEST_TIMEOUT_MS + 4000)).toBe(true);
    } finally {
      clearInterval(trickle);
    }
    expect((c.closedAt ?? 0) - c.openedAt).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 100);
    expect(c.received).toMatch(/^HTTP\/1\.1 408 /);
    expect(c.received).toMatch(/\r\n\r\n\{"code":4,"message":"client timeout"\}$/);
  });

  it('closes idle connections: one kept alive after its response, and one that never sends a request', async () => {
    const kept = await raw();
    kept.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    expect(await kept.response()).toBe(200);
    const answeredAt = Date.now();
    const silent = await raw();
    expect(await kept.waitClosed(IDLE_TIMEOUT_MS + 4000)).toBe(true);
    expect((kept.closedAt ?? 0) - answeredAt).toBeGreaterThanOrEqual(IDLE_TIMEOUT_MS - 100);
    expect(await silent.waitClosed(REQUEST_TIMEOUT_MS + 4000)).toBe(true);
  });

  it('keeps an event stream open past both timeouts: it still delivers', async () => {
    const stream = await EventStream.open(stack.baseUrl, {
      authorization: `Bearer ${stack.adminKey}`,
      body: { identifiers: [{ application_ids: { application_id: app } }], names: ['application.update'] },
    });
    opened.push(stream);
    expect(stream.status).toBe(200);
    expect((await stream.nextEvent()).name).toBe('events.stream.start');
    await sleep(REQUEST_TIMEOUT_MS + IDLE_TIMEOUT_MS + 1500);
    expectStatus(
      await api.put(`/api/v3/applications/${app}`, { application: { ids: { application_id: app }, name: 'still streaming' }, field_mask: { paths: ['name'] } }),
      200,
    );
    expect((await stream.nextEvent(5000)).name).toBe('application.update');
  });

  it('caps the connections of one address: one more is closed unanswered, another address is served, a freed slot is reused', async () => {
    const held: RawConnection[] = [];
    for (let i = 0; i < MAX_CONNECTIONS; i++) {
      const c = await raw('127.0.0.2');
      c.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      held.push(c);
    }
    for (const c of held) expect(await c.response()).toBe(200);
    const extra = await raw('127.0.0.2');
    extra.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    expect(await extra.waitClosed(2000)).toBe(true);
    expect(extra.received).toBe('');
    const other = await raw('127.0.0.3');
    other.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    expect(await other.response()).toBe(200);
    held[0].close();
    let served: number | undefined;
    for (let attempt = 0; attempt < 20 && served === undefined; attempt++) {
      await sleep(50);
      const again = await raw('127.0.0.2');
      again.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      served = await again.response(1000);
    }
    expect(served).toBe(200);
  });

  it('answers a body over the limit with a 413 that fetch reads: 2 and 12 MiB sent at once, 2 MiB streamed slowly; nothing stored', async () => {
    const dev = uid('ts-big');
    // 12 MiB is more than the loopback's socket buffers hold: the client is still writing when the server knows.
    for (const mib of [2, 2, 2, 2, 2, 12, 12, 12, 12, 12]) {
      const res = await api.post(`/api/v3/applications/${app}/devices`, {
        end_device: { ids: { device_id: dev }, description: 'x'.repeat(mib * 1024 * 1024) },
      });
      expectTtsError(res, 413, 3, 'pkg/web', 'request_too_large');
    }
    // Chunked, 64 KiB every 10 ms: the client is still sending when the limit is passed.
    for (let i = 0; i < 2; i++) {
      const chunk = new TextEncoder().encode('x'.repeat(64 * 1024));
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (sent === 0) controller.enqueue(new TextEncoder().encode(`{"end_device":{"ids":{"device_id":"${dev}"},"description":"`));
          await sleep(10);
          if (sent++ < 32) controller.enqueue(chunk);
          else {
            controller.enqueue(new TextEncoder().encode('"}}'));
            controller.close();
          }
        },
      });
      const res = await fetch(`${stack.baseUrl}/api/v3/applications/${app}/devices`, {
        method: 'POST',
        headers: { authorization: `Bearer ${stack.adminKey}`, 'content-type': 'application/json' },
        body,
        duplex: 'half',
      } as RequestInit);
      const text = await res.text();
      expectTtsError({ status: res.status, headers: res.headers, text, json: JSON.parse(text), ms: 0 }, 413, 3, 'pkg/web', 'request_too_large');
    }
    const near = await api.post(`/api/v3/applications/${app}/devices`, { end_device: { ids: { device_id: dev }, description: 'x'.repeat(1024 * 1024 - 200) } });
    expectTtsError(near, 413, 3, 'pkg/web', 'request_too_large');
    expectStatus(await api.get(`/api/v3/applications/${app}/devices/${dev}`), 404);
    expect(api.serverErrors).toEqual([]);
  });

  it.each([
    ['with Expect: 100-continue (answered before the body is sent)', ['Expect: 100-continue'], 12],
    ['without Expect (the body is read and discarded first)', ['Expect:'], 12],
    ['with Expect: 100-continue, a body beyond the drain bound', ['Expect: 100-continue'], 24],
  ])('answers curl’s oversized body %s with a 413 it reads, 3 times in a row', async (_what, headers, mib) => {
    const file = bodyFile(`body-${mib}-${headers[0].length}.json`, mib * 1024 * 1024);
    const url = `${stack.baseUrl}/api/v3/applications/${app}/devices`;
    for (let i = 0; i < 3; i++) {
      const res = await curlPost(url, file, [...headers, 'Content-Type: application/json', `Authorization: Bearer ${stack.adminKey}`]);
      expect({ exitCode: res.exitCode, stderr: res.stderr }).toEqual({ exitCode: 0, stderr: '' });
      expectTooLarge(res.status, res.body);
    }
  });
});
