import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { ReceivedDelivery } from './receiver-worker';

export type { ReceivedDelivery } from './receiver-worker';

/**
 * The bench's webhook endpoint in a thread of its own (`receiver-worker.ts`): a real HTTP server
 * on a loopback port answering 200 at once, as a fast application server would. In the main
 * thread, whose event loop sends the frames and falls up to a second behind under a burst, the
 * endpoint answered in ~70 ms on average and timed each delivery when the main thread got to it;
 * here it answers and notes the time as soon as its own thread has the request. `onRequest` sees
 * each request (what the bench reads of it) in the main thread, in batches.
 */
export class ThreadedWebhookReceiver {
  private worker?: Worker;
  private port = 0;
  onRequest?: (req: ReceivedDelivery) => void;

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    const worker = new Worker(join(__dirname, 'receiver-worker.js'));
    this.worker = worker;
    this.port = await new Promise<number>((res, rej) => {
      worker.once('error', rej);
      worker.on('message', (msg: { port?: number; deliveries?: ReceivedDelivery[] }) => {
        if (msg.port !== undefined) res(msg.port);
        for (const delivery of msg.deliveries ?? []) this.onRequest?.(delivery);
      });
    });
    return this;
  }

  async stop(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
  }
}
