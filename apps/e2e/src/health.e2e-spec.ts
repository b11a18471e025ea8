import { startDistributedStack, type StackUnderTest } from '@lorawan/testing';

/** Kubernetes probes of a component process: /healthz (alive) and /readyz (transport + its database). */
describe('component health endpoints (HEALTH_PORT)', () => {
  let stack: StackUnderTest;
  let healthPort: number;
  beforeAll(async () => {
    stack = await startDistributedStack();
    healthPort = stack.healthPorts.get('is#0') ?? 0;
  });
  afterAll(async () => stack?.stop());

  it('answers liveness and readiness with the checks it made, without authentication', async () => {
    const live = await fetch(`http://127.0.0.1:${healthPort}/healthz`);
    expect(live.status).toBe(200);
    const ready = await fetch(`http://127.0.0.1:${healthPort}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ok', checks: { transport: 'ok', database: 'ok' } });
  });

  it('answers 404 in the TTS shape for other paths', async () => {
    const res = await fetch(`http://127.0.0.1:${healthPort}/api/v3/applications`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ code: 5, message: 'Not Found' });
  });

  it('the gateway is ready only while the IS answers', async () => {
    expect((await fetch(`${stack.baseUrl}/readyz`)).status).toBe(200);
    stack.processes.get('is#0')?.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, 200));
    const ready = await fetch(`${stack.baseUrl}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ status: 'unavailable', checks: { transport: 'ok', is: 'unavailable' } });
  });
});
