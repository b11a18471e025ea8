import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parentPort } from 'node:worker_threads';

/**
 * The body of `ThreadedWebhookReceiver`'s worker thread: an HTTP server on a loopback port that
 * answers every request 200 at once, notes when its body was complete and keeps of it only what
 * the bench reads (the device, the FCnt and the components' receive times), and posts those to the
 * main thread in batches. The main thread sends the frames: its event loop falls behind under a
 * burst, and an endpoint in it would answer late and time the deliveries late with it.
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

function reduce(url: string, at: number, text: string): ReceivedDelivery {
  try {
    const up = JSON.parse(text) as ReceivedDelivery['json'] & { uplink_message?: { rx_metadata?: Array<{ received_at?: string }> } };
    const message = up?.uplink_message;
    return {
      url,
      at,
      json: {
        end_device_ids: { device_id: up?.end_device_ids?.device_id },
        received_at: up?.received_at,
        uplink_message: message && {
          f_cnt: message.f_cnt,
          received_at: message.received_at,
          rx_metadata: message.rx_metadata?.map((md) => ({ received_at: md.received_at })),
        },
      },
    };
  } catch {
    return { url, at };
  }
}

if (parentPort) {
  const port = parentPort;
  let batch: ReceivedDelivery[] = [];
  setInterval(() => {
    if (batch.length === 0) return;
    port.postMessage({ deliveries: batch });
    batch = [];
  }, POST_INTERVAL_MS);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      batch.push(reduce(req.url ?? '', Date.now(), Buffer.concat(chunks).toString('utf8')));
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  server.keepAliveTimeout = 60_000;
  // The thread ends when the main thread terminates it.
  server.listen(0, '127.0.0.1', () => port.postMessage({ port: (server.address() as AddressInfo).port }));
}
