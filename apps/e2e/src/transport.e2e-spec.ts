/**
 * The NATS transport in distributed mode: two IS replicas share the load (queue group), the stack
 * keeps serving when one dies, and answers 503 Unavailable at once (no hang until the RPC
 * timeout) when none is left.
 */
import { readFileSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { startDistributedStack, type StackUnderTest } from '@lorawan/testing';
import { Api, expectStatus, expectTtsError, sleep } from './http-client';

/** Bytes a process has read and written through syscalls (sockets included): its I/O activity. */
function ioBytes(child: ChildProcess): number {
  const io = readFileSync(`/proc/${child.pid}/io`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(io)?.[1] ?? 0);
  return field('rchar') + field('wchar');
}

async function killAndWait(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((res) => child.once('exit', () => res()));
  child.kill('SIGKILL');
  await exited;
  // The NATS server drops the dead connection's subscriptions when it sees the socket close.
  await sleep(300);
}

describe('NATS transport (distributed, 2 IS replicas)', () => {
  let stack: StackUnderTest;
  const api = new Api(() => stack);
  const app = 'replica-app';
  const get = (dev: string) => api.get(`/api/v3/applications/${app}/devices/${dev}?field_mask=name`);

  beforeAll(async () => {
    // A long RPC timeout: a request that hangs instead of failing fast would show.
    stack = await startDistributedStack({ replicas: 2, env: { RPC_TIMEOUT_MS: '10000' } });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it('runs two IS processes', () => {
    expect([...stack.processes.keys()].sort()).toEqual(['gateway', 'is#0', 'is#1']);
  });

  it('both replicas receive requests', async () => {
    const replicas = [stack.processes.get('is#0')!, stack.processes.get('is#1')!];
    const created = await api.post(`/api/v3/applications/${app}/devices`, { end_device: { ids: { device_id: 'dev-shared' }, name: 'Shared' } });
    expectStatus(created, 200);

    // Idle activity of each replica over a quiet period, as the baseline.
    let base = replicas.map(ioBytes);
    await sleep(500);
    const idle = replicas.map((r, i) => ioBytes(r) - base[i]);

    base = replicas.map(ioBytes);
    for (let i = 0; i < 40; i++) {
      const res = await get('dev-shared');
      expectStatus(res, 200);
      expect(res.json.name).toBe('Shared');
    }
    const busy = replicas.map((r, i) => ioBytes(r) - base[i]);
    // 40 requests over a random queue group: each replica serves ~20 (a database round trip
    // and a NATS request/reply each, several hundred bytes). Each must have done real work.
    for (let i = 0; i < 2; i++) expect(busy[i]).toBeGreaterThan(idle[i] + 2000);
  });

  it('keeps serving when one replica is killed', async () => {
    await killAndWait(stack.processes.get('is#0')!);
    for (let i = 0; i < 20; i++) {
      const res = await get('dev-shared');
      expectStatus(res, 200);
    }
    const created = await api.post(`/api/v3/applications/${app}/devices`, { end_device: { ids: { device_id: 'dev-after-kill' } } });
    expectStatus(created, 200);
    expectStatus(await get('dev-after-kill'), 200);
  });

  it('answers 503 Unavailable (code 14) at once when no replica is left', async () => {
    await killAndWait(stack.processes.get('is#1')!);
    for (let i = 0; i < 3; i++) {
      const started = Date.now();
      const res = await get('dev-shared');
      const elapsed = Date.now() - started;
      expectStatus(res, 503);
      expect(res.json.code).toBe(14);
      expectTtsError(res, 503, 14, res.json.details[0].namespace, res.json.details[0].name);
      expect(elapsed).toBeLessThan(2000);
    }
    const ready = await api.get('/readyz', { headers: {} });
    expectStatus(ready, 503);
    const health = await api.get('/healthz', { headers: {} });
    expectStatus(health, 200);
  });
});
