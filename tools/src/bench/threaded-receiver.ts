import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { LOOP_LAG_INTERVAL_MS, type ReceivedDelivery } from './receiver-worker';

export type { ReceivedDelivery } from './receiver-worker';

/**
 * The bench's webhook endpoint in a thread of its own (`receiver-worker.ts`): a real HTTP server
 * on a loopback port answering 200 at once, as a fast application server would. In the main
 * thread, whose event loop sends the frames and falls up to a second behind under a burst, the
 * endpoint answered in ~70 ms on average and timed each delivery when the main thread got to it;
 * here it answers and notes the time as soon as its own thread has the request. `onRequest` sees
 * each request (what the bench reads of it) in the main thread, in batches.
 */
/** Per-second event-loop reports kept (an hour). */
const MAX_LOOP_LAGS = 3600;

export class ThreadedWebhookReceiver {
  private worker?: Worker;
  private port = 0;
  /** Each second, the longest delay of the thread's event loop (ms) and when it was reported. */
  private readonly loopLags: Array<{ at: number; maxMs: number }> = [];
  onRequest?: (req: ReceivedDelivery) => void;

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    const worker = new Worker(join(__dirname, 'receiver-worker.js'));
    this.worker = worker;
    this.port = await new Promise<number>((res, rej) => {
      worker.once('error', rej);
      worker.on('message', (msg: { port?: number; deliveries?: ReceivedDelivery[]; loopLag?: { at: number; maxMs: number } }) => {
        if (msg.port !== undefined) res(msg.port);
        if (msg.loopLag && this.loopLags.push(msg.loopLag) > MAX_LOOP_LAGS) this.loopLags.shift();
        for (const delivery of msg.deliveries ?? []) this.onRequest?.(delivery);
      });
    });
    return this;
  }

  /**
   * The receiver thread's longest event-loop delay (ms, rounded) in each second from `from` to `to`
   * (Unix ms): when the endpoint itself could not take requests, the deliveries' lateness is its own.
   */
  loopLagPerSecond(from: number, to: number): number[] {
    const seconds = Math.ceil((to - from) / 1000);
    const out = Array.from({ length: Math.max(0, seconds) }, () => 0);
    for (const { at, maxMs } of this.loopLags) {
      // A report covers the interval before it.
      const second = Math.floor((at - LOOP_LAG_INTERVAL_MS / 2 - from) / 1000);
      if (second >= 0 && second < out.length) out[second] = Math.max(out[second], Math.round(maxMs));
    }
    return out;
  }

  async stop(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
  }
}
