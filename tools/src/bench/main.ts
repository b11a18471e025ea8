import os from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@lorawan/config';
import { startEmbeddedStack, TEST_NATS_URL } from '@lorawan/testing';
import { createApplicationApiKey, createApplications } from './applications';
import { startBaseline, type Baseline } from './baseline/launcher';
import { figures, type LoadFigures, log, measureInterleaved, round, run, type Target, type TargetFigures } from './load';
import { pidsByName, profileFlags } from './procs';
import { registerAbpDevices, registerPhase } from './register';
import { rpcOverheadPhase } from './rpc-overhead';
import { importPhase, listScalePhase } from './scale';
import { deviceId, seedDevices } from './seed';
import { BENCH_WITHOUT_ABUSE_LIMITS, type BenchComponent, type BenchStack, startBenchStack } from './stack';
import { eventsPhase } from './events';
import { webhooksPhase } from './webhooks';
import { formatterIsolationPhase } from './formatter-isolation';
import { joinsPhase } from './joins';
import { mqttFanoutPhase } from './mqtt-fanout';
import { storagePhase } from './storage';
import { uplinksPhase } from './uplinks';
import { type OverloadKind, overloadPhase, overloadResult } from './overload';

/**
 * `npm run bench`: the distributed stack (gateway + IS, JS, NS, AS processes over NATS and
 * MariaDB) against a hand-written Fastify → NATS → mysql2 baseline on the same 100k rows, plus
 * the same Get with an application API key, full device registrations (IS + JS + NS + AS), NS
 * Get, events, webhooks, OTAA joins through the Gateway Server's Semtech UDP frontend
 * (simulated gateways → GS → NS → JS, join-accept back as a PULL_RESP), and data uplinks from the
 * same gateways to an application webhook (and class A downlinks back), overload (the capacity of
 * the uplink and join paths, then 2 × that for a while: goodput, latency, recovery, losses,
 * shedding, CPU per item against `rpc_overhead`), and one application's
 * uplinks and API calls while another runs abusive payload formatters. One JSON document on
 * stdout; progress on stderr. Knobs (env): BENCH_DEVICES,
 * BENCH_CONNECTIONS, BENCH_WARMUP_S, BENCH_DURATION_S, BENCH_ROUNDS, BENCH_CREATES,
 * BENCH_REGISTRATIONS, BENCH_REGISTER_WARMUP, BENCH_REGISTER_CLIENTS, BENCH_NS_DEVICES,
 * BENCH_PHASES (default get,get_device_app_key,list,create,register,import,list_scale,ns_get,events,webhooks,formatter_isolation,joins,uplinks,overload,register_embedded,rpc_overhead),
 * BENCH_IMPORT_DEVICES, BENCH_IMPORT_BATCH, BENCH_IMPORT_CONCURRENCY, BENCH_SCALE_SMALL, BENCH_SCALE_DEVICES,
 * BENCH_SCALE_BUFFER_POOL_MB (InnoDB buffer pool during `list_scale`, restored after it),
 * BENCH_RPC_CALLS, BENCH_RPC_CONCURRENCY,
 * BENCH_EVENT_STREAMS (1,1000), BENCH_EVENT_WRITES, BENCH_EVENT_BURST, BENCH_WEBHOOK_UPLINKS,
 * BENCH_WEBHOOK_WARMUP, BENCH_WEBHOOKS (webhooks per application), BENCH_WEBHOOK_DEVICES,
 * BENCH_JOIN_DEVICES, BENCH_JOIN_GATEWAYS, BENCH_JOIN_RATE, BENCH_JOIN_DURATION_S, BENCH_JOIN_WARMUP,
 * BENCH_JOIN_JITTER_MS, BENCH_JOIN_FETCH_MS (also of uplinks), BENCH_JOIN_TRACE_MERGES, BENCH_UPLINK_DEVICES,
 * BENCH_UPLINK_GATEWAYS, BENCH_UPLINK_RATE, BENCH_UPLINK_DURATION_S, BENCH_UPLINK_WARMUP,
 * BENCH_UPLINK_DOWNLINK_RATE, BENCH_GS_REPLICAS, BENCH_NS_REPLICAS, BENCH_FORMATTER_VICTIM_RATE,
 * BENCH_FORMATTER_ABUSE_RATE, BENCH_FORMATTER_ROUND_S, BENCH_FORMATTER_ROUNDS, BENCH_FORMATTER_RUNAWAYS_PER_MIN,
 * BENCH_OVERLOAD_KINDS, BENCH_OVERLOAD_DEVICES, BENCH_OVERLOAD_GATEWAYS, BENCH_OVERLOAD_STEP_S, BENCH_OVERLOAD_START_UPLINKS,
 * BENCH_OVERLOAD_START_JOINS, BENCH_OVERLOAD_BISECT, BENCH_OVERLOAD_BURST_S, BENCH_OVERLOAD_AFTER_S, BENCH_OVERLOAD_CONFIRMED_S,
 * BENCH_MQTT_SUBSCRIBERS, BENCH_STORAGE_ROWS, BENCH_STORAGE_QUERIES, BENCH_STORAGE_ROUNDS (phases mqtt_fanout and storage: the uplinks load,
 * BENCH_UPLINK_*), phases joins_lbs and uplinks_lbs (joins and uplinks through LoRa Basics Station gateways),
 * BENCH_CPU_PROF=<dir> (CPU profiles of every spawned process, written when they stop).
 */
