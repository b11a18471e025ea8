import http from 'node:http';
import { log, round } from './load';

/**
 * `events`: how long an event takes from the registry write that causes it returning to the
 * client, to its arrival at a stream subscriber (`POST /api/v3/events`), with 1 and with many open
 * streams, and how many events per second the stack publishes and delivers.
 */

interface Stream {
  /** Arrival times of events by the request ID in their correlation IDs. */
  arrivals: Map<string, number>;
  received: number;
  close(): void;
}

const CORRELATION = /^rpc:\/ttn\.lorawan\.v3\.EndDeviceRegistry\/(?:Create|Update):(.+)$/;

/** Opens a stream on the application and resolves once its `events.stream.start` arrived. */
function openStream(baseUrl: string, auth: Record<string, string>, applicationId: string, agent: http.Agent): Promise<Stream> {
  const url = new URL('/api/v3/events', baseUrl);
  const body = JSON.stringify({ identifiers: [{ application_ids: { application_id: applicationId } }], names: ['end_device.create', 'end_device.update'] });
  return new Promise((resolve, reject) => {
    const stream: Stream = { arrivals: new Map(), received: 0, close: () => req.destroy() };
    let started = false;
    let buffer = '';
    const req = http.request(
      url,
      { method: 'POST', agent, headers: { ...auth, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          reject(new Error(`POST /api/v3/events: HTTP ${res.statusCode}`));
          return;
        }
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          const now = performance.now();
          buffer += chunk;
          let nl: number;
          while ((nl = buffer.indexOf('\n')) >= 0) {
            const line = buffer.slice(0, nl).trim();
            buffer = buffer.slice(nl + 1);
            if (!line) continue;
            const event = (JSON.parse(line) as { result?: { name: string; correlation_ids?: string[] } }).result;
            if (!event) continue;
            if (!started) {
              started = event.name === 'events.stream.start';
              if (started) resolve(stream);
              continue;
            }
            stream.received++;
            for (const id of event.correlation_ids ?? []) {
              const m = CORRELATION.exec(id);
              if (m) stream.arrivals.set(m[1], now);
            }
          }
        });
        res.on('error', () => undefined);
      },
    );
    req.on('error', (err) => {
      if (!started) reject(err);
    });
    req.end(body);
  });
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function request(
  agent: http.Agent,
  baseUrl: string,
  auth: Record<string, string>,
  method: string,
  path: string,
  body: unknown,
): Promise<{ requestId: string; returned: number }> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      new URL(path, baseUrl),
      { method, agent, headers: { ...auth, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } },
      (res) => {
        res.resume();
        res.on('end', () => {
          const returned = performance.now();
          if (res.statusCode !== 200) reject(new Error(`${method} ${path}: HTTP ${res.statusCode}`));
          else resolve({ requestId: String(res.headers['x-request-id']), returned });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

export interface EventsPhaseOptions {
  baseUrl: string;
  auth: Record<string, string>;
  applicationId: string;
  /** Stream counts to measure with, e.g. [1, 1000]. */
  streams: number[];
  /** Sequential device updates per stream count (each one event). */
  writes: number;
  /** Device creates for the throughput measurement, and how many run at once. */
  burst: number;
  burstConcurrency: number;
}

/** Latency (write answered → event at every subscriber) per stream count, then delivered events/s. */
export async function eventsPhase(o: EventsPhaseOptions) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  const writer = new http.Agent({ keepAlive: true, maxSockets: o.burstConcurrency });
  const devices = `/api/v3/applications/${o.applicationId}/devices`;
  await request(writer, o.baseUrl, o.auth, 'POST', devices, { end_device: { ids: { device_id: 'bench-events-dev' }, name: 'events' } });
  const latency: Record<string, unknown> = {};
  try {
    for (const count of o.streams) {
      log(`events: opening ${count} streams`);
      const opened = performance.now();
      const streams: Stream[] = [];
      for (let i = 0; i < count; i += 50) {
        streams.push(...(await Promise.all(Array.from({ length: Math.min(50, count - i) }, () => openStream(o.baseUrl, o.auth, o.applicationId, agent)))));
      }
      const openS = (performance.now() - opened) / 1000;
      const writes: Array<{ requestId: string; returned: number }> = [];
      for (let i = 0; i < o.writes; i++) {
        writes.push(
          await request(writer, o.baseUrl, o.auth, 'PUT', `${devices}/bench-events-dev`, {
            end_device: { ids: { device_id: 'bench-events-dev' }, name: `n${i}` },
            field_mask: { paths: ['name'] },
          }),
        );
      }
      // Let the last events arrive.
      const deadline = performance.now() + 10_000;
      const expected = count * o.writes;
      const arrived = () => streams.reduce((n, s) => n + writes.filter((w) => s.arrivals.has(w.requestId)).length, 0);
      while (arrived() < expected && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const samples: number[] = [];
      let missing = 0;
      for (const s of streams) {
        for (const w of writes) {
          const at = s.arrivals.get(w.requestId);
          if (at === undefined) missing++;
          else samples.push(Math.max(0, at - w.returned));
        }
      }
      samples.sort((a, b) => a - b);
      latency[`streams_${count}`] = {
        streams: count,
        writes: o.writes,
        deliveries: samples.length,
        missing,
        open_s: round(openS),
        p50_ms: round(percentile(samples, 50)),
        p90_ms: round(percentile(samples, 90)),
        p99_ms: round(percentile(samples, 99)),
        max_ms: round(samples.at(-1) ?? 0),
      };
      log(`events: ${JSON.stringify(latency[`streams_${count}`])}`);
      for (const s of streams) s.close();
      if (missing > 0) throw new Error(`events: ${missing} of ${expected} events never reached their subscriber`);
      await new Promise((r) => setTimeout(r, 500));
    }
    // Throughput: device creates as fast as the stack takes them, one subscriber counting.
    const counter = await openStream(o.baseUrl, o.auth, o.applicationId, agent);
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: o.burstConcurrency }, async () => {
        while (next < o.burst) {
          const i = next++;
          await request(writer, o.baseUrl, o.auth, 'POST', devices, { end_device: { ids: { device_id: `bench-ev-${i}` } } });
        }
      }),
    );
    const written = performance.now();
    const deadline = written + 10_000;
    while (counter.received < o.burst && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const delivered = performance.now();
    counter.close();
    const throughput = {
      events: o.burst,
      received: counter.received,
      published_per_s: round(o.burst / ((written - started) / 1000)),
      delivered_per_s: round(counter.received / ((delivered - started) / 1000)),
    };
    if (counter.received < o.burst) throw new Error(`events: ${o.burst - counter.received} of ${o.burst} burst events never arrived`);
    return { latency, throughput, target_p99_ms: 100, meets_p99_target: Object.values(latency).every((l) => (l as { p99_ms: number }).p99_ms < 100) };
  } finally {
    agent.destroy();
    writer.destroy();
  }
}
