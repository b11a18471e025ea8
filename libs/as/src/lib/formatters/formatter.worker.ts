/**
 * The main of a formatter worker thread (started by FormatterWorkerPool): loads QuickJS with the
 * worker's limits, says it is ready, then runs the calls it is sent, one at a time, answering each
 * with its outcome. Imports nothing but Node, quickjs-emscripten and its own folder, so that it
 * loads from dist/ as from the TypeScript sources.
 */
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { QuickJsSandbox } from './quickjs-sandbox';
import type { ScriptRequest, ScriptResponse, WorkerReady, WorkerSetup } from './script-call';

async function main(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('formatter.worker runs as a worker thread');
  const setup = workerData as WorkerSetup;
  // On Linux the nice value is the calling thread's: this lowers the worker's, not the AS's.
  if (setup.nice > 0 && process.platform === 'linux') setPriority(0, setup.nice);
  const sandbox = await QuickJsSandbox.load(setup.limits, setup.wasmModule);
  port.on('message', (request: ScriptRequest) => {
    const { outcome, fatal } = sandbox.run(request.call);
    port.postMessage({ id: request.id, outcome, ...(fatal ? { fatal } : {}) } satisfies ScriptResponse);
  });
  port.postMessage({ ready: true } satisfies WorkerReady);
}

void main();
