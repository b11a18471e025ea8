import { WebhookReceiver } from '@lorawan/testing';
import { randomBytes } from 'node:crypto';
import { createApplications } from '../bench/applications';
import { type Scrape, scrapeAll } from '../bench/metrics';
import { rssMb } from '../bench/procs';
import { startBenchStack } from '../bench/stack';

/**
 * `npm run soak` (not in CI): the distributed stack (gateway, IS, JS, NS, AS, events, GS, one
 * process each, on the machine's MariaDB and NATS as the bench uses them) under a steady mixed load
 * for SOAK_MINUTES (30): device registrations through the four registries with the oldest devices
 * deleted again (a steady population of SOAK_DEVICES), Gets and Lists, simulated uplinks to a
 * webhook, and event streams reading the application's events. Every minute one JSON line on
 * stdout: each process's RSS and event-loop lag (p99 of the minute, from its `/metrics`), the
 * requests of the minute by status, webhook deliveries and events read; at the end a summary.
 * Knobs: SOAK_MINUTES, SOAK_REGISTER_PER_S (5), SOAK_READS_PER_S (50), SOAK_UPLINKS_PER_S (20),
 * SOAK_STREAMS (5), SOAK_DEVICES (500).
 */
const MINUTES = Number(process.env.SOAK_MINUTES ?? 30);
const REGISTER_PER_S = Number(process.env.SOAK_REGISTER_PER_S ?? 5);
const READS_PER_S = Number(process.env.SOAK_READS_PER_S ?? 50);
const UPLINKS_PER_S = Number(process.env.SOAK_UPLINKS_PER_S ?? 20);
const STREAMS = Number(process.env.SOAK_STREAMS ?? 5);
const DEVICES = Number(process.env.SOAK_DEVICES ?? 500);
const APP = 'soak-app';
const UPLINK_DEVICE = 'soak-uplinks';
const LPP = Buffer.from('01670110026864', 'hex').toString('base64');

const hex = (bytes: number) => randomBytes(bytes).toString('hex').toUpperCase();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (message: string) => process.stderr.write(`[soak ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

/** Requests of the current minute by status (0: no answer). */
let statuses = new Map<number, number>();
let eventsRead = 0;
let running = true;

async function call(baseUrl: string, key: string, method: string, path: string, body?: unknown): Promise<number> {
  let status = 0;
  try {
    const res = await fetch(baseUrl + path, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    await res.arrayBuffer();
    status = res.status;
  } catch {
    status = 0;
  }
  statuses.set(status, (statuses.get(status) ?? 0) + 1);
  return status;
}

/** Runs `task` `perS` times a second (each started on schedule, not after the previous one) until the soak ends. */
async function every(perS: number, task: (n: number) => Promise<unknown>): Promise<void> {
  if (perS <= 0) return;
  const inFlight = new Set<Promise<unknown>>();
  const started = Date.now();
  for (let n = 0; running; n++) {
    const due = started + (n * 1000) / perS;
    if (due > Date.now()) await sleep(due - Date.now());
    if (inFlight.size >= 64) await Promise.race(inFlight); // a stack that stalls is not buried under requests
    const p: Promise<unknown> = task(n).finally(() => inFlight.delete(p));
    inFlight.add(p);
  }
  await Promise.allSettled(inFlight);
}

/** An event stream on the application, reading (and counting) what comes, reopened when it ends. */
async function stream(baseUrl: string, key: string): Promise<void> {
  while (running) {
    try {
      const res = await fetch(`${baseUrl}/api/v3/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ identifiers: [{ application_ids: { application_id: APP } }] }),
      });
      const reader = res.body?.getReader();
      const text = new TextDecoder();
      while (running && reader) {
        const { done, value } = await reader.read();
        if (done) break;
        eventsRead += (text.decode(value, { stream: true }).match(/"result"/g) ?? []).length;
      }
      await reader?.cancel();
    } catch {
      // reopened below
    }
    if (running) await sleep(1000);
  }
}

function lagP99Ms(scrape: Scrape): number | undefined {
  const v = scrape.get('nodejs_eventloop_lag_p99_seconds');
  return v === undefined ? undefined : Math.round(v * 10_000) / 10;
}

