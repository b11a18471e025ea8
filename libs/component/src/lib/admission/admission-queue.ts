/** Why an admission queue refused a task. */
export type Refusal =
  /** It could not start before its deadline, judging by the queue ahead of it and the recent pace. */
  | 'overloaded'
  /** Its deadline had passed when it arrived, or when its turn came. */
  | 'too_late';

export interface AdmissionOptions {
  /** Tasks running at once. */
  concurrency: number;
  /** What a task is first assumed to take (ms), before any was measured. */
  initialServiceMs?: number;
  now?: () => number;
}

/** The weight of the latest task in the moving average of task durations. */
const SERVICE_EWMA_WEIGHT = 0.05;

interface Waiting {
  deadline: number;
  start: () => void;
  refuse: (reason: Refusal) => void;
}

/**
 * Bounded work with deadlines, for the stages of the data plane (a Network Server's uplinks and
 * join-requests): at most `concurrency` tasks run, the others wait in arrival order, and a task
 * that cannot start before its deadline is refused at once, before any of its work is done,
 * instead of waiting its turn to find out:
 *
 * - at the door, when its deadline has passed (`too_late`) or when the wait ahead of it (the
 *   tasks queued before it, at the pace the recent tasks took) would take it past its deadline
 *   (`overloaded`);
 * - when its turn comes, if its deadline passed meanwhile (`too_late`): the slot goes to the next.
 *
 * Under more load than it can take, the queue stays as short as the deadlines allow and the work
 * that is done is done in time (its goodput stays near its capacity), rather than every task
 * waiting longer and longer and finishing too late (a collapse). A refusal costs a comparison.
 */
export class AdmissionQueue {
  private running = 0;
  private readonly waiting: Waiting[] = [];
  private head = 0;
  private serviceMs: number;
  private readonly now: () => number;

  constructor(private readonly o: AdmissionOptions) {
    this.serviceMs = o.initialServiceMs ?? 10;
    this.now = o.now ?? Date.now;
  }

  /** Tasks waiting for a slot. */
  get queued(): number {
    return this.waiting.length - this.head;
  }

  /** The moving average of what a task took (ms), from the start of its slot to its end. */
  get averageServiceMs(): number {
    return this.serviceMs;
  }

  /**
   * Runs `task` once a slot is free, if that is before `deadline` (ms since the epoch, as
   * `Date.now()`); else rejects with `refused(reason)`'s error, without running it.
   */
  async run<T>(deadline: number, task: () => Promise<T>, refused: (reason: Refusal) => Error): Promise<T> {
    const now = this.now();
    if (now > deadline) throw refused('too_late');
    if (this.running >= this.o.concurrency) {
      // The tasks ahead, `concurrency` at a time, at the recent pace.
      const wait = ((this.queued + 1) * this.serviceMs) / this.o.concurrency;
      if (now + wait > deadline) throw refused('overloaded');
      await new Promise<void>((start, reject) => this.waiting.push({ deadline, start, refuse: (reason) => reject(refused(reason)) }));
    } else this.running++;
    const started = this.now();
    try {
      return await task();
    } finally {
      const took = this.now() - started;
      this.serviceMs += SERVICE_EWMA_WEIGHT * (took - this.serviceMs);
      this.next();
    }
  }

  /** The slot of a finished task goes to the next waiting task still in time (the running count stays), else it is freed. */
  private next(): void {
    const now = this.now();
    while (this.head < this.waiting.length) {
      const waiting = this.waiting[this.head];
      this.head++;
      this.compact();
      if (now > waiting.deadline) {
        waiting.refuse('too_late');
        continue;
      }
      waiting.start();
      return;
    }
    this.running--;
  }

  /** Drops the taken entries once they are half the array (a queue without an O(n) shift per task). */
  private compact(): void {
    if (this.head > 1024 && this.head * 2 > this.waiting.length) {
      this.waiting.splice(0, this.head);
      this.head = 0;
    }
  }
}
