/**
 * What operators rely on, end to end in both run modes: Prometheus metrics on the gateway and on
 * every component's HEALTH_PORT, JSON log lines that carry the request's X-Request-Id in the
 * gateway and in the component that served it, one access line per request (never a secret),
 * no secret in any log line at debug level, a body larger than the transport carries refused with
 * 413 at the edge, and a graceful shutdown: a replica receiving SIGTERM under load fails nothing.
 */
import { randomBytes } from 'node:crypto';
import { startDistributedStack, startEmbeddedStack, type StackUnderTest } from '@lorawan/testing';
import { abpAsDevice, abpNsDevice, randomDevAddr, randomEui, randomKey, uid } from './devices';
import { Api, createApplications, expectStatus, expectTtsError, sleep } from './http-client';

type Start = () => Promise<StackUnderTest>;
const COMPONENTS = ['is', 'js', 'ns', 'as', 'events'] as const;
const ENV = { LOG_LEVEL: 'debug', LOG_FORMAT: 'json' };
const MODES: Array<[string, Start]> = [
  ['distributed', () => startDistributedStack({ components: [...COMPONENTS], env: ENV })],
  ['embedded', () => startEmbeddedStack({ env: ENV })],
];

type LogLine = Record<string, unknown> & { level?: string; msg?: string };

/** The JSON lines of a process's output (other output, such as Nest's start banner, is not JSON: there is none). */
function jsonLines(output: string): LogLine[] {
  return output
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      try {
        return JSON.parse(l) as LogLine;
      } catch {
        throw new Error(`a log line that is not JSON: ${l.slice(0, 300)}`);
      }
    });
}