const DEVICES = Number(process.env.BENCH_DEVICES ?? 100_000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const WARMUP_S = Number(process.env.BENCH_WARMUP_S ?? 3);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 15);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PHASES = new Set(
  (
    process.env.BENCH_PHASES ??
    'get,get_device_app_key,list,create,register,import,list_scale,ns_get,events,webhooks,formatter_isolation,joins,uplinks,overload,register_embedded,rpc_overhead'
  ).split(','),
);
const WEBHOOK_UPLINKS = Number(process.env.BENCH_WEBHOOK_UPLINKS ?? 20000);
const WEBHOOK_WARMUP = Number(process.env.BENCH_WEBHOOK_WARMUP ?? 1000);
/** Webhooks per application, one run each: deliveries per simulated uplink. */
const WEBHOOKS = (process.env.BENCH_WEBHOOKS ?? '1,4').split(',').map(Number);
const WEBHOOK_DEVICES = Number(process.env.BENCH_WEBHOOK_DEVICES ?? 50);
const WEBHOOKS_APP = 'bench-webhooks-app';
/** AS processes (replicas share the RPC queue group and the webhook JetStream consumers). */
const AS_REPLICAS = Number(process.env.BENCH_AS_REPLICAS ?? 1);
/** Gateway Server processes (each its own UDP port; the join gateways are spread over them) and NS processes. */
const GS_REPLICAS = Number(process.env.BENCH_GS_REPLICAS ?? 1);
const NS_REPLICAS = Number(process.env.BENCH_NS_REPLICAS ?? 1);
/** The load of `joins`: 1000 devices, 4 gateways, just above the issue's target of 200 joins/s, so a run shows whether it is sustained. */
const JOIN_LOAD = {
  applicationId: 'bench-joins-app',
  devices: Number(process.env.BENCH_JOIN_DEVICES ?? 1000),
  gateways: Number(process.env.BENCH_JOIN_GATEWAYS ?? 4),
  rate: Number(process.env.BENCH_JOIN_RATE ?? 220),
  durationS: Number(process.env.BENCH_JOIN_DURATION_S ?? 20),
  warmup: Number(process.env.BENCH_JOIN_WARMUP ?? 100),
};
const JOIN_JITTER_MS = Number(process.env.BENCH_JOIN_JITTER_MS ?? 5);
const JOIN_FETCH_MS = Number(process.env.BENCH_JOIN_FETCH_MS ?? 10);
const JOIN_TRACE_MERGES = process.env.BENCH_JOIN_TRACE_MERGES === '1';
const UPLINK_RATE = Number(process.env.BENCH_UPLINK_RATE ?? 1000);
/**
 * The load of `uplinks`, the issue's: 1000 devices, 4 gateways, 1000 uplinks/s (2 s of warm-up)
 * delivered with p99 < 500 ms, and class A answers inside RX1 at 500 confirmed uplinks/s.
 */
const UPLINK_LOAD = {
  applicationId: 'bench-uplinks-app',
  devices: Number(process.env.BENCH_UPLINK_DEVICES ?? 1000),
  gateways: Number(process.env.BENCH_UPLINK_GATEWAYS ?? 4),
  rate: UPLINK_RATE,
  durationS: Number(process.env.BENCH_UPLINK_DURATION_S ?? 20),
  warmup: Number(process.env.BENCH_UPLINK_WARMUP ?? 2 * UPLINK_RATE),
  downlinkRate: Number(process.env.BENCH_UPLINK_DOWNLINK_RATE ?? 500),
};
/** `mqtt_fanout` (issue 34): the uplinks load (A) on its own application, to this many MQTT subscribers. */
const MQTT_SUBSCRIBERS = Number(process.env.BENCH_MQTT_SUBSCRIBERS ?? 100);
/** `storage` (issue 34): the uplinks load (A) without and with the Storage Integration, then queries over this many stored messages of a device. */
const STORAGE_LOAD = {
  rows: Number(process.env.BENCH_STORAGE_ROWS ?? 1_000_000),
  queries: Number(process.env.BENCH_STORAGE_QUERIES ?? 20),
  rounds: Number(process.env.BENCH_STORAGE_ROUNDS ?? 1),
};
/**
 * The load of `overload` (issue 31), per kind on its own application: capacity steps from the
 * start rate (×1.25 each, then bisected), a burst at 2 × capacity, then 0.5 × capacity, and (uplinks)
 * confirmed uplinks at 0.5 × capacity.
 */
