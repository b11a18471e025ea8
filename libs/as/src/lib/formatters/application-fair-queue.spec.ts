import { ApplicationFairQueue, QueueFullError } from './application-fair-queue';

const takeAll = (queue: ApplicationFairQueue<string>) => {
  const taken: string[] = [];
  for (let next = queue.take(); next; next = queue.take()) taken.push(next.job);
  return taken;
};

describe('ApplicationFairQueue', () => {
  it('takes the applications in turn, whatever the order their jobs came in', () => {
    const queue = new ApplicationFairQueue<string>({ perApplicationRunning: 10, perApplicationWaiting: 10, waiting: 100 });
    for (const job of ['a1', 'a2', 'a3', 'a4', 'b1', 'c1', 'b2']) queue.push(job[0], job);
    expect(takeAll(queue)).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3', 'a4']);
    expect(queue.size).toBe(0);
  });

  it('runs at most perApplicationRunning jobs of an application; the others go on meanwhile', () => {
    const queue = new ApplicationFairQueue<string>({ perApplicationRunning: 1, perApplicationWaiting: 10, waiting: 100 });
    for (const job of ['a1', 'a2', 'a3', 'b1', 'b2']) queue.push(job[0], job);
    expect(takeAll(queue)).toEqual(['a1', 'b1']);
    queue.finished('a');
    expect(takeAll(queue)).toEqual(['a2']);
    queue.finished('b');
    queue.finished('a');
    expect(takeAll(queue)).toEqual(['b2', 'a3']);
  });

  it('refuses a job beyond its application’s waiting bound, or beyond the total, and keeps the others', () => {
    const queue = new ApplicationFairQueue<string>({ perApplicationRunning: 1, perApplicationWaiting: 2, waiting: 3 });
    queue.push('a', 'a1');
    queue.push('a', 'a2');
    expect(() => queue.push('a', 'a3')).toThrow(new QueueFullError('application', 2));
    queue.push('b', 'b1');
    expect(() => queue.push('c', 'c1')).toThrow(new QueueFullError('total', 3));
    expect(queue.size).toBe(3);
    // Running jobs do not wait: once taken, their places are free.
    expect(takeAll(queue)).toEqual(['a1', 'b1']);
    queue.push('c', 'c1');
    queue.push('a', 'a3');
    expect(() => queue.push('a', 'a4')).toThrow(QueueFullError);
  });

  it('drains every waiting job', () => {
    const queue = new ApplicationFairQueue<string>({ perApplicationRunning: 1, perApplicationWaiting: 5, waiting: 5 });
    for (const job of ['a1', 'a2', 'b1']) queue.push(job[0], job);
    expect(queue.drain().sort()).toEqual(['a1', 'a2', 'b1']);
    expect([queue.size, queue.take()]).toEqual([0, undefined]);
  });
});
