import { readFile } from 'node:fs/promises';
import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { type FormatterConfig, STACK_CONFIG, type StackConfig } from '@lorawan/config';
import { formatterRuns, formatterWorkersReplaced } from '@lorawan/observability';
import { ApplicationFairQueue, QueueFullError } from './application-fair-queue';
import { ErrFormatterBusy, ErrFormatterSuspended, ErrOutput, scriptFailureError } from './formatter.errors';
import { RunawayBudget } from './runaway-budget';
import type { ScriptCall, ScriptFailureKind, ScriptOutcome, WorkerSetup } from './script-call';
import { ScriptWorker, type WorkerExit } from './script-worker';

/** QuickJS's stack limit in a run (the worker thread's own stack is 4 MiB). */
const STACK_BYTES = 512 * 1024;
/** How long the pool waits before it tries again to start a worker that failed to start. */
const RESTART_DELAY_MS = 1000;

/** The failures that count against an application's RunawayBudget: a run that met a limit (a script error does not). */
const RUNAWAYS: ReadonlySet<ScriptFailureKind> = new Set(['timeout', 'memory', 'stack', 'output_too_large', 'output_too_deep', 'interrupt']);

interface Job {
  call: ScriptCall;
  resolve: (outcome: ScriptOutcome) => void;
  reject: (err: Error) => void;
}

/**
 * Runs JavaScript payload formatters off the AS's event loop: `FORMATTER_WORKERS` worker threads,
 * each with QuickJS in a WebAssembly memory of at most `FORMATTER_MEMORY_LIMIT_MB` and a V8 heap
 * of its own (`WORKER_RESOURCE_LIMITS`), one call at a time per worker. Calls wait in an
 * ApplicationFairQueue: at most `FORMATTER_APP_CONCURRENCY` of one application run at once, the
 * applications take turns, and beyond `FORMATTER_APP_QUEUE` waiting calls of one application (or
 * `FORMATTER_QUEUE` in all) a call is refused with `formatter_busy`, so one application cannot
 * occupy the pool. An application whose runs met a limit `FORMATTER_APP_RUNAWAYS_PER_MIN` times in
 * a minute has its calls refused (`formatter_suspended`) for the rest of that minute
 * (RunawayBudget), so a script that runs away on every uplink cannot keep a CPU busy. A run gets
 * `FORMATTER_TIMEOUT_MS`; a worker that overruns it (a script that never yields), dies (its heap
 * limit) or whose sandbox is unsound after a run is terminated and replaced; the AS process is
 * never harmed.
 */