const OVERLOAD_LOAD = {
  kinds: (process.env.BENCH_OVERLOAD_KINDS ?? 'uplinks,joins').split(',') as OverloadKind[],
  devices: Number(process.env.BENCH_OVERLOAD_DEVICES ?? 1000),
  gateways: Number(process.env.BENCH_OVERLOAD_GATEWAYS ?? 4),
  stepS: Number(process.env.BENCH_OVERLOAD_STEP_S ?? 8),
  startRates: { uplinks: Number(process.env.BENCH_OVERLOAD_START_UPLINKS ?? 100), joins: Number(process.env.BENCH_OVERLOAD_START_JOINS ?? 40) },
  bisections: Number(process.env.BENCH_OVERLOAD_BISECT ?? 2),
  burstS: Number(process.env.BENCH_OVERLOAD_BURST_S ?? 30),
  afterS: Number(process.env.BENCH_OVERLOAD_AFTER_S ?? 15),
  confirmedS: Number(process.env.BENCH_OVERLOAD_CONFIRMED_S ?? 15),
};
/** The load of `formatter_isolation`: the victim's requests of each kind per second, the abuser's simulated uplinks per second (the issue's 10/s), rounds of each. */
const FORMATTER_LOAD = {
  victimRate: Number(process.env.BENCH_FORMATTER_VICTIM_RATE ?? 50),
  abuseRate: Number(process.env.BENCH_FORMATTER_ABUSE_RATE ?? 10),
  roundS: Number(process.env.BENCH_FORMATTER_ROUND_S ?? 5),
  rounds: Number(process.env.BENCH_FORMATTER_ROUNDS ?? 12),
  warmupS: 3,
};
const EVENT_STREAMS = (process.env.BENCH_EVENT_STREAMS ?? '1,1000').split(',').map(Number);
const EVENT_WRITES = Number(process.env.BENCH_EVENT_WRITES ?? 200);
const EVENT_BURST = Number(process.env.BENCH_EVENT_BURST ?? 3000);
const EVENTS_APP = 'bench-events-app';
const CREATES = Number(process.env.BENCH_CREATES ?? 2000);
const REGISTRATIONS = Number(process.env.BENCH_REGISTRATIONS ?? 3000);
const REGISTER_WARMUP = Number(process.env.BENCH_REGISTER_WARMUP ?? 200);
const REGISTER_CLIENTS = Number(process.env.BENCH_REGISTER_CLIENTS ?? 32);
const NS_DEVICES = Number(process.env.BENCH_NS_DEVICES ?? 1000);
const IMPORT_DEVICES = Number(process.env.BENCH_IMPORT_DEVICES ?? 100_000);
/** The CLI's `--batch-size` and `--concurrency` for the import (unset: the CLI's defaults). */
const IMPORT_BATCH = process.env.BENCH_IMPORT_BATCH ? Number(process.env.BENCH_IMPORT_BATCH) : undefined;
const IMPORT_CONCURRENCY = process.env.BENCH_IMPORT_CONCURRENCY ? Number(process.env.BENCH_IMPORT_CONCURRENCY) : undefined;
const SCALE_SMALL = Number(process.env.BENCH_SCALE_SMALL ?? 10_000);
const SCALE_DEVICES = Number(process.env.BENCH_SCALE_DEVICES ?? 1_000_000);
const IMPORT_APP = 'bench-import-app';
const SCALE_APP = 'bench-scale-app';
const APP = 'bench-app';
const CREATE_APP = 'bench-create-app';
const REGISTER_APP = 'bench-register-app';
const NS_APP = 'bench-ns-app';
const NS_GET_MASK = 'mac_settings,session';
/** The rights of the application API key `get_device_app_key` authenticates with. */
const APP_KEY_RIGHTS = ['RIGHT_APPLICATION_DEVICES_READ'];

function randomDevicePath(): string {
  return `/api/v3/applications/${APP}/devices/${deviceId(Math.floor(Math.random() * DEVICES))}`;
}

function getTarget(name: string, baseUrl: string, auth: Record<string, string>, pids: Record<string, number>): Target {
  return {
    name,
    options: {
      url: baseUrl,
      connections: CONNECTIONS,
      headers: auth,
      requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: randomDevicePath() }) }],
    },
    pids,
  };
}

