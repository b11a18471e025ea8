import { WorkSlots } from './work-slots';

describe('WorkSlots', () => {
  it('runs at most `size` tasks at once, the others in arrival order, and frees the slot of a task that throws', async () => {
    const slots = new WorkSlots(2);
    let running = 0;
    let most = 0;
    const order: number[] = [];
    const task = (i: number) => async () => {
      running++;
      most = Math.max(most, running);
      order.push(i);
      await new Promise((r) => setTimeout(r, 5));
      running--;
      if (i === 1) throw new Error('boom');
      return i;
    };
    const results = await Promise.allSettled([0, 1, 2, 3, 4].map((i) => slots.run(task(i))));
    expect(most).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled']);
    expect(slots.queued).toBe(0);
    expect(await slots.run(async () => 'free')).toBe('free');
  });
});
