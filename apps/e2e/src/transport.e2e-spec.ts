/**
 * The NATS transport in distributed mode: two IS replicas share the load (queue group), the stack
 * keeps serving when one dies, and answers 503 Unavailable at once (no hang until the RPC
 * timeout) when none is left.
 */
import type { ChildProcess } from 'node:child_process';
import { startDistributedStack, type StackUnderTest } from '@lorawan/testing';
import { Api, createApplications, expectStatus, expectTtsError, sleep } from './http-client';

async function killAndWait(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((res) => child.once('exit', () => res()));
  child.kill('SIGKILL');
  await exited;
  // The NATS server drops the dead connection's subscriptions when it sees the socket close.
  await sleep(300);
}

/** Long enough that a request hanging instead of failing fast would show. */
const RPC_TIMEOUT_MS = 5000;

describe('NATS transport (distributed, 2 IS replicas)', () => {
  let stack: StackUnderTest;
  const api = new Api(() => stack);
  const app = 'replica-app';
  const replica = (name: string): ChildProcess => {
    const child = stack.processes.get(name);
    if (!child) throw new Error(`no process ${name}`);
    return child;
  };
  const get = (dev: string) => api.get(`/api/v3/applications/${app}/devices/${dev}?field_mask=name`);

  beforeAll(async () => {
    stack = await startDistributedStack({ replicas: 2, env: { RPC_TIMEOUT_MS: String(RPC_TIMEOUT_MS) } });
    await createApplications(api, [app]);
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('runs two IS processes', () => {
    expect([...stack.processes.keys()].sort()).toEqual(['gateway', 'is#0', 'is#1']);
  });

  it('both replicas receive requests (queue group load sharing)', async () => {
    const created = await api.post(`/api/v3/applications/${app}/devices`, { end_device: { ids: { device_id: 'dev-shared' }, name: 'Shared' } });
    expectStatus(created, 200);
    for (let i = 0; i < 10; i++) expectStatus(await get('dev-shared'), 200);

    // Freeze is#0 (its NATS connection stays open, so it stays in the queue group): requests
    // routed to it time out, requests routed to is#1 succeed. Both outcomes must occur.
    const frozen = replica('is#0');
    frozen.kill('SIGSTOP');
    let results: Awaited<ReturnType<typeof get>>[];
    try {
      results = await Promise.all(Array.from({ length: 16 }, () => get('dev-shared')));
    } finally {
      frozen.kill('SIGCONT');
    }
    const served = results.filter((r) => r.status === 200);
    const timedOut = results.filter((r) => r.status === 504);
    expect(served.length + timedOut.length).toBe(results.length);
    expect(served.length).toBeGreaterThan(0);
    expect(timedOut.length).toBeGreaterThan(0);
    served.forEach((r) => expect(r.json.name).toBe('Shared'));
    for (const r of timedOut) {
      expect(r.json.code).toBe(4);
      expectTtsError(r, 504, 4, r.json.details[0].namespace, r.json.details[0].name);
      expect(r.ms).toBeGreaterThanOrEqual(RPC_TIMEOUT_MS - 100);
    }

    // Thawed, is#0 serves again: all requests succeed.
    await sleep(200);
    const again = await Promise.all(Array.from({ length: 16 }, () => get('dev-shared')));
    again.forEach((r) => expectStatus(r, 200));
  });

  it('keeps serving when one replica is killed', async () => {
    await killAndWait(replica('is#0'));
    for (let i = 0; i < 20; i++) {
      const res = await get('dev-shared');
      expectStatus(res, 200);
    }
    const created = await api.post(`/api/v3/applications/${app}/devices`, { end_device: { ids: { device_id: 'dev-after-kill' } } });
    expectStatus(created, 200);
    expectStatus(await get('dev-after-kill'), 200);
  });

  it('answers 503 Unavailable (code 14) at once when no replica is left', async () => {
    await killAndWait(replica('is#1'));
    for (let i = 0; i < 3; i++) {
      const started = Date.now();
      const res = await get('dev-shared');
      const elapsed = Date.now() - started;
      expectStatus(res, 503);
      expect(res.json.code).toBe(14);
      expectTtsError(res, 503, 14, res.json.details[0].namespace, res.json.details[0].name);
      expect(elapsed).toBeLessThan(Math.min(2000, RPC_TIMEOUT_MS / 4));
    }
    const ready = await api.get('/readyz', { headers: {} });
    expectStatus(ready, 503);
    const health = await api.get('/healthz', { headers: {} });
    expectStatus(health, 200);
  });
});
