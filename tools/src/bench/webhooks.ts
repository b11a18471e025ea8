import { randomBytes } from 'node:crypto';
import { WebhookReceiver } from '@lorawan/testing';
import { createApplications } from './applications';
import { log, round } from './load';
import { cpuMs } from './procs';
import { Connection } from './register';

/**
 * `webhooks`: simulated uplinks (`POST …/up/simulate`) delivered by the AS to a webhook receiver
 * on a loopback port in this process. Figures: deliveries per second from the first simulate sent
 * to the last delivery received, simulate requests per second, and the latency from sending a
 * simulate request to its delivery at the receiver (p50/p90/p99/max). Every delivery is matched to
 * its request by a correlation ID; a missing one fails the phase.
 */
export interface WebhookPhaseOptions {
  baseUrl: string;
  auth: Record<string, string>;
  applicationId: string;
  /** Devices the uplinks are spread over (ABP sessions in the AS, CayenneLPP up formatter). */
  devices: number;
  /** Webhooks of the application: each uplink is delivered to every one. */
  webhooks: number;
  uplinks: number;
  warmup: number;
  clients: number;
  pids: Record<string, number>;
}

const LPP = Buffer.from('01670110026864', 'hex').toString('base64');
const hex = (bytes: number) => randomBytes(bytes).toString('hex').toUpperCase();

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function expect200(conn: Connection, method: string, path: string, body: unknown): Promise<void> {
  const res = await conn.request(method, path, body);
  if (res.status !== 200) throw new Error(`${method} ${path}: HTTP ${res.status} ${res.body.slice(0, 1000)}`);
}

export async function webhooksPhase(o: WebhookPhaseOptions) {
  const receiver = await new WebhookReceiver().start();
  const sentAt = new Map<string, number>();
  const latencies: number[] = [];
  let delivered = 0;
  let duplicates = 0;
  let lastDelivery = 0;
  const seen = new Set<string>();
  receiver.onRequest = (req) => {
    const ids: string[] = req.json?.correlation_ids ?? [];
    const tag = ids.find((c) => c.startsWith('bench:'));
    if (!tag) return;
    // At least once: a delivery repeated after a lost acknowledgement is counted apart.
    if (seen.has(`${tag} ${req.url}`)) {
      duplicates++;
      return;
    }
    seen.add(`${tag} ${req.url}`);
    delivered++;
    lastDelivery = performance.now();
    const sent = sentAt.get(tag);
    if (sent !== undefined) latencies.push(lastDelivery - sent);
  };
  const setup = new Connection(o.baseUrl, o.auth);
  try {
    await createApplications(o.baseUrl, o.auth, [o.applicationId]);
    const devices: string[] = [];
    for (let i = 0; i < o.devices; i++) {
      const dev = `wh-dev-${i}`;
      const ids = { device_id: dev, dev_eui: hex(8), join_eui: hex(8) };
      await expect200(setup, 'POST', `/api/v3/applications/${o.applicationId}/devices`, {
        end_device: { ids: { ...ids, application_ids: { application_id: o.applicationId } } },
      });
      await expect200(setup, 'PUT', `/api/v3/as/applications/${o.applicationId}/devices/${dev}`, {
        end_device: {
          ids,
          session: { dev_addr: hex(4).replace(/^./, '0'), keys: { session_key_id: 'AQID', app_s_key: { key: hex(16) } } },
          formatters: { up_formatter: 'FORMATTER_CAYENNELPP' },
        },
        field_mask: { paths: ['session.dev_addr', 'session.keys.session_key_id', 'session.keys.app_s_key.key', 'formatters.up_formatter'] },
      });
      devices.push(dev);
    }
    for (let w = 0; w < o.webhooks; w++) {
      await expect200(setup, 'PUT', `/api/v3/as/webhooks/${o.applicationId}/bench-${w}`, {
        webhook: { base_url: `${receiver.url}/hook-${w}` },
        field_mask: { paths: ['base_url'] },
      });
    }

    let next = 0;
    let failures = 0;
    const send = async (conn: Connection, n: number, measured: boolean) => {
      const tag = `bench:${measured ? 'm' : 'w'}${n}`;
      const dev = devices[n % devices.length];
      if (measured) sentAt.set(tag, performance.now());
      const res = await conn.request('POST', `/api/v3/as/applications/${o.applicationId}/devices/${dev}/up/simulate`, {
        correlation_ids: [tag],
        uplink_message: { f_port: 1, f_cnt: n, frm_payload: LPP },
      });
      if (res.status !== 200) failures++;
    };
    const drive = async (count: number, measured: boolean) => {
      next = 0;
      const conns = Array.from({ length: o.clients }, () => new Connection(o.baseUrl, o.auth));
      try {
        await Promise.all(
          conns.map(async (conn) => {
            while (next < count) await send(conn, next++, measured);
          }),
        );
      } finally {
        for (const c of conns) c.close();
      }
    };
    const waitDelivered = async (target: number, timeoutMs: number) => {
      const deadline = Date.now() + timeoutMs;
      while (delivered < target && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    };

    log(`webhooks: ${o.devices} devices, ${o.webhooks} webhooks, warm-up ${o.warmup} uplinks`);
    await drive(o.warmup, false);
    await waitDelivered(o.warmup * o.webhooks, 60000);
    delivered = 0;
    duplicates = 0;
    latencies.length = 0;
    const cpuBefore = Object.fromEntries(Object.entries(o.pids).map(([n, pid]) => [n, cpuMs(pid) ?? 0]));
    log(`webhooks: ${o.uplinks} uplinks from ${o.clients} clients`);
    const t0 = performance.now();
    await drive(o.uplinks, true);
    const sentS = (performance.now() - t0) / 1000;
    const expected = o.uplinks * o.webhooks;
    await waitDelivered(expected, 120000);
    const wallS = (lastDelivery - t0) / 1000;
    const cpu = Object.fromEntries(Object.entries(o.pids).map(([n, pid]) => [n, round(((cpuMs(pid) ?? 0) - cpuBefore[n]) / 1000 / wallS, 2)]));
    const sorted = [...latencies].sort((a, b) => a - b);
    const result = {
      devices: o.devices,
      webhooks: o.webhooks,
      uplinks: o.uplinks,
      clients: o.clients,
      simulate_failures: failures,
      deliveries_expected: expected,
      deliveries_received: delivered,
      duplicates,
      deliveries_per_s: round(delivered / wallS),
      simulate_per_s: round(o.uplinks / sentS),
      wall_s: round(wallS),
      latency_ms: {
        p50: round(percentile(sorted, 50)),
        p90: round(percentile(sorted, 90)),
        p99: round(percentile(sorted, 99)),
        max: round(sorted[sorted.length - 1] ?? 0),
      },
      cpu_cores: cpu,
    };
    if (failures > 0 || delivered < expected)
      throw new Error(`webhooks: ${failures} failed simulate requests, ${delivered} of ${expected} deliveries: ${JSON.stringify(result)}`);
    return result;
  } finally {
    setup.close();
    await receiver.stop();
  }
}
