import { AdmissionQueue, type Refusal } from './admission-queue';

class Refused extends Error {
  constructor(readonly reason: Refusal) {
    super(reason);
  }
}
const refused = (reason: Refusal) => new Refused(reason);

/** A task that ends when `end()` is called. */
function gate() {
  let end!: () => void;
  const done = new Promise<void>((resolve) => (end = resolve));
  return { task: () => done, end };
}

describe('AdmissionQueue', () => {
  let now = 1000;
  const clock = () => now;

  it('runs at most `concurrency` tasks at once, the others in arrival order', async () => {
    const queue = new AdmissionQueue({ concurrency: 2, now: clock });
    const order: number[] = [];
    const gates = [gate(), gate(), gate(), gate()];
    const runs = gates.map((g, i) => queue.run(now + 10_000, () => (order.push(i), g.task()), refused));
    await Promise.resolve();
    expect(order).toEqual([0, 1]);
    expect(queue.queued).toBe(2);
    gates[1].end();
    await runs[1];
    expect(order).toEqual([0, 1, 2]);
    gates[0].end();
    gates[2].end();
    gates[3].end();
    await Promise.all(runs);
    expect(order).toEqual([0, 1, 2, 3]);
    expect(queue.queued).toBe(0);
  });

  it('refuses at the door, without running it, a task whose deadline has passed (too_late)', async () => {
    const queue = new AdmissionQueue({ concurrency: 1, now: clock });
    let ran = false;
    await expect(queue.run(now - 1, async () => (ran = true), refused)).rejects.toMatchObject({ reason: 'too_late' });
    expect(ran).toBe(false);
  });

  it('refuses at the door a task the queue ahead of it would take past its deadline (overloaded), at the pace the tasks took', async () => {
    now = 1000;
    const queue = new AdmissionQueue({ concurrency: 1, initialServiceMs: 100, now: clock });
    const first = gate();
    const running = queue.run(now + 10_000, first.task, refused);
    // One running, none waiting: the next waits one task's time (100 ms), so a deadline 150 ms away is met, 50 ms is not.
    await expect(queue.run(now + 50, async () => 'x', refused)).rejects.toMatchObject({ reason: 'overloaded' });
    const admitted = queue.run(now + 150, async () => 'admitted', refused);
    // Now one waits: the next would wait two tasks' time.
    await expect(queue.run(now + 150, async () => 'x', refused)).rejects.toMatchObject({ reason: 'overloaded' });
    first.end();
    await running;
    await expect(admitted).resolves.toBe('admitted');
  });

  it('refuses a waiting task whose deadline passed before its turn came (too_late), and gives the slot to the next', async () => {
    now = 1000;
    const queue = new AdmissionQueue({ concurrency: 1, initialServiceMs: 1, now: clock });
    const first = gate();
    const running = queue.run(now + 10_000, first.task, refused);
    let ranLate = false;
    const late = queue.run(now + 20, async () => (ranLate = true), refused);
    const next = queue.run(now + 10_000, async () => 'next', refused);
    now += 50;
    first.end();
    await running;
    await expect(late).rejects.toMatchObject({ reason: 'too_late' });
    expect(ranLate).toBe(false);
    await expect(next).resolves.toBe('next');
  });

  it('learns the pace from the tasks it runs (a moving average of their time in a slot)', async () => {
    now = 0;
    const queue = new AdmissionQueue({ concurrency: 1, initialServiceMs: 10, now: clock });
    for (let i = 0; i < 200; i++) {
      await queue.run(now + 10_000, async () => void (now += 50), refused);
    }
    expect(queue.averageServiceMs).toBeGreaterThan(49);
    expect(queue.averageServiceMs).toBeLessThanOrEqual(50);
  });

  it('frees the slot of a task that failed', async () => {
    const queue = new AdmissionQueue({ concurrency: 1, now: clock });
    await expect(queue.run(now + 10_000, async () => Promise.reject(new Error('boom')), refused)).rejects.toThrow('boom');
    await expect(queue.run(now + 10_000, async () => 'after', refused)).resolves.toBe('after');
  });
});
