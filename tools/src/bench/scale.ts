import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { log, round, run } from './load';
import { cpuMs, profileFlags, reapedChildrenCpuMs } from './procs';
import { latencyFigures } from './radio';
import { type Connection, createConnection, type RowDataPacket } from 'mysql2/promise';
import { deviceId, seedDevices } from './seed';

/**
 * The registry-at-scale phases:
 *
 * - `list_scale`: one application seeded with 10 000 devices, then to 1 000 000, directly in the
 *   IS database (as the `list` phase seeds); Get p99 of a random device at both sizes (each once the
 *   database's background work after the seed has settled, the median of three rounds), and List of
 *   1000 devices ordered by name (total count included) on pages 1, 10, 100 and 1000 at 1 000 000.
 * - `import`: `npm run cli -- devices import` of 100 000 OTAA devices (a JSON-lines file written
 *   first) into all four registries through the batch routes, as a user runs it (a child process).
 */

export interface ScaleOptions {
  baseUrl: string;
  auth: Record<string, string>;
  isDatabaseUrl: string;
  app: string;
  small: number;
  large: number;
  getRequests: number;
  /** Rounds of `getRequests` Gets per size: the figure of a size is the median round's p99. */
  getRounds: number;
  listRequests: number;
  /** The database server's process: before each measurement its background work (after a seed) is let to settle. */
  databasePid?: number;
  /**
   * InnoDB buffer pool (MiB) for the phase, set with `SET GLOBAL` and restored at its end (the
   * machine's MariaDB has the default 128 MiB; 1 000 000 IS devices are ~1.2 GB of table and
   * indexes). Unset: the server's own.
   */
  bufferPoolMb?: number;
}

/** InnoDB's `Innodb_buffer_pool_reads` (pages read from outside the pool) so far. */
async function poolReads(db: Connection): Promise<number> {
  const [rows] = await db.query<RowDataPacket[]>("SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_reads'");
  return Number(rows[0]?.Value ?? 0);
}

/** Sets the InnoDB buffer pool size and waits until the server has resized it (at most 60 s); returns the size before. */
async function resizeBufferPool(db: Connection, bytes: number): Promise<number> {
  const [[before]] = await db.query<RowDataPacket[]>('SELECT @@innodb_buffer_pool_size AS size');
  await db.query('SET GLOBAL innodb_buffer_pool_size = ?', [bytes]);
  for (let i = 0; i < 300; i++) {
    await new Promise((r) => setTimeout(r, 200));
    const [status] = await db.query<RowDataPacket[]>("SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_resize_status'");
    if (!/resiz|withdraw|allocat|start/i.test(String(status[0]?.Value ?? '')) || /complet/i.test(String(status[0]?.Value ?? ''))) break;
  }
  return Number(before.size);
}

/** CPU share of a process over the next `ms` (0–1 per core), undefined when it is gone. */
async function cpuShare(pid: number, ms: number): Promise<number | undefined> {
  const before = cpuMs(pid);
  await new Promise((r) => setTimeout(r, ms));
  const after = cpuMs(pid);
  return before === undefined || after === undefined ? undefined : (after - before) / ms;
}

/**
 * Waits until the database's background work after a seed (InnoDB flushing and merging a million
 * new rows) is done: its CPU below 5 % over a second, at most `maxS`. Returns the seconds waited.
 */
async function settle(pid: number | undefined, maxS = 120): Promise<number> {
  if (!pid) return 0;
  const started = performance.now();
  while ((performance.now() - started) / 1000 < maxS) {
    const share = await cpuShare(pid, 1000);
    if (share === undefined || share < 0.05) break;
  }
  return round((performance.now() - started) / 1000);
}

/**
 * `getLatency` in rounds after a settled database: each round's figures, the round of median p99,
 * and how many pages InnoDB read from outside its buffer pool per Get.
 */
async function getLatencyRounds(o: ScaleOptions, db: Connection, devices: number) {
  const settledS = await settle(o.databasePid);
  const readsBefore = await poolReads(db);
  const rounds = [];
  for (let i = 0; i < o.getRounds; i++) rounds.push(await getLatency(o, devices, o.getRequests));
  const pageReads = (await poolReads(db)) - readsBefore;
  const median = [...rounds].sort((a, b) => a.p99_ms - b.p99_ms)[Math.floor(rounds.length / 2)];
  return {
    ...median,
    settled_s: settledS,
    round_p99_ms: rounds.map((r) => r.p99_ms),
    pool_reads_per_get: round(pageReads / rounds.reduce((n, r) => n + r.requests, 0), 3),
  };
}

