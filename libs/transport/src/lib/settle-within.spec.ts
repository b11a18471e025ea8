import { settleWithin } from './settle-within';

describe('settleWithin', () => {
  it('is what the promise resolves to when it settles in time', async () => {
    await expect(settleWithin(Promise.resolve('done'), 1000, 'fallback')).resolves.toBe('done');
  });

  it('is the fallback when the promise rejects', async () => {
    await expect(settleWithin(Promise.reject(new Error('broker away')), 1000, 'fallback')).resolves.toBe('fallback');
  });

  it('is the fallback when the promise hangs, and leaves no timer behind either way', async () => {
    jest.useFakeTimers();
    try {
      const hung = settleWithin(new Promise<string>(() => undefined), 50, 'fallback');
      jest.advanceTimersByTime(50);
      await expect(hung).resolves.toBe('fallback');
      await settleWithin(Promise.resolve('done'), 50, 'fallback');
      expect(jest.getTimerCount()).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });
});
