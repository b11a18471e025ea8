import os from 'node:os';
import { startBaseline, type Baseline } from './baseline/launcher';
import { figures, log, measureInterleaved, round, run, type Target, type TargetFigures } from './load';
import { pidsByName, type Proc } from './procs';
import { deviceId, seedDevices } from './seed';
import { type BenchStack, startBenchStack } from './stack';

/**
 * `npm run bench`: the distributed stack (gateway + IS processes over NATS and MariaDB) against a
 * hand-written Fastify → NATS → mysql2 baseline on the same 100k rows. One JSON document on
 * stdout; progress on stderr. Knobs (env): BENCH_DEVICES, BENCH_CONNECTIONS, BENCH_WARMUP_S,
 * BENCH_DURATION_S, BENCH_ROUNDS, BENCH_CREATES, BENCH_PHASES (default get,list,create),
 * BENCH_CPU_PROF=<dir> (CPU profiles of every spawned process, written when they stop).
 */
const DEVICES = Number(process.env.BENCH_DEVICES ?? 100_000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const WARMUP_S = Number(process.env.BENCH_WARMUP_S ?? 3);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 15);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PHASES = new Set((process.env.BENCH_PHASES ?? 'get,list,create').split(','));
const CREATES = Number(process.env.BENCH_CREATES ?? 2000);
const APP = 'bench-app';
const CREATE_APP = 'bench-create-app';

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

async function main(): Promise<void> {
  const started = Date.now();
  const loadavgStart = os.loadavg().map((x) => round(x));
  let stack: BenchStack | undefined;
  let baseline: Baseline | undefined;
  try {
    log('starting distributed stack (gateway + IS)');
    stack = await startBenchStack();
    const auth = { authorization: `Bearer ${stack.adminKey}` };
    log(`seeding ${DEVICES} devices into ${stack.isDatabaseUrl}`);
    const t = Date.now();
    await seedDevices(stack.isDatabaseUrl, APP, DEVICES);
    const seedS = (Date.now() - t) / 1000;
    log(`seeded in ${seedS}s`);
    baseline = await startBaseline(stack.isDatabaseUrl, `bench${stack.suffix}`, stack.adminKey);

    const probe = `/api/v3/applications/${APP}/devices/${deviceId(DEVICES - 1)}`;
    const fromStack = await sanity(stack.baseUrl + probe, auth);
    const fromBaseline = await sanity(baseline.baseUrl + probe, auth);
    if (canonical(fromStack) !== canonical(fromBaseline)) {
      log(`note: responses differ: stack ${JSON.stringify(fromStack)} baseline ${JSON.stringify(fromBaseline)}`);
    }

    let get: TargetFigures | null = null;
    let base: TargetFigures | null = null;
    if (PHASES.has('get')) {
      const shared = { ...pidsByName(['mariadbd', 'mysqld', 'nats-server']), 'load-generator': process.pid };
      const pidOf = (procs: Proc[]) => Object.fromEntries(procs.map((p) => [p.name, p.child.pid ?? 0]));
      const measured = await measureInterleaved(
        [
          getTarget('get_device', stack.baseUrl, auth, { ...pidOf(stack.procs), ...shared }),
          getTarget('baseline', baseline.baseUrl, auth, { ...pidOf(baseline.procs), ...shared }),
        ],
        WARMUP_S,
        DURATION_S / ROUNDS,
        ROUNDS,
      );
      get = measured.get_device;
      base = measured.baseline;
    }
    await baseline.stop();
    baseline = undefined;
    let list: Awaited<ReturnType<typeof listDevices>> | null = null;
    if (PHASES.has('list')) {
      list = await listDevices(stack.baseUrl, auth);
      log(`list: ${JSON.stringify(list)}`);
    }
    let create: Awaited<ReturnType<typeof createDevices>> | null = null;
    if (PHASES.has('create')) {
      log(`create: ${CREATES} devices, ${CONNECTIONS} connections`);
      create = await createDevices(stack.baseUrl, auth);
      log(`create: ${JSON.stringify(create)}`);
    }
    const failures = [get, create, list].reduce((n, f) => n + (f ? f.errors + f.non2xx + f.timeouts : 0), 0);
    if (failures > 0) log(`${failures} failed requests; stack logs:\n${stack.logs().slice(-4000)}`);

    const result = {
      ratio: get && base ? round(get.req_per_s / base.req_per_s, 3) : null,
      get_device: get,
      baseline: base,
      create_devices: create,
      list_devices: list,
      setup: {
        devices: DEVICES,
        connections: CONNECTIONS,
        warmup_s: WARMUP_S,
        duration_s: DURATION_S,
        rounds: ROUNDS,
        seed_s: seedS,
        node: process.version,
        total_s: 0,
        loadavg_start: loadavgStart,
        loadavg_end: [] as number[],
      },
    };
    await stack.stop();
    stack = undefined;
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