/** Get p99 with `connections` clients for `amount` requests of random devices below `devices`. */
async function getLatency(o: ScaleOptions, devices: number, amount: number) {
  const latencies: number[] = [];
  const r = await run(
    {
      url: o.baseUrl,
      connections: 16,
      amount,
      headers: o.auth,
      requests: [
        {
          method: 'GET',
          setupRequest: (req: object) => ({
            ...req,
            path: `/api/v3/applications/${o.app}/devices/${deviceId(Math.floor(Math.random() * devices))}?field_mask=name`,
          }),
        },
      ],
    },
    (ms) => latencies.push(ms),
  );
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`list_scale: Get at ${devices} devices: ${r.non2xx} non-2xx, ${r.errors} errors`);
  const l = latencyFigures(latencies);
  return {
    devices,
    requests: latencies.length,
    p50_ms: l.p50,
    p99_ms: l.p99,
    req_per_s: round(r.requests.average),
  };
}

/** Sequential Lists of one page (1000 devices by name): each must hold 1000 ordered devices and the total. */
async function listPage(o: ScaleOptions, page: number, total: number) {
  const path = `/api/v3/applications/${o.app}/devices?field_mask=name&order=name&limit=1000&page=${page}`;
  const latencies: number[] = [];
  for (let k = 0; k < o.listRequests; k++) {
    const t = performance.now();
    const res = await fetch(o.baseUrl + path, { headers: o.auth });
    const body = (await res.json()) as { end_devices?: Array<{ name?: string }> };
    latencies.push(performance.now() - t);
    const names = (body.end_devices ?? []).map((d) => d.name ?? '');
    if (res.status !== 200 || names.length !== 1000) throw new Error(`list_scale: page ${page}: HTTP ${res.status}, ${names.length} devices`);
    if (names.some((n, i) => i > 0 && names[i - 1] > n)) throw new Error(`list_scale: page ${page} not ordered by name`);
    const count = Number(res.headers.get('x-total-count'));
    if (count !== total) throw new Error(`list_scale: page ${page}: X-Total-Count ${count}, expected ${total}`);
  }
  const l = latencyFigures(latencies);
  return { page, requests: latencies.length, p50_ms: l.p50, p99_ms: l.p99, max_ms: l.max };
}

export async function listScalePhase(o: ScaleOptions) {
  const db = await createConnection(o.isDatabaseUrl);
  const poolBefore = o.bufferPoolMb ? await resizeBufferPool(db, o.bufferPoolMb * 1024 * 1024) : undefined;
  try {
    return await measureAtScale(o, db);
  } finally {
    if (poolBefore !== undefined) await resizeBufferPool(db, poolBefore);
    await db.end();
  }
}

async function measureAtScale(o: ScaleOptions, db: Connection) {
  const [[pool]] = await db.query<RowDataPacket[]>('SELECT @@innodb_buffer_pool_size AS size');
  const seed = (from: number, count: number) => seedDevices(o.isDatabaseUrl, o.app, count, { from, euiPrefix: '70B3D57EE0' });
  log(`list_scale: seeding ${o.small} devices into ${o.app}`);
  await seed(0, o.small);
  const getSmall = await getLatencyRounds(o, db, o.small);
  log(`list_scale: Get at ${o.small}: ${JSON.stringify(getSmall)}`);
  log(`list_scale: seeding up to ${o.large} devices`);
  const t = Date.now();
  await seed(o.small, o.large - o.small);
  const seedS = round((Date.now() - t) / 1000);
  const getLarge = await getLatencyRounds(o, db, o.large);
  log(`list_scale: Get at ${o.large}: ${JSON.stringify(getLarge)}`);
  const pages = [];
  for (const page of [1, 10, 100, Math.floor(o.large / 1000)]) {
    const figures = await listPage(o, page, o.large);
    log(`list_scale: ${JSON.stringify(figures)}`);
    pages.push(figures);
  }
  const getRatio = round(getLarge.p99_ms / getSmall.p99_ms, 3);
  return {
    devices: o.large,
    seed_s: seedS,
    innodb_buffer_pool_mb: round(Number(pool.size) / 1024 / 1024),
    get: { small: getSmall, large: getLarge, p99_ratio: getRatio },
    list_by_name: pages,
    meets_list_target: pages.every((p) => p.p99_ms < 100),
    meets_get_target: getRatio <= 1.1,
  };
}

