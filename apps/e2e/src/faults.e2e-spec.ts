/**
 * Faults injected into the distributed stack's dependencies, on private servers (never the
 * machine's shared MariaDB and NATS): the answers clients get while a dependency is away, and how
 * soon the stack serves again once it is back.
 */
import { type PrivateService, startDistributedStack, startPrivateMariaDb, startPrivateNats, type StackUnderTest } from '@lorawan/testing';
import { Api, createApplications, expectStatus, expectTtsError, sleep } from './http-client';

const device = (id: string) => ({ end_device: { ids: { device_id: id }, name: id } });

/** Calls `attempt` every 50 ms until it answers `status`; the milliseconds that took. */
async function until(attempt: () => Promise<{ status: number }>, status: number, limitMs: number): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < limitMs) {
    if ((await attempt()).status === status) return Date.now() - started;
    await sleep(50);
  }
  throw new Error(`no ${status} within ${limitMs} ms`);
}

describe('the Identity Server’s database goes away (private MariaDB)', () => {
  let db: PrivateService;
  let stack: StackUnderTest;
  const api = new Api(() => stack);
  const app = 'fault-db-app';

  beforeAll(async () => {
    db = await startPrivateMariaDb();
    stack = await startDistributedStack({ mysqlUrl: db.url, env: { RPC_TIMEOUT_MS: '5000' } });
    await createApplications(api, [app]);
    expectStatus(await api.post(`/api/v3/applications/${app}/devices`, device('before')), 200);
  });
  afterAll(async () => {
    await stack?.stop();
    await db?.stop();
  });

  it('answers 503 Unavailable (code 14), never 500, while the database is down; stores nothing; serves again once it is back', async () => {
    await db.kill();
    const write = await api.post(`/api/v3/applications/${app}/devices`, device('during'));
    expectTtsError(write, 503, 14, 'pkg/util/store', 'database_unavailable', { component: 'is' });
    expect(write.ms).toBeLessThan(3000);
    expectTtsError(await api.get(`/api/v3/applications/${app}/devices/before`), 503, 14, 'pkg/util/store', 'database_unavailable');
    expectTtsError(
      await api.put(`/api/v3/applications/${app}/devices/before`, { end_device: { ids: { device_id: 'before' }, name: 'x' }, field_mask: { paths: ['name'] } }),
      503,
      14,
      'pkg/util/store',
      'database_unavailable',
    );
    // Readiness says so too (the gateway's: the IS answers its health check with the database down).
    expect((await fetch(`${stack.baseUrl}/readyz`)).status).toBe(503);
    expect((await fetch(`http://127.0.0.1:${stack.healthPorts.get('is#0')}/readyz`)).status).toBe(503);

    await db.start();
    const recovered = await until(() => api.get(`/api/v3/applications/${app}/devices/before`), 200, 5000);
    expect(recovered).toBeLessThan(2000);
    console.info(`database back: first 200 after ${recovered} ms`);
    expectStatus(await api.get(`/api/v3/applications/${app}/devices/during`), 404);
    expectStatus(await api.post(`/api/v3/applications/${app}/devices`, device('after')), 200);
    expect(api.serverErrors.filter((e) => !/ 503 /.test(e))).toEqual([]);
    // The logs name the cause, without the statement's parameters.
    expect(stack.logsOf('is#0')).toMatch(/"msg":"database unavailable"/);
  });
});

describe('NATS restarts (private NATS)', () => {
  let nats: PrivateService;
  let stack: StackUnderTest;
  const api = new Api(() => stack);
  const app = 'fault-nats-app';
  const get = () => api.get(`/api/v3/applications/${app}/devices/dev-1?field_mask=name`);

  beforeAll(async () => {
    nats = await startPrivateNats();
    stack = await startDistributedStack({ natsUrl: nats.url, env: { RPC_TIMEOUT_MS: '10000', LOG_LEVEL: 'info' } });
    await createApplications(api, [app]);
    expectStatus(await api.post(`/api/v3/applications/${app}/devices`, device('dev-1')), 200);
  });
  afterAll(async () => {
    await stack?.stop();
    await nats?.stop();
  });

  it('answers 503 at once while the broker is away, and serves again within about a second of it coming back', async () => {
    expectStatus(await get(), 200);
    await nats.kill();
    await sleep(200);
    for (let i = 0; i < 5; i++) {
      const res = await get();
      expectTtsError(res, 503, 14, 'pkg/rpc', 'unavailable');
      expect(res.ms).toBeLessThan(1000);
    }
    // A new API key (not in the gateway's cache) during the outage: its lookup fails at once too, and is not remembered.
    const fresh = await api.get(`/api/v3/applications/${app}`, { headers: { authorization: `Bearer NNSXS.${'A'.repeat(39)}.${'B'.repeat(52)}` } });
    expect(fresh.status).toBe(503);
    expect((await fetch(`${stack.baseUrl}/readyz`)).status).toBe(503);

    await nats.start();
    const recovered = await until(get, 200, 10000);
    expect(recovered).toBeLessThan(1500);
    console.info(`NATS back: first 200 after ${recovered} ms`);
    for (let i = 0; i < 10; i++) expectStatus(await get(), 200);
    expect(await until(() => fetch(`${stack.baseUrl}/readyz`), 200, 3000)).toBeLessThan(3000);
    const unknown = await api.get(`/api/v3/applications/${app}`, { headers: { authorization: `Bearer NNSXS.${'A'.repeat(39)}.${'B'.repeat(52)}` } });
    expect(unknown.status).toBe(401);
    // Every process logged the loss and the recovery.
    for (const name of ['gateway', 'is#0']) {
      expect(stack.logsOf(name)).toMatch(/lost the connection to NATS/);
      expect(stack.logsOf(name)).toMatch(/reconnected to NATS/);
    }
  });
});
