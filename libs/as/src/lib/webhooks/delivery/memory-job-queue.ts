import { ErrQueueFull } from './delivery.errors';
import type { JobMessage, WebhookJob, WebhookJobQueue } from './webhook-job';

/** Jobs the in-memory queue holds at most (about 1–2 KiB each): beyond, new messages are refused. */
export const MEMORY_QUEUE_MAX_JOBS = 100_000;

/**
 * Embedded mode: the delivery queue in this process's memory, with the JetStream queue's
 * behaviour (in-flight bound, nak with a delay, ack) so the worker cannot tell them apart. Jobs
 * do not survive a restart: embedded mode has no broker to keep them. It holds at most `maxJobs`:
 * while an endpoint is down for long under heavy traffic, new messages are refused
 * (`queue_full`, ResourceExhausted) rather than the process running out of memory.
 */
export class MemoryJobQueue implements WebhookJobQueue {
  private ready: WebhookJob[] = [];
  private head = 0;
  private unsettled = 0;
  private readonly delayed = new Set<NodeJS.Timeout>();
  private handler?: (message: JobMessage) => void;
  private pumping = false;

  constructor(
    private readonly maxInFlight: number,
    private readonly maxJobs = MEMORY_QUEUE_MAX_JOBS,
  ) {}

  async enqueue(jobs: WebhookJob[]): Promise<void> {
    if (this.size + jobs.length > this.maxJobs) throw ErrQueueFull.with({ max_jobs: this.maxJobs });
    for (const job of jobs) this.ready.push(job);
    this.schedulePump();
  }

  start(handler: (message: JobMessage) => void): void {
    this.handler = handler;
    this.schedulePump();
  }

  async stop(): Promise<void> {
    this.handler = undefined;
  }

  async close(): Promise<void> {
    this.handler = undefined;
    for (const timer of this.delayed) clearTimeout(timer);
    this.delayed.clear();
  }

  /** Jobs not done yet: ready, handed out, or waiting out a delay. */
  get size(): number {
    return this.ready.length - this.head + this.unsettled + this.delayed.size;
  }

  async healthy(): Promise<boolean> {
    return true;
  }

  async depth(): Promise<number> {
    return this.size;
  }

  private schedulePump(): void {
    if (this.pumping || !this.handler) return;
    this.pumping = true;
    setImmediate(() => {
      this.pumping = false;
      this.pump();
    });
  }

  private pump(): void {
    while (this.handler && this.unsettled < this.maxInFlight && this.head < this.ready.length) {
      const job = this.ready[this.head++];
      this.unsettled++;
      this.handler(this.message(job));
    }
    if (this.head > 1024 && this.head * 2 > this.ready.length) {
      this.ready = this.ready.slice(this.head);
      this.head = 0;
    }
  }

  private message(job: WebhookJob): JobMessage {
    let settled = false;
    const settle = () => {
      if (settled) return false;
      settled = true;
      this.unsettled--;
      this.schedulePump();
      return true;
    };
    return {
      job,
      ack: () => void settle(),
      nak: (delayMs) => {
        if (!settle()) return;
        const timer = setTimeout(
          () => {
            this.delayed.delete(timer);
            this.ready.push(job);
            this.schedulePump();
          },
          Math.max(0, delayMs),
        );
        this.delayed.add(timer);
      },
      working: () => undefined,
    };
  }
}