export interface ImportOptions {
  baseUrl: string;
  apiKey: string;
  app: string;
  devices: number;
  /** Processes whose CPU is measured during the import. */
  pids: Record<string, number>;
  batchSize?: number;
  concurrency?: number;
  /** `dist/tools/src/cli/main.js`. */
  cli: string;
}

/** The import file: OTAA devices as TTS EndDevice JSON, one per line (what `devices export` writes). */
async function writeImportFile(path: string, app: string, devices: number): Promise<void> {
  const out = createWriteStream(path);
  for (let i = 0; i < devices; i++) {
    const device = {
      ids: {
        device_id: `imp-${String(i).padStart(6, '0')}`,
        application_ids: { application_id: app },
        dev_eui: `70B3D57EF${i.toString(16).padStart(7, '0')}`.toUpperCase(),
        join_eui: '0000000000000002',
      },
      name: `Imported ${i}`,
      lorawan_version: 'MAC_V1_0_3',
      lorawan_phy_version: 'PHY_V1_0_3_REV_A',
      frequency_plan_id: 'EU_863_870_TTN',
      supports_join: true,
      root_keys: { app_key: { key: randomBytes(16).toString('hex').toUpperCase() } },
    };
    if (!out.write(`${JSON.stringify(device)}\n`)) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
}

export async function importPhase(o: ImportOptions) {
  const dir = mkdtempSync(join(tmpdir(), 'lw-bench-import-'));
  try {
    const file = join(dir, 'devices.jsonl');
    log(`import: writing ${o.devices} OTAA devices to ${file}`);
    await writeImportFile(file, o.app, o.devices);
    const args = [o.cli, 'devices', 'import', file, '--application', o.app];
    if (o.batchSize) args.push('--batch-size', String(o.batchSize));
    if (o.concurrency) args.push('--concurrency', String(o.concurrency));
    log(`import: ${args.slice(1).join(' ')}`);
    const cpuOf = () => Object.fromEntries(Object.entries(o.pids).map(([name, pid]) => [name, cpuMs(pid) ?? 0]));
    const cpuBefore = cpuOf();
    const cliCpuBefore = reapedChildrenCpuMs();
    const started = performance.now();
    const child = spawn(process.execPath, [...profileFlags('cli'), ...args], {
      env: { PATH: process.env.PATH ?? '', LORAWAN_API_URL: o.baseUrl, LORAWAN_API_KEY: o.apiKey },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    const wallS = (performance.now() - started) / 1000;
    const cpuAfter = cpuOf();
    // The CLI is the only child of the bench that ends during the phase: its CPU is what the reaped children's grew by.
    const cliCpuMs = reapedChildrenCpuMs() - cliCpuBefore;
    if (code !== 0) throw new Error(`import: the CLI exited with ${code}: ${stdout.slice(-2000)} ${stderr}`);
    const summary = JSON.parse(stdout) as Record<string, unknown>;
    const res = await fetch(`${o.baseUrl}/api/v3/applications/${o.app}/devices?limit=1`, { headers: { authorization: `Bearer ${o.apiKey}` } });
    const registered = Number(res.headers.get('x-total-count'));
    if (registered !== o.devices) throw new Error(`import: the IS holds ${registered} devices of ${o.app}, expected ${o.devices}: ${JSON.stringify(summary)}`);
    const perS = round(o.devices / wallS);
    return {
      devices: o.devices,
      wall_s: round(wallS),
      devices_per_s: perS,
      summary,
      cpu_ms_per_device: {
        ...Object.fromEntries(Object.keys(cpuAfter).map((name) => [name, round((cpuAfter[name] - cpuBefore[name]) / o.devices, 3)])),
        cli: round(cliCpuMs / o.devices, 3),
      },
      meets_3000_per_s: perS >= 3000,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
