import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { ScriptCall, ScriptFailure, ScriptOutcome, ScriptResponse, WorkerReady, WorkerSetup } from './script-call';

/** How long past a run's time limit the AS waits for its answer before it terminates the worker (the script never yielded to QuickJS's interrupt check). */
export const TERMINATE_GRACE_MS = 250;

/**
 * V8 limits of a worker thread: its own heap (the worker's JavaScript: messages, quickjs-emscripten's
 * glue; the script's heap is QuickJS's WebAssembly memory, bounded apart) and its stack, which holds
 * QuickJS's 512 KiB stack limit with room to spare. A worker over its heap limit dies alone.
 */
export const WORKER_RESOURCE_LIMITS = { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 8, codeRangeSizeMb: 16, stackSizeMb: 4 };

/**
 * The worker's main: `formatter.worker.js` beside this file (dist/). Run from the TypeScript sources
 * (jest), the worker compiles `formatter.worker.ts` and its imports with SWC on load, as jest does
 * for the rest (the worker does not run under jest's module system).
 */
function workerMain(): { script: string; eval: boolean } {
  if (!__filename.endsWith('.ts')) return { script: join(__dirname, 'formatter.worker.js'), eval: false };
  const source = join(__dirname, 'formatter.worker.ts');
  const options = JSON.stringify({ jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } });
  const script = `
    const { readFileSync } = require('node:fs');
    const { transformSync } = require('@swc/core');
    require.extensions['.ts'] = (module, filename) =>
      module._compile(transformSync(readFileSync(filename, 'utf8'), { ...${options}, filename }).code, filename);
    require(${JSON.stringify(source)});`;
  return { script, eval: true };
}

/** Why a worker stopped serving: the failure of the run it was on, if any. */
export type WorkerExit = ScriptFailure & { reason: string };

/**
 * The AS's side of one formatter worker thread: starts it, sends it one call at a time and
 * enforces the time limit from outside. A run not answered `TERMINATE_GRACE_MS` after its limit is
 * a script that never yielded: the thread is terminated and the run fails with `timeout`. A thread
 * that dies (its V8 heap limit, a fatal run) fails its run and is not used again; the pool replaces it.
 */
export class ScriptWorker {
  private pending?: { id: number; resolve: (outcome: ScriptOutcome) => void; timer: NodeJS.Timeout };
  private nextId = 1;
  private exited?: WorkerExit;

  private constructor(
    private readonly thread: Worker,
    private readonly timeoutMs: number,
    private readonly onExit: (worker: ScriptWorker, exit: WorkerExit) => void,
  ) {
    thread.on('message', (response: ScriptResponse) => this.answered(response));
    thread.on('error', (err: Error & { code?: string }) =>
      this.stop(
        err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? { kind: 'memory', reason: err.message } : { kind: 'interrupt', message: err.message, reason: err.message },
      ),
    );
    thread.on('exit', (code) => this.stop({ kind: 'interrupt', message: 'the formatter worker exited', reason: `exit code ${code}` }));
  }

  /** A new worker, once QuickJS is loaded in it; rejects when it cannot start. */
  static start(setup: WorkerSetup, onExit: (worker: ScriptWorker, exit: WorkerExit) => void): Promise<ScriptWorker> {
    const main = workerMain();
    const thread = new Worker(main.script, { eval: main.eval, workerData: setup, resourceLimits: WORKER_RESOURCE_LIMITS, stdout: false, stderr: false });
    thread.unref();
    return new Promise((resolve, reject) => {
      const failed = (err: Error) => reject(err);
      const exited = (code: number) => reject(new Error(`the formatter worker exited with code ${code} while starting`));
      thread.once('error', failed);
      thread.once('exit', exited);
      thread.once('message', (message: WorkerReady) => {
        thread.off('error', failed);
        thread.off('exit', exited);
        if (message.ready) resolve(new ScriptWorker(thread, setup.limits.timeoutMs, onExit));
        else reject(new Error('the formatter worker did not start'));
      });
    });
  }

  get alive(): boolean {
    return this.exited === undefined;
  }

  /** Runs one call (the worker runs one at a time: call again only once this one is answered). */
  run(call: ScriptCall): Promise<ScriptOutcome> {
    if (this.exited) return Promise.resolve({ ok: false, failure: { kind: this.exited.kind, message: this.exited.message } });
    if (this.pending) throw new Error('ScriptWorker.run while a run is pending');
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.stop({ kind: 'timeout', reason: 'no answer within the time limit' }), this.timeoutMs + TERMINATE_GRACE_MS);
      this.pending = { id, resolve, timer };
      this.thread.postMessage({ id, call });
    });
  }

  /** Terminates the thread (shutdown); a pending run fails with `interrupt`. */
  async terminate(): Promise<void> {
    this.stop({ kind: 'interrupt', message: 'the Application Server is shutting down', reason: 'shutdown' }, false);
    await this.thread.terminate();
  }

  private answered(response: ScriptResponse): void {
    const pending = this.pending;
    if (!pending || pending.id !== response.id) return;
    this.pending = undefined;
    clearTimeout(pending.timer);
    pending.resolve(response.outcome);
    if (response.fatal) this.stop({ kind: 'interrupt', reason: 'the sandbox is unsound after a run' });
  }

  /** Marks the worker gone (once), fails its pending run with `exit`'s failure and terminates the thread. */
  private stop(exit: WorkerExit, notify = true): void {
    if (this.exited) return;
    this.exited = exit;
    const pending = this.pending;
    this.pending = undefined;
    if (pending) {
      clearTimeout(pending.timer);
      pending.resolve({ ok: false, failure: { kind: exit.kind, ...(exit.message ? { message: exit.message } : {}) } });
    }
    void this.thread.terminate();
    if (notify) this.onExit(this, exit);
  }
}
