import { InProcessBroker } from '@lorawan/transport';
import { HealthService } from './health.service';

describe('HealthService', () => {
  it('is ready while the transport and every indicator answer, and not once shutting down', async () => {
    const broker = new InProcessBroker();
    const health = new HealthService(broker);
    let database = true;
    health.register({ name: 'database', isHealthy: async () => database });
    expect(await health.check()).toEqual({ status: 'ok', checks: { transport: 'ok', database: 'ok' } });
    database = false;
    expect(await health.check()).toEqual({ status: 'unavailable', checks: { transport: 'ok', database: 'unavailable' } });
    database = true;
    health.beginShutdown();
    expect(await health.check()).toEqual({ status: 'unavailable', checks: { transport: 'ok', database: 'ok', shutdown: 'unavailable' } });
  });

  it('counts a check that throws or hangs as failed, without hanging the probe', async () => {
    jest.useFakeTimers();
    try {
      const health = new HealthService(new InProcessBroker());
      health.register({ name: 'broken', isHealthy: async () => Promise.reject(new Error('boom')) });
      health.register({ name: 'hung', isHealthy: () => new Promise<boolean>(() => undefined) });
      const report = health.check();
      await jest.advanceTimersByTimeAsync(2500);
      expect(await report).toEqual({ status: 'unavailable', checks: { transport: 'ok', broken: 'unavailable', hung: 'unavailable' } });
    } finally {
      jest.useRealTimers();
    }
  });
});