/** JSON with sorted keys, to compare responses whatever their key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b))) : v,
  );
}

/**
 * Every response of a measured phase must be a 2xx (a phase measuring 403s or 404s measures an
 * error path, not the product), without connection errors or timeouts: throws otherwise.
 */
function expectAllOk(phase: string, f: LoadFigures, logs?: () => string): void {
  if (f.non2xx === 0 && f.errors === 0 && f.timeouts === 0) return;
  const tail = logs ? `; stack logs:\n${logs().slice(-4000)}` : '';
  throw new Error(`${phase}: ${f.non2xx} non-2xx responses, ${f.errors} connection errors, ${f.timeouts} timeouts of ${f.requests} requests${tail}`);
}

async function sanity(url: string, auth: Record<string, string>): Promise<unknown> {
  const res = await fetch(url, { headers: auth });
  const body = (await res.json()) as unknown;
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

async function listDevices(baseUrl: string, auth: Record<string, string>) {
  const pages = [1, 2, 10, 50, Math.ceil(DEVICES / 1000)];
  const path = (page: number) => `/api/v3/applications/${APP}/devices?field_mask=name&order=name&limit=1000&page=${page}`;
  // Correctness of one deep page: 1000 devices, sorted by name, total count.
  const res = await fetch(baseUrl + path(pages[pages.length - 1]), { headers: auth });
  const body = (await res.json()) as { end_devices?: Array<{ name?: string }> };
  const names = (body.end_devices ?? []).map((d) => d.name ?? '');
  if (res.status !== 200 || names.length !== Math.min(1000, DEVICES - (pages[pages.length - 1] - 1) * 1000)) {
    throw new Error(`list: ${res.status}, ${names.length} devices`);
  }
  if (names.some((n, i) => i > 0 && names[i - 1] > n)) throw new Error('list: not ordered by name');
  const total = Number(res.headers.get('x-total-count'));

  let i = 0;
  const perPage: Record<string, number[]> = {};
  const opts = {
    url: baseUrl,
    connections: 4,
    amount: 50,
    headers: auth,
    requests: [{ method: 'GET', setupRequest: (req: object) => ({ ...req, path: path(pages[i++ % pages.length]) }) }],
  };
  log('list: 50 requests, 4 connections');
  const f = figures(await run(opts));
  // The deep page alone, sequentially (its cost is the OFFSET scan).
  for (const page of [1, pages[pages.length - 1]]) {
    perPage[page] = [];
    for (let k = 0; k < 5; k++) {
      const t = performance.now();
      const r = await fetch(baseUrl + path(page), { headers: auth });
      await r.arrayBuffer();
      perPage[page].push(performance.now() - t);
    }
  }
  const median = (xs: number[]) => round([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]);
  return {
    pages,
    total_count: total,
    ...f,
    sequential_first_page_median_ms: median(perPage[1]),
    sequential_deep_page_median_ms: median(perPage[pages[pages.length - 1]]),
  };
}

async function createDevices(baseUrl: string, auth: Record<string, string>) {
  let n = 0;
  const start = performance.now();
  const r = await run({
    url: baseUrl,
    connections: CONNECTIONS,
    amount: CREATES,
    headers: { ...auth, 'content-type': 'application/json' },
    requests: [
      {
        method: 'POST',
        path: `/api/v3/applications/${CREATE_APP}/devices`,
        setupRequest: (req) => {
          const i = n++;
          const body = {
            end_device: {
              ids: {
                device_id: `new-${String(i).padStart(6, '0')}`,
                application_ids: { application_id: CREATE_APP },
                dev_eui: `70B3D57EE0${i.toString(16).padStart(6, '0')}`.toUpperCase(),
                join_eui: '0000000000000002',
              },
              name: `New device ${i}`,
              description: 'Created by the benchmark',
              attributes: { batch: 'bench' },
            },
          };
          return { ...req, body: JSON.stringify(body) };
        },
      },
    ],
  });
  const wall = (performance.now() - start) / 1000;
  const f = figures(r);
  return { ...f, creates_per_s: round(f.ok / wall), wall_s: round(wall) };
}

interface NsGetBody {
  mac_settings?: Record<string, unknown>;
  session?: { dev_addr?: string; keys?: { f_nwk_s_int_key?: { key?: string } } };
}

/**
 * `ns_get`: ABP devices (IS + NS + AS, NS with a session) registered first, then NS Get of a
 * random one with `field_mask=mac_settings,session` (key material: READ_KEYS, which the admin
 * key has), measured like get_device.
 */
async function nsGet(stack: BenchStack, auth: Record<string, string>, pids: Record<string, number>) {
  log(`ns_get: ${NS_DEVICES} ABP registrations (IS + NS + AS), ${REGISTER_CLIENTS} clients`);
  const abp = await registerAbpDevices(stack.baseUrl, auth, NS_APP, REGISTER_CLIENTS, NS_DEVICES);
  log(`ns_get: registered in ${abp.wallS}s (${abp.registrationsPerS}/s)`);
  const path = (dev: string) => `/api/v3/ns/applications/${NS_APP}/devices/${dev}?field_mask=${NS_GET_MASK}`;
  const probe = (await sanity(stack.baseUrl + path(abp.deviceIds[abp.deviceIds.length - 1]), auth)) as NsGetBody;
  if (!probe.session?.keys?.f_nwk_s_int_key?.key || !probe.session.dev_addr || !probe.mac_settings || Object.keys(probe.mac_settings).length === 0) {
    throw new Error(`ns_get: the response lacks session.keys.f_nwk_s_int_key.key, session.dev_addr or mac_settings: ${JSON.stringify(probe)}`);
  }
  const randomPath = () => path(abp.deviceIds[Math.floor(Math.random() * abp.deviceIds.length)]);
  const measured = await measureInterleaved(
    [
      {
        name: 'ns_get',
        options: {
          url: stack.baseUrl,
          connections: CONNECTIONS,
          headers: auth,
          requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: randomPath() }) }],
        },
        pids,
      },
    ],
    WARMUP_S,
    DURATION_S / ROUNDS,
    ROUNDS,
  );
  expectAllOk('ns_get', measured.ns_get, stack.logs);
  return { devices: NS_DEVICES, field_mask: NS_GET_MASK, abp_registrations_per_s: abp.registrationsPerS, ...measured.ns_get };
}