async function main(): Promise<void> {
  const stack = await startBenchStack(['is', 'js', 'ns', 'as', 'events', 'gs']);
  const receiver = await new WebhookReceiver().start();
  const { baseUrl, adminKey: key } = stack;
  try {
    await createApplications(baseUrl, { authorization: `Bearer ${key}` }, [APP]);
    const ids = { device_id: UPLINK_DEVICE, dev_eui: hex(8), join_eui: hex(8), application_ids: { application_id: APP } };
    const must = async (method: string, path: string, body: unknown) => {
      const status = await call(baseUrl, key, method, path, body);
      if (status !== 200) throw new Error(`setup ${method} ${path}: HTTP ${status}`);
    };
    await must('POST', `/api/v3/applications/${APP}/devices`, { end_device: { ids } });
    await must('PUT', `/api/v3/as/applications/${APP}/devices/${UPLINK_DEVICE}`, {
      end_device: {
        ids,
        session: { dev_addr: hex(4), keys: { session_key_id: 'AQID', app_s_key: { key: hex(16) } } },
        formatters: { up_formatter: 'FORMATTER_CAYENNELPP' },
      },
      field_mask: { paths: ['session.dev_addr', 'session.keys.session_key_id', 'session.keys.app_s_key.key', 'formatters.up_formatter'] },
    });
    await must('PUT', `/api/v3/as/webhooks/${APP}/soak`, {
      webhook: { ids: { webhook_id: 'soak', application_ids: { application_id: APP } }, base_url: receiver.url, format: 'json', uplink_message: {} },
      field_mask: { paths: ['base_url', 'format', 'uplink_message'] },
    });
    statuses = new Map();

    const registered: string[] = [];
    const register = async (n: number) => {
      const dev = `soak-${n}`;
      const devIds = { device_id: dev, dev_eui: hex(8), join_eui: hex(8), application_ids: { application_id: APP } };
      if ((await call(baseUrl, key, 'POST', `/api/v3/applications/${APP}/devices`, { end_device: { ids: devIds, name: dev } })) !== 200) return;
      await call(baseUrl, key, 'PUT', `/api/v3/js/applications/${APP}/devices/${dev}`, {
        end_device: { ids: devIds, root_keys: { app_key: { key: hex(16) } } },
        field_mask: { paths: ['root_keys.app_key.key'] },
      });
      await call(baseUrl, key, 'PUT', `/api/v3/ns/applications/${APP}/devices/${dev}`, {
        end_device: {
          ids: devIds,
          frequency_plan_id: 'EU_863_870_TTN',
          lorawan_version: 'MAC_V1_0_3',
          lorawan_phy_version: 'PHY_V1_0_3_REV_A',
          supports_join: true,
        },
        field_mask: { paths: ['frequency_plan_id', 'lorawan_version', 'lorawan_phy_version', 'supports_join'] },
      });
      await call(baseUrl, key, 'PUT', `/api/v3/as/applications/${APP}/devices/${dev}`, {
        end_device: { ids: devIds, formatters: { up_formatter: 'FORMATTER_CAYENNELPP' } },
        field_mask: { paths: ['formatters.up_formatter'] },
      });
      registered.push(dev);
      // A steady population: the oldest device leaves the registries in the spec's order (AS, NS, JS, IS).
      if (registered.length > DEVICES) {
        const old = registered.shift() as string;
        for (const c of ['as/', 'ns/', 'js/', '']) await call(baseUrl, key, 'DELETE', `/api/v3/${c}applications/${APP}/devices/${old}`);
      }
    };
    const read = async (n: number) => {
      if (n % 25 === 0) return call(baseUrl, key, 'GET', `/api/v3/applications/${APP}/devices?field_mask=name&order=name&limit=100`);
      const dev = registered[Math.floor(Math.random() * registered.length)] ?? UPLINK_DEVICE;
      return call(baseUrl, key, 'GET', `/api/v3/applications/${APP}/devices/${dev}?field_mask=name`);
    };
    const uplink = (n: number) =>
      call(baseUrl, key, 'POST', `/api/v3/as/applications/${APP}/devices/${UPLINK_DEVICE}/up/simulate`, {
        uplink_message: { f_port: 1, f_cnt: n + 1, frm_payload: LPP },
      });

    const loads = [
      every(REGISTER_PER_S, register),
      every(READS_PER_S, read),
      every(UPLINKS_PER_S, uplink),
      ...Array.from({ length: STREAMS }, () => stream(baseUrl, key)),
    ];
    const metricsUrls: Record<string, string> = { gateway: `${baseUrl}/metrics` };
    for (const [name, port] of stack.healthPorts) metricsUrls[name] = `http://127.0.0.1:${port}/metrics`;
    const names = ['gateway', ...stack.healthPorts.keys()];
    const minutes: Array<Record<string, unknown>> = [];
    log(`load running for ${MINUTES} min: ${REGISTER_PER_S} registrations/s, ${READS_PER_S} reads/s, ${UPLINKS_PER_S} uplinks/s, ${STREAMS} streams`);
    let delivered = 0;
    for (let minute = 1; minute <= MINUTES; minute++) {
      await sleep(60_000);
      const scrapes = await scrapeAll(metricsUrls);
      const line = {
        minute,
        rss_mb: Object.fromEntries(names.map((n) => [n, rssMb(stack.pid(n))])),
        event_loop_lag_p99_ms: Object.fromEntries(names.map((n) => [n, lagP99Ms(scrapes[n] ?? new Map())])),
        requests: Object.fromEntries(statuses),
        errors_5xx: [...statuses].filter(([s]) => s >= 500 || s === 0).reduce((n, [, c]) => n + c, 0),
        webhook_deliveries: receiver.requests.length - delivered,
        events_read: eventsRead,
        devices: registered.length,
      };
      delivered = receiver.requests.length;
      statuses = new Map();
      eventsRead = 0;
      minutes.push(line);
      process.stdout.write(`${JSON.stringify(line)}\n`);
    }
    running = false;
    await Promise.allSettled(loads);
    const first = minutes[0]?.rss_mb as Record<string, number> | undefined;
    const last = minutes[minutes.length - 1]?.rss_mb as Record<string, number> | undefined;
    const summary = {
      minutes: MINUTES,
      rss_mb_first_last: Object.fromEntries(names.map((n) => [n, [first?.[n], last?.[n]]])),
      max_event_loop_lag_p99_ms: Object.fromEntries(
        names.map((n) => [n, Math.max(...minutes.map((m) => (m.event_loop_lag_p99_ms as Record<string, number>)[n] ?? 0))]),
      ),
      errors_5xx: minutes.reduce((n, m) => n + (m.errors_5xx as number), 0),
      requests: minutes.reduce((n, m) => n + Object.values(m.requests as Record<string, number>).reduce((a, b) => a + b, 0), 0),
      webhook_deliveries: receiver.requests.length,
    };
    process.stdout.write(`${JSON.stringify({ summary })}\n`);
  } finally {
    running = false;
    await receiver.stop();
    await stack.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`soak failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
