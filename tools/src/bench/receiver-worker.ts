import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parentPort } from 'node:worker_threads';
import { WebhookReceiver } from '@lorawan/testing';

/**
 * The body of `ThreadedWebhookReceiver`'s worker thread: the tests' `WebhookReceiver` (a loopback
 * HTTP server answering 200 at once), of whose requests only what the bench reads is kept (the
 * device, the FCnt and the components' receive times) and posted to the main thread in batches.
 * The main thread sends the frames: its event loop falls behind under a burst, and an endpoint in
 * it would answer late and time the deliveries late with it.
 */
export interface ReceivedDelivery {
  url: string;
  /** Date.now() when the request's body was complete, in the receiver's thread. */
  at: number;
  json?: {
    end_device_ids?: { device_id?: string };
    received_at?: string;
    uplink_message?: { f_cnt?: number; received_at?: string; rx_metadata?: Array<{ received_at?: string }> };
  };
}

/** How often the batch of received requests goes to the main thread. */
const POST_INTERVAL_MS = 20;
/** How often the thread reports the longest delay of its event loop since the last report. */
export const LOOP_LAG_INTERVAL_MS = 1000;

/** What the bench reads of an ApplicationUp. */
function reduce(up: ReceivedDelivery['json']): ReceivedDelivery['json'] {
  const message = up?.uplink_message;
  return {
    end_device_ids: { device_id: up?.end_device_ids?.device_id },
    received_at: up?.received_at,
    uplink_message: message && {
      f_cnt: message.f_cnt,
      received_at: message.received_at,
      rx_metadata: message.rx_metadata?.map((md) => ({ received_at: md.received_at })),
    },
  };
}

if (parentPort) {
  const port = parentPort;
  let batch: ReceivedDelivery[] = [];
  setInterval(() => {
    if (batch.length === 0) return;
    port.postMessage({ deliveries: batch });
    batch = [];
  }, POST_INTERVAL_MS);
  // The endpoint's own stalls (the machine's two cores are shared with the whole stack): a request it
  // takes late makes the AS's delivery late, and the endpoint's, not the stack's.
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  setInterval(() => {
    port.postMessage({ loopLag: { at: Date.now(), maxMs: delay.max / 1e6 } });
    delay.reset();
  }, LOOP_LAG_INTERVAL_MS);
  const receiver = new WebhookReceiver();
  receiver.onRequest = (req) => {
    // The receiver keeps every request; the thread keeps what the bench reads.
    receiver.requests.length = 0;
    batch.push({ url: req.url, at: req.at, ...(req.json === undefined ? {} : { json: reduce(req.json) }) });
  };
  // The thread ends when the main thread terminates it.
  void receiver.start().then(() => port.postMessage({ port: Number(new URL(receiver.url).port) }));
}
