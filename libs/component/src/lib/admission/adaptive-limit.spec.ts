import { AdaptiveLimit } from './adaptive-limit';

describe('AdaptiveLimit', () => {
  it('starts at its maximum and refuses a place beyond the limit', () => {
    const limit = new AdaptiveLimit({ min: 1, max: 3 });
    expect([1, 2, 3, 4].map(() => limit.tryAcquire())).toEqual([true, true, true, false]);
    expect(limit.inFlight).toBe(3);
    limit.release('answered');
    expect(limit.tryAcquire()).toBe(true);
  });

  it('lowers the limit by its backoff on each overloaded answer, never below the minimum, and raises it by about one per limit answered calls', () => {
    const limit = new AdaptiveLimit({ min: 4, max: 100, backoff: 0.5, decreaseIntervalMs: 0, now: () => 0 });
    for (let i = 0; i < 3; i++) {
      limit.tryAcquire();
      limit.release('overloaded');
    }
    expect(limit.current).toBe(12); // 100 → 50 → 25 → 12.5
    for (let i = 0; i < 10; i++) {
      limit.tryAcquire();
      limit.release('overloaded');
    }
    expect(limit.current).toBe(4);
    for (let i = 0; i < 4; i++) {
      limit.tryAcquire();
      limit.release('answered');
    }
    expect(limit.current).toBe(4); // 4 + 4 × ~1/4, just under 5
    for (let i = 0; i < 6; i++) {
      limit.tryAcquire();
      limit.release('answered');
    }
    expect(limit.current).toBe(6); // 10 answers from 4: ≈ 6.08
    // A call that got no answer says nothing about load.
    limit.tryAcquire();
    limit.release('failed');
    expect(limit.current).toBe(6);
    expect(limit.inFlight).toBe(0);
  });

  it('lowers the limit at most once per decrease interval: the refusals of one congested moment count once', () => {
    let now = 0;
    const limit = new AdaptiveLimit({ min: 1, max: 100, backoff: 0.5, decreaseIntervalMs: 100, now: () => now });
    for (let i = 0; i < 10; i++) {
      limit.tryAcquire();
      limit.release('overloaded');
    }
    expect(limit.current).toBe(50);
    now += 99;
    limit.tryAcquire();
    limit.release('overloaded');
    expect(limit.current).toBe(50);
    now += 1;
    limit.tryAcquire();
    limit.release('overloaded');
    expect(limit.current).toBe(25);
  });

  it('never rises above its maximum', () => {
    const limit = new AdaptiveLimit({ min: 1, max: 2 });
    for (let i = 0; i < 100; i++) {
      limit.tryAcquire();
      limit.release('answered');
    }
    expect(limit.current).toBe(2);
  });
});