/**
 * `register_embedded`: the same OTAA registrations against the embedded all-in-one process
 * (`npm start`: one Node process, in-process transport, SQLite files), the zero-install mode.
 */
async function registerEmbeddedPhase(shared: Record<string, number>) {
  log('register_embedded: starting the embedded stack');
  const embedded = await startEmbeddedStack({ nodeFlags: profileFlags('stack'), env: BENCH_WITHOUT_ABUSE_LIMITS });
  try {
    const auth = { authorization: `Bearer ${embedded.adminKey}` };
    await createApplications(embedded.baseUrl, auth, [REGISTER_APP]);
    return await registerPhase({
      baseUrl: embedded.baseUrl,
      auth,
      app: REGISTER_APP,
      clients: REGISTER_CLIENTS,
      warmup: REGISTER_WARMUP,
      registrations: REGISTRATIONS,
      pids: { stack: embedded.processes.get('stack')?.pid ?? 0, 'load-generator': shared['load-generator'] },
    });
  } finally {
    await embedded.stop();
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  const loadavgStart = os.loadavg().map((x) => round(x));
  let stack: BenchStack | undefined;
  let baseline: Baseline | undefined;
  try {
    const radio = ['joins', 'uplinks', 'overload', 'joins_lbs', 'uplinks_lbs', 'mqtt_fanout', 'storage'].some((p) => PHASES.has(p));
    const registries = PHASES.has('register') || PHASES.has('import') || PHASES.has('ns_get') || radio;
    const components: BenchComponent[] = [
      'is',
      ...(registries ? (['js', 'ns', 'as'] as const) : PHASES.has('webhooks') || PHASES.has('formatter_isolation') ? (['as'] as const) : []),
      ...(PHASES.has('events') || process.env.BENCH_EVENTS_COMPONENT === '1' ? (['events'] as const) : []),
      ...(radio ? (['gs'] as const) : []),
    ];
    log(`starting distributed stack (gateway + ${components.join(' + ')})`);
    stack = await startBenchStack(components, { as: AS_REPLICAS, gs: GS_REPLICAS, ns: NS_REPLICAS });
    const running = stack;
    const auth = { authorization: `Bearer ${stack.adminKey}` };
    // As the admin, before any device: the IS needs the applications, and the admin key reads and
    // writes device keys (register, ns_get) only in applications the admin collaborates on.
    await createApplications(stack.baseUrl, auth, [APP, CREATE_APP, REGISTER_APP, NS_APP, EVENTS_APP, IMPORT_APP, SCALE_APP]);
    // The seeded devices and the baseline serve get, get_device_app_key and list only.
    const seeded = PHASES.has('get') || PHASES.has('get_device_app_key') || PHASES.has('list');
    let seedS = 0;
    let fromStack: unknown;
    const probe = `/api/v3/applications/${APP}/devices/${deviceId(DEVICES - 1)}`;
    if (seeded) {
      log(`seeding ${DEVICES} devices into ${stack.isDatabaseUrl}`);
      const t = Date.now();
      await seedDevices(stack.isDatabaseUrl, APP, DEVICES);
      seedS = (Date.now() - t) / 1000;
      log(`seeded in ${seedS}s`);
      baseline = await startBaseline(stack.isDatabaseUrl, `bench${stack.suffix}`, stack.adminKey);
      fromStack = await sanity(stack.baseUrl + probe, auth);
      const fromBaseline = await sanity(baseline.baseUrl + probe, auth);
      if (canonical(fromStack) !== canonical(fromBaseline)) {
        log(`note: responses differ: stack ${JSON.stringify(fromStack)} baseline ${JSON.stringify(fromBaseline)}`);
      }
    }
    let appKeyAuth: Record<string, string> | undefined;
    if (PHASES.has('get_device_app_key')) {
      const appKey = await createApplicationApiKey(stack.baseUrl, auth, APP, 'bench', APP_KEY_RIGHTS);
      appKeyAuth = { authorization: `Bearer ${appKey}` };
      const fromAppKey = await sanity(stack.baseUrl + probe, appKeyAuth);
      if (canonical(fromAppKey) !== canonical(fromStack))
        throw new Error(`get_device_app_key: answer ${JSON.stringify(fromAppKey)} differs from the admin key's ${JSON.stringify(fromStack)}`);
    }

    const shared = { ...pidsByName(['mariadbd', 'mysqld', 'nats-server']), 'load-generator': process.pid };
    const pidsOf = (...names: string[]) => Object.fromEntries(names.map((n) => [n, running.pid(n)]));
    let get: TargetFigures | null = null;
    let base: TargetFigures | null = null;
    let getAppKey: TargetFigures | null = null;
    if (baseline && (PHASES.has('get') || appKeyAuth)) {
      // get_device, baseline and get_device_app_key interleaved round by round (each of them the
      // same warm-up, rounds and seconds), so that other load on the machine hits them alike.
      const targets: Target[] = [];
      if (PHASES.has('get')) targets.push(getTarget('get_device', stack.baseUrl, auth, { ...pidsOf('gateway', 'is'), ...shared }));
      targets.push(getTarget('baseline', baseline.baseUrl, auth, { ...Object.fromEntries(baseline.procs.map((p) => [p.name, p.child.pid ?? 0])), ...shared }));
      if (appKeyAuth) targets.push(getTarget('get_device_app_key', stack.baseUrl, appKeyAuth, { ...pidsOf('gateway', 'is'), ...shared }));
      const measured = await measureInterleaved(targets, WARMUP_S, DURATION_S / ROUNDS, ROUNDS);
      for (const t of targets) expectAllOk(t.name, measured[t.name], t.name === 'baseline' ? undefined : running.logs);
      get = measured.get_device ?? null;
      base = measured.baseline;
      getAppKey = measured.get_device_app_key ?? null;
    }
    await baseline?.stop();
    baseline = undefined;
    let list: Awaited<ReturnType<typeof listDevices>> | null = null;
    if (PHASES.has('list')) {
      list = await listDevices(stack.baseUrl, auth);
      log(`list: ${JSON.stringify(list)}`);
      expectAllOk('list_devices', list, running.logs);
    }
    let create: Awaited<ReturnType<typeof createDevices>> | null = null;
    if (PHASES.has('create')) {
      log(`create: ${CREATES} devices, ${CONNECTIONS} connections`);
      create = await createDevices(stack.baseUrl, auth);
      log(`create: ${JSON.stringify(create)}`);
      expectAllOk('create_devices', create, running.logs);
    }
    let register: Awaited<ReturnType<typeof registerPhase>> | null = null;
    if (PHASES.has('register')) {
      register = await registerPhase({
        baseUrl: stack.baseUrl,
        auth,
        app: REGISTER_APP,
        clients: REGISTER_CLIENTS,
        warmup: REGISTER_WARMUP,
        registrations: REGISTRATIONS,
        pids: { ...pidsOf('gateway', 'is', 'js', 'ns', 'as'), ...shared },
      });
    }
    let importFigures: Awaited<ReturnType<typeof importPhase>> | null = null;
    if (PHASES.has('import')) {
      importFigures = await importPhase({
        baseUrl: stack.baseUrl,
        apiKey: stack.adminKey,
        app: IMPORT_APP,
        devices: IMPORT_DEVICES,
        batchSize: IMPORT_BATCH,
        concurrency: IMPORT_CONCURRENCY,
        cli: join(process.cwd(), 'dist/tools/src/cli/main.js'),
        pids: { ...pidsOf('gateway', 'is', 'js', 'ns', 'as'), ...shared },
      });
      log(`import: ${JSON.stringify(importFigures)}`);
    }
    let listScale: Awaited<ReturnType<typeof listScalePhase>> | null = null;
    if (PHASES.has('list_scale')) {
      listScale = await listScalePhase({
        baseUrl: stack.baseUrl,
        auth,
        isDatabaseUrl: stack.isDatabaseUrl,
        app: SCALE_APP,
        small: SCALE_SMALL,
        large: SCALE_DEVICES,
        getRequests: 20_000,
        getRounds: 3,
        listRequests: 100,
        databasePid: Object.values(pidsByName(['mariadbd', 'mysqld']))[0],
        bufferPoolMb: process.env.BENCH_SCALE_BUFFER_POOL_MB ? Number(process.env.BENCH_SCALE_BUFFER_POOL_MB) : undefined,
      });
      log(`list_scale: ${JSON.stringify(listScale)}`);
    }
    let nsGetFigures: Awaited<ReturnType<typeof nsGet>> | null = null;
    if (PHASES.has('ns_get')) {
      nsGetFigures = await nsGet(stack, auth, { ...pidsOf('gateway', 'ns'), ...shared });
    }
    let events: Awaited<ReturnType<typeof eventsPhase>> | null = null;
    if (PHASES.has('events')) {
      events = await eventsPhase({
        baseUrl: stack.baseUrl,
        auth,
        applicationId: EVENTS_APP,
        streams: EVENT_STREAMS,
        writes: EVENT_WRITES,
        burst: EVENT_BURST,
        burstConcurrency: REGISTER_CLIENTS,
      });
      log(`events: ${JSON.stringify(events)}`);
    }
    let webhooks: Record<string, Awaited<ReturnType<typeof webhooksPhase>>> | null = null;
    if (PHASES.has('webhooks')) {
      webhooks = {};
      for (const count of WEBHOOKS) {
        webhooks[`webhooks_${count}`] = await webhooksPhase({
          baseUrl: stack.baseUrl,
          auth,
          applicationId: `${WEBHOOKS_APP}-${count}`,
          devices: WEBHOOK_DEVICES,
          webhooks: count,
          uplinks: WEBHOOK_UPLINKS,
          warmup: WEBHOOK_WARMUP,
          clients: REGISTER_CLIENTS,
          pids: { ...pidsOf('gateway', 'as', ...Array.from({ length: AS_REPLICAS - 1 }, (_, i) => `as#${i + 1}`)), ...shared },
        });
        log(`webhooks (${count} per application): ${JSON.stringify(webhooks[`webhooks_${count}`])}`);
      }
    }
    let formatterIsolation: Awaited<ReturnType<typeof formatterIsolationPhase>> | null = null;
    if (PHASES.has('formatter_isolation')) {
      const formatters = loadConfig({ FORMATTER_APP_RUNAWAYS_PER_MIN: process.env.BENCH_FORMATTER_RUNAWAYS_PER_MIN }).formatters;
      formatterIsolation = await formatterIsolationPhase({
        baseUrl: stack.baseUrl,
        auth,
        asPid: running.pid('as'),
        formatterWorkers: formatters.workers,
        formatterMemoryMb: formatters.memoryLimitBytes / 1024 / 1024,
        runawaysPerMinute: formatters.applicationRunawaysPerMinute,
        ...FORMATTER_LOAD,
      });
      log(`formatter_isolation: ${JSON.stringify(formatterIsolation)}`);
    }
    // The processes of the radio phases (joins, uplinks), and their `/metrics`.
    const replicas = (c: string, n: number) => [c, ...Array.from({ length: n - 1 }, (_, i) => `${c}#${i + 1}`)];
    // The events component, when a phase started it, stores and fans out every event of the radio traffic: its CPU is the stack's too.
    const radioProcs = [
      'is',
      'js',
      ...replicas('ns', NS_REPLICAS),
      ...replicas('as', AS_REPLICAS),
      ...replicas('gs', GS_REPLICAS),
      ...(running.pid('events') ? ['events'] : []),
    ];
    const radioStack = {
      baseUrl: stack.baseUrl,
      auth,
      clients: REGISTER_CLIENTS,
      jitterMs: JOIN_JITTER_MS,
      fetchMs: JOIN_FETCH_MS,
      protocol: 'udp' as const,
      udpPorts: [...stack.udpPorts.values()],
      lbsPorts: [...stack.lbsPorts.values()],
      metricsUrls: Object.fromEntries(radioProcs.map((n) => [n, `http://127.0.0.1:${running.healthPorts.get(n)}/metrics`])),
      pids: { ...pidsOf(...radioProcs), ...shared },
      logs: running.logs,
    };
    const traceMerges = JOIN_TRACE_MERGES ? { natsUrl: TEST_NATS_URL, subjectPrefix: `t${stack.suffix}` } : undefined;
    const joins = PHASES.has('joins') ? await joinsPhase({ ...radioStack, ...JOIN_LOAD, traceMerges }) : null;
    const uplinks = PHASES.has('uplinks') ? await uplinksPhase({ ...radioStack, ...UPLINK_LOAD }) : null;
    // The same phases with LoRa Basics Station gateways (issue 33), on applications, devices and gateways of their own.
    const lbs = (label: string, deviceIdPrefix: string, devEuiPrefix: string) => ({
      ...radioStack,
      protocol: 'basicstation' as const,
      applicationId: `bench-${label.replace('_', '-')}-app`,
      names: { label, deviceIdPrefix, devEuiPrefix, gatewayIdPrefix: `bench-${deviceIdPrefix}-gtw` },
    });
    const joinsLbs = PHASES.has('joins_lbs') ? await joinsPhase({ ...JOIN_LOAD, ...lbs('joins_lbs', 'join-lbs', '70B3D57EA1') }) : null;
    const uplinksLbs = PHASES.has('uplinks_lbs') ? await uplinksPhase({ ...UPLINK_LOAD, ...lbs('uplinks_lbs', 'up-lbs', '70B3D57EB1') }) : null;
    const mqttFanout = PHASES.has('mqtt_fanout')
      ? await mqttFanoutPhase({
          ...radioStack,
          ...UPLINK_LOAD,
          applicationId: 'bench-mqtt-app',
          subscribers: MQTT_SUBSCRIBERS,
          mqttPorts: [...stack.mqttPorts.values()],
        })
      : null;
    const storage = PHASES.has('storage')
      ? await storagePhase({
          ...radioStack,
          ...UPLINK_LOAD,
          ...STORAGE_LOAD,
          applicationId: 'bench-storage-app',
          asDatabaseUrl: stack.databaseUrls.as as string,
        })
      : null;
    // CPU of every stack process (the HTTP gateway, MariaDB and NATS included), not the load generator's.
    const overload = PHASES.has('overload')
      ? await overloadPhase({
          ...radioStack,
          ...OVERLOAD_LOAD,
          pids: { ...pidsOf('gateway', ...radioProcs), ...pidsByName(['mariadbd', 'mysqld', 'nats-server']) },
        })
      : null;
    // The load phases threw on any failed request; the register phase tolerates 0.1 %.
    const failures = register ? register.failures + register.warmup_failures : 0;
    if (failures > 0) log(`${failures} failed registrations; stack logs:\n${stack.logs().slice(-4000)}`);

    await stack.stop();
    stack = undefined;
    const registerEmbedded = PHASES.has('register_embedded') ? await registerEmbeddedPhase(shared) : null;
    // `overload` divides its CPU per item by this run's figure; `mqtt_fanout` and `storage` print it beside theirs.
    const rpcOverhead = PHASES.has('rpc_overhead') || overload || mqttFanout || storage ? await rpcOverheadPhase() : null;
    if (rpcOverhead) log(`rpc_overhead: ${JSON.stringify(rpcOverhead)}`);

    const result = {
      ratio: get && base ? round(get.req_per_s / base.req_per_s, 3) : null,
      ratio_app_key: getAppKey && base ? round(getAppKey.req_per_s / base.req_per_s, 3) : null,
      app_key_vs_admin: getAppKey && get ? round(getAppKey.req_per_s / get.req_per_s, 3) : null,
      get_device: get,
      get_device_app_key: getAppKey,
      baseline: base,
      create_devices: create,
      list_devices: list,
      register: register,
      import: importFigures,
      list_scale: listScale,
      register_embedded: registerEmbedded,
      rpc_overhead: rpcOverhead,
      ns_get: nsGetFigures,
      events,
      webhooks,
      formatter_isolation: formatterIsolation,
      joins,
      uplinks,
      joins_lbs: joinsLbs,
      uplinks_lbs: uplinksLbs,
      mqtt_fanout: mqttFanout,
      storage,
      overload: overload ? overloadResult(overload, rpcOverhead?.cpu_us_per_call ?? 0) : null,
      setup: {
        devices: DEVICES,
        connections: CONNECTIONS,
        warmup_s: WARMUP_S,
        duration_s: DURATION_S,
        rounds: ROUNDS,
        seed_s: seedS,
        registrations: REGISTRATIONS,
        register_warmup: REGISTER_WARMUP,
        register_clients: REGISTER_CLIENTS,
        ns_devices: NS_DEVICES,
        node: process.version,
        total_s: 0,
        loadavg_start: loadavgStart,
        loadavg_end: [] as number[],
      },
    };
    result.setup.loadavg_end = os.loadavg().map((x) => round(x));
    result.setup.total_s = round((Date.now() - started) / 1000, 1);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    if (baseline) await baseline.stop();
    if (stack) await stack.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${(err as Error)?.stack ?? String(err)}\n`);
  process.exit(1);
});
