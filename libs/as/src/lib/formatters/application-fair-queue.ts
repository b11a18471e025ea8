/** The bounds of an ApplicationFairQueue. */
export interface FairQueueLimits {
  /** Jobs of one application running at once. */
  perApplicationRunning: number;
  /** Jobs of one application waiting at once. */
  perApplicationWaiting: number;
  /** Jobs waiting at once, all applications together. */
  waiting: number;
}

/** Why a job was refused: which waiting bound it would pass. */
export class QueueFullError extends Error {
  constructor(
    readonly bound: 'application' | 'total',
    readonly limit: number,
  ) {
    super(bound === 'application' ? `at most ${limit} calls of one application may wait` : `at most ${limit} calls may wait`);
  }
}

/**
 * Jobs waiting for a worker, per application: each application runs at most
 * `perApplicationRunning` jobs at once, and the next job to run is taken from the applications in
 * turn (round robin), so an application with many jobs waiting cannot hold up the others. Waiting
 * is bounded per application and in all; a job beyond a bound is refused at once.
 */
export class ApplicationFairQueue<J> {
  /** Waiting jobs by application, in turn order (an application served moves to the end). */
  private readonly waitingJobs = new Map<string, J[]>();
  private readonly running = new Map<string, number>();
  private waitingCount = 0;

  constructor(private readonly limits: FairQueueLimits) {}

  get size(): number {
    return this.waitingCount;
  }

  /** Queues `job` of `application`; throws QueueFullError beyond a waiting bound. */
  push(application: string, job: J): void {
    const jobs = this.waitingJobs.get(application) ?? [];
    if (jobs.length >= this.limits.perApplicationWaiting) throw new QueueFullError('application', this.limits.perApplicationWaiting);
    if (this.waitingCount >= this.limits.waiting) throw new QueueFullError('total', this.limits.waiting);
    jobs.push(job);
    this.waitingJobs.set(application, jobs);
    this.waitingCount++;
  }

  /** The next job that may run (counted as running until `finished`), or undefined when none may. */
  take(): { application: string; job: J } | undefined {
    for (const [application, jobs] of this.waitingJobs) {
      if ((this.running.get(application) ?? 0) >= this.limits.perApplicationRunning) continue;
      const job = jobs.shift() as J;
      this.waitingCount--;
      this.waitingJobs.delete(application);
      if (jobs.length > 0) this.waitingJobs.set(application, jobs);
      this.running.set(application, (this.running.get(application) ?? 0) + 1);
      return { application, job };
    }
    return undefined;
  }

  /** A job of `application` that `take` gave has finished. */
  finished(application: string): void {
    const n = (this.running.get(application) ?? 0) - 1;
    if (n > 0) this.running.set(application, n);
    else this.running.delete(application);
  }

  /** Removes and returns every waiting job (shutdown). */
  drain(): J[] {
    const jobs = [...this.waitingJobs.values()].flat();
    this.waitingJobs.clear();
    this.waitingCount = 0;
    return jobs;
  }
}