describe.each(MODES)('operations (%s)', (mode, start) => {
  let stack: StackUnderTest;
  const api = new Api(() => stack);
  const app = uid('ops-app');
  const secrets: string[] = [];

  beforeAll(async () => {
    stack = await start();
    await createApplications(api, [app]);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const processes = () => (mode === 'distributed' ? ['gateway', ...COMPONENTS.map((c) => `${c}#0`)] : ['stack']);

  it('serves Prometheus metrics on the gateway: HTTP requests by route, method and status, RPCs by result, process metrics', async () => {
    expectStatus(await api.get(`/api/v3/applications/${app}`), 200);
    expectStatus(await api.get(`/api/v3/applications/${app}/devices/nobody`), 404);
    const res = await fetch(`${stack.baseUrl}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).toMatch(
      /^lorawan_http_requests_total\{method="GET",route="\/api\/v3\/applications\/\{application_ids\.application_id\}",status="200"\} [1-9]/m,
    );
    expect(text).toMatch(
      /^lorawan_http_requests_total\{method="GET",route="\/api\/v3\/applications\/\{end_device_ids\.application_ids\.application_id\}\/devices\/\{end_device_ids\.device_id\}",status="404"\} [1-9]/m,
    );
    expect(text).toMatch(/^lorawan_http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="[^"]+",status="200"\} \d+/m);
    expect(text).toMatch(/^lorawan_rpc_client_handled_total\{component="is",rpc="EndDeviceRegistry\.Get",code="NotFound"\} [1-9]/m);
    expect(text).toMatch(/^process_cpu_seconds_total \d/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
    if (mode === 'embedded') expect(text).toMatch(/^lorawan_rpc_server_handled_total\{component="is",rpc="ApplicationRegistry\.Get",code="OK"\} [1-9]/m);
  });

  it('serves Prometheus metrics on every component’s operations port: RPCs by name and result code, its own metrics', async () => {
    if (mode === 'embedded') return expect(stack.healthPorts.size).toBe(0); // one process: the gateway's port has them all
    const expected: Record<string, RegExp[]> = {
      is: [
        /^lorawan_rpc_server_handled_total\{component="is",rpc="ApplicationRegistry\.Get",code="OK"\} [1-9]/m,
        /^lorawan_rpc_server_handling_seconds_count\{component="is",rpc="EntityAccess\.Authorize"\} [1-9]/m,
      ],
      js: [/^# TYPE lorawan_rpc_server_handled_total counter/m, /^lorawan_rpc_server_in_flight\{component="js"\} 0$/m],
      ns: [/^# TYPE lorawan_rpc_server_handling_seconds histogram/m],
      as: [/^# TYPE lorawan_webhook_deliveries_total counter/m, /^lorawan_webhook_queue_depth \d+/m],
      events: [/^lorawan_events_received_total \d+/m, /^# TYPE lorawan_event_streams_open gauge/m],
    };
    for (const c of COMPONENTS) {
      const res = await fetch(`http://127.0.0.1:${stack.healthPorts.get(`${c}#0`)}/metrics`);
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
      expect(text).toMatch(/^lorawan_nats_connected 1/m);
      for (const pattern of expected[c]) expect(text).toMatch(pattern);
    }
  });

  it('names every metric by Prometheus conventions (namespace, base units, _total counters)', async () => {
    const texts = [await (await fetch(`${stack.baseUrl}/metrics`)).text()];
    for (const port of stack.healthPorts.values()) texts.push(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text());
    for (const text of texts) {
      for (const [, name, type] of text.matchAll(/^# TYPE (lorawan_\w+) (\w+)$/gm)) {
        if (type === 'counter') expect(name).toMatch(/_total$/);
        if (type === 'histogram') expect(name).toMatch(/_seconds$/);
        expect(name).toMatch(/^lorawan_[a-z_]+$/);
      }
    }
  });

  it('a request’s X-Request-Id is on its lines in the gateway and in the component that served it, each with the RPC and component', async () => {
    const requestId = `ops-${randomBytes(6).toString('hex')}`;
    const res = await api.get(`/api/v3/applications/${app}?field_mask=name`, { extraHeaders: { 'x-request-id': requestId } });
    expectStatus(res, 200);
    expect(res.headers.get('x-request-id')).toBe(requestId);
    await sleep(200); // the lines reach the test through the processes' pipes
    const gatewayLines = jsonLines(stack.logsOf(mode === 'distributed' ? 'gateway' : 'stack')).filter((l) => l.request_id === requestId);
    const access = gatewayLines.find((l) => l.msg === 'request');
    expect(access).toMatchObject({
      level: 'info',
      context: 'Access',
      method: 'GET',
      route: '/api/v3/applications/{application_ids.application_id}',
      status: 200,
      api_key_id: expect.any(String),
    });
    expect(typeof access?.duration_ms).toBe('number');
    const componentLines = jsonLines(stack.logsOf(mode === 'distributed' ? 'is#0' : 'stack')).filter((l) => l.request_id === requestId && l.component === 'is');
    expect(componentLines.length).toBeGreaterThan(0);
    for (const line of componentLines) expect(line).toMatchObject({ rpc: 'ApplicationRegistry.Get', component: 'is' });
    // The gateway's credential lookup for it was served by the IS too, under the same request ID.
    const lookups = jsonLines(stack.logsOf(mode === 'distributed' ? 'is#0' : 'stack')).filter(
      (l) => l.request_id === requestId && l.rpc === 'EntityAccess.Authorize',
    );
    expect(lookups.length + componentLines.length).toBeGreaterThan(0);
  });

  it('writes every log line as JSON with a level, a time and a message', () => {
    for (const name of processes()) {
      const lines = jsonLines(stack.logsOf(name));
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines) {
        expect(line.level).toMatch(/^(trace|debug|info|warn|error|fatal)$/);
        expect(typeof line.time).toBe('string');
        expect(typeof line.msg).toBe('string');
      }
    }
  });

  it('logs no secret at any level: API key secrets, root and session keys, webhook header values, the Authorization header', async () => {
    const dev = uid('ops-dev');
    const ids = { device_id: dev, application_ids: { application_id: app }, dev_eui: randomEui(), join_eui: randomEui() };
    const key = await api.post(`/api/v3/applications/${app}/api-keys`, { name: 'ops', rights: ['RIGHT_APPLICATION_ALL'] });
    expectStatus(key, 200);
    const token = key.json.key as string;
    secrets.push(token.split('.')[2], token);
    const authorized = await api.get(`/api/v3/applications/${app}`, { headers: { authorization: `Bearer ${token}` } });
    expectStatus(authorized, 200);
    const appKey = randomKey();
    const nwkKey = randomKey();
    const fNwk = randomKey();
    const appS = randomKey();
    secrets.push(appKey, nwkKey, fNwk, appS, stack.adminKey);
    expectStatus(await api.post(`/api/v3/applications/${app}/devices`, { end_device: { ids } }), 200);
    expectStatus(
      await api.put(`/api/v3/js/applications/${app}/devices/${dev}`, {
        end_device: { ids, root_keys: { app_key: { key: appKey }, nwk_key: { key: nwkKey } } },
        field_mask: { paths: ['root_keys.app_key.key', 'root_keys.nwk_key.key'] },
      }),
      200,
    );
    const devAddr = randomDevAddr();
    const ns = abpNsDevice({ ...ids }, devAddr, fNwk);
    expectStatus(await api.put(`/api/v3/ns/applications/${app}/devices/${dev}`, { end_device: ns.device, field_mask: { paths: ns.paths } }), 200);
    const as = abpAsDevice({ ...ids }, devAddr, appS);
    expectStatus(await api.put(`/api/v3/as/applications/${app}/devices/${dev}`, { end_device: as.device, field_mask: { paths: as.paths } }), 200);
    expectStatus(await api.get(`/api/v3/ns/applications/${app}/devices/${dev}?field_mask=session`), 200);
    const headerValue = `Bearer wh-${randomBytes(12).toString('hex')}`;
    secrets.push(headerValue);
    expectStatus(
      await api.put(`/api/v3/as/webhooks/${app}/ops-wh`, {
        webhook: { base_url: 'https://example.com/hook', headers: { Authorization: headerValue }, uplink_message: { path: '/up' } },
        field_mask: { paths: ['base_url', 'headers', 'uplink_message'] },
      }),
      200,
    );
    // Reads that return the keys, and failures that log.
    expectStatus(await api.get(`/api/v3/js/applications/${app}/devices/${dev}?field_mask=root_keys`), 200);
    expectStatus(await api.get(`/api/v3/as/webhooks/${app}/ops-wh?field_mask=headers`), 200);
    expectStatus(await api.get(`/api/v3/applications/${app}`, { headers: { authorization: `Bearer ${token.slice(0, -4)}AAAA` } }), 401);
    await sleep(300);
    const logs = stack.logs();
    expect(logs).toContain('"level":"debug"'); // the processes did log at debug level
    for (const secret of secrets) {
      expect(logs).not.toContain(secret);
      expect(logs.toLowerCase()).not.toContain(secret.toLowerCase());
    }
    expect(logs).not.toMatch(/"authorization"/i);
  });

  it('refuses a body larger than the transport carries with 413 at the edge, storing nothing', async () => {
    const dev = uid('ops-big');
    const body = { end_device: { ids: { device_id: dev }, description: 'x'.repeat(2 * 1024 * 1024) } };
    const res = await api.post(`/api/v3/applications/${app}/devices`, body);
    expectTtsError(res, 413, 3, 'pkg/web', 'request_too_large');
    expectStatus(await api.get(`/api/v3/applications/${app}/devices/${dev}`), 404);
    // Just under 1 MiB (the default NATS max_payload) still is too much once the request's context is added: refused the same way.
    const near = await api.post(`/api/v3/applications/${app}/devices`, { end_device: { ids: { device_id: dev }, description: 'x'.repeat(1024 * 1024 - 200) } });
    expectTtsError(near, 413, 3, 'pkg/web', 'request_too_large');
    expect(api.serverErrors).toEqual([]);
  });
});

describe('graceful shutdown (distributed, 2 IS replicas)', () => {
  let stack: StackUnderTest;
  const api = new Api(() => stack);
  const app = uid('ops-drain');

  beforeAll(async () => {
    stack = await startDistributedStack({ replicas: 2, env: { SHUTDOWN_GRACE_MS: '5000', LOG_LEVEL: 'info' } });
    await createApplications(api, [app]);
    expectStatus(await api.post(`/api/v3/applications/${app}/devices`, { end_device: { ids: { device_id: 'dev-1' }, name: 'One' } }), 200);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('a replica receiving SIGTERM under load fails no request: it drains what it got, the other replica takes the rest', async () => {
    const statuses = new Map<number, number>();
    let stop = false;
    let sent = 0;
    const client = async (n: number) => {
      while (!stop) {
        sent++;
        const res =
          n % 2 === 0
            ? await api.get(`/api/v3/applications/${app}/devices/dev-1?field_mask=name`)
            : await api.put(`/api/v3/applications/${app}/devices/dev-1`, {
                end_device: { ids: { device_id: 'dev-1' }, description: `n${sent}` },
                field_mask: { paths: ['description'] },
              });
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      }
    };
    const clients = Array.from({ length: 16 }, (_, i) => client(i));
    await sleep(1000);
    const terminating = stack.processes.get('is#0');
    if (!terminating) throw new Error('no is#0');
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      terminating.once('exit', (code, signal) => resolve({ code, signal })),
    );
    const sentBefore = sent;
    terminating.kill('SIGTERM');
    const exit = await exited;
    await sleep(1000);
    stop = true;
    await Promise.all(clients);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(sentBefore).toBeGreaterThan(50);
    expect(sent - sentBefore).toBeGreaterThan(50);
    expect(Object.fromEntries(statuses)).toEqual({ 200: sent });
    expect(stack.logsOf('is#0')).toMatch(/SIGTERM received, shutting down/);
  });
});