@Injectable()
export class FormatterWorkerPool implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('FormatterWorkerPool');
  private readonly config: FormatterConfig;
  private readonly queue: ApplicationFairQueue<Job>;
  private readonly runaways: RunawayBudget;
  private readonly workers = new Set<ScriptWorker>();
  private readonly idle: ScriptWorker[] = [];
  private started?: Promise<void>;
  private setup?: WorkerSetup;
  private closed = false;

  constructor(@Inject(STACK_CONFIG) config: Pick<StackConfig, 'formatters'>) {
    this.config = config.formatters;
    this.queue = new ApplicationFairQueue({
      perApplicationRunning: this.config.applicationConcurrency,
      perApplicationWaiting: this.config.applicationQueue,
      waiting: this.config.queue,
    });
    this.runaways = new RunawayBudget(this.config.applicationRunawaysPerMinute);
  }

  /** Starts the workers with the AS (a worker that cannot start stops the AS's start). */
  onModuleInit(): Promise<void> {
    return (this.started ??= this.start());
  }

  onModuleDestroy(): Promise<void> {
    return this.close();
  }

  /**
   * Runs `call` for `applicationId`: the entry's value (parsed JSON, undefined for `undefined`), or
   * throws the run's typed error (`script_timeout`, `script_memory`, …, `formatter_busy`,
   * `formatter_suspended`).
   */
  async run(applicationId: string, call: ScriptCall): Promise<unknown> {
    await (this.started ??= this.start());
    const outcome = await new Promise<ScriptOutcome>((resolve, reject) => {
      if (this.closed) return resolve({ ok: false, failure: { kind: 'interrupt', message: 'the Application Server is shutting down' } });
      const suspended = this.suspension(applicationId);
      if (suspended) {
        formatterRuns.inc({ result: 'suspended' });
        return reject(suspended);
      }
      try {
        this.queue.push(applicationId, { call, resolve, reject });
      } catch (err) {
        if (!(err instanceof QueueFullError)) throw err;
        formatterRuns.inc({ result: 'busy' });
        throw ErrFormatterBusy.with({ application_id: applicationId, reason: err.message });
      }
      this.dispatch();
    });
    formatterRuns.inc({ result: outcome.ok ? 'ok' : outcome.failure.kind });
    if (outcome.ok) return parsedOutput(outcome.output);
    if (RUNAWAYS.has(outcome.failure.kind) && !this.closed) this.runaways.record(applicationId, Date.now());
    throw scriptFailureError(outcome.failure, this.config);
  }

  /** Terminates the workers; waiting calls fail with `script_interrupt`. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.drain()) job.resolve({ ok: false, failure: { kind: 'interrupt', message: 'the Application Server is shutting down' } });
    this.idle.length = 0;
    await Promise.all([...this.workers].map((w) => w.terminate()));
    this.workers.clear();
  }

  private async start(): Promise<void> {
    const wasm = await readFile(require.resolve('@jitl/quickjs-wasmfile-release-sync/wasm'));
    this.setup = {
      limits: {
        timeoutMs: this.config.timeoutMs,
        memoryBytes: this.config.memoryLimitBytes,
        stackBytes: STACK_BYTES,
        maxOutputBytes: this.config.maxOutputBytes,
        maxOutputDepth: this.config.maxOutputDepth,
      },
      wasmModule: await WebAssembly.compile(wasm),
      nice: this.config.nice,
    };
    const setup = this.setup;
    const started = await Promise.all(Array.from({ length: this.config.workers }, () => ScriptWorker.start(setup, (w, exit) => this.exited(w, exit))));
    for (const worker of started) this.add(worker);
  }

  /** `formatter_suspended` while the application's RunawayBudget is spent, else undefined. */
  private suspension(applicationId: string): Error | undefined {
    const now = Date.now();
    const until = this.runaways.suspendedUntil(applicationId, now);
    if (until === undefined) return undefined;
    const seconds = Math.ceil((until - now) / 1000);
    return ErrFormatterSuspended.with({ application_id: applicationId, seconds, runaways: this.config.applicationRunawaysPerMinute });
  }

  /** Hands waiting calls to idle workers, the applications in turn (calls of an application suspended meanwhile are refused). */
  private dispatch(): void {
    while (this.idle.length > 0) {
      const next = this.queue.take();
      if (!next) return;
      const suspended = this.suspension(next.application);
      if (suspended) {
        this.queue.finished(next.application);
        formatterRuns.inc({ result: 'suspended' });
        next.job.reject(suspended);
        continue;
      }
      const worker = this.idle.pop() as ScriptWorker;
      void worker.run(next.job.call).then((outcome) => {
        this.queue.finished(next.application);
        if (worker.alive && !this.closed) this.idle.push(worker);
        next.job.resolve(outcome);
        this.dispatch();
      });
    }
  }

  private add(worker: ScriptWorker): void {
    if (this.closed) {
      void worker.terminate();
      return;
    }
    this.workers.add(worker);
    this.idle.push(worker);
    this.dispatch();
  }

  private exited(worker: ScriptWorker, exit: WorkerExit): void {
    this.workers.delete(worker);
    const i = this.idle.indexOf(worker);
    if (i >= 0) this.idle.splice(i, 1);
    if (this.closed) return;
    this.logger.warn({ reason: exit.reason, failure: exit.kind }, 'formatter worker stopped; starting a new one');
    formatterWorkersReplaced.inc();
    this.replace();
  }

  private replace(): void {
    if (this.closed) return;
    const setup = this.setup as WorkerSetup;
    ScriptWorker.start(setup, (w, exit) => this.exited(w, exit)).then(
      (worker) => this.add(worker),
      (err: unknown) => {
        this.logger.error({ error: (err as Error).message }, 'a formatter worker failed to start; trying again');
        setTimeout(() => this.replace(), RESTART_DELAY_MS).unref();
      },
    );
  }
}

/**
 * The result's JSON text parsed (bounded in size and depth by the worker); a script that replaced
 * the built-ins the sandbox writes it with may have made it invalid.
 */
function parsedOutput(output: string | undefined): unknown {
  if (output === undefined) return undefined;
  try {
    return JSON.parse(output) as unknown;
  } catch {
    throw ErrOutput.with({ reason: 'the result is not JSON' });
  }
}
