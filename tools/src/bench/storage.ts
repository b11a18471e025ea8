import { createConnection } from 'mysql2/promise';
import { log, round } from './load';
import { expect200, type HttpTarget, latencyFigures, type RadioPhaseOptions, settle, sleep } from './radio';
import { Connection } from './register';
import { buildFrames, type Frame, openUplinkLoad, type RadioNames, unconfirmedMeasurement, type UplinkLoad, warmUp } from './uplinks';

/**
 * `storage` (issue 34): the Storage Integration under the `uplinks` phase's unconfirmed load, and
 * its queries over many stored messages.
 *
 * - Write cost: the same load (`o.rate` for `o.durationS`, the uplinks phase's devices, gateways,
 *   warm-up and webhook) measured `rounds` times without and with a default `storage-integration`
 *   association on the application (ApplicationPackageRegistry, `PUT …/packages/associations/200`,
 *   deleted again between rounds), alternating, so that other load on the machine hits both
 *   alike: the AS's (and MariaDB's) CPU per uplink and the webhook's p99 with storage off and on.
 *   With storage on, every uplink must be stored (the `/count` of the application afterwards).
 * - Queries: `rows` uplink messages of one device seeded straight into the AS's database (one
 *   `INSERT … SELECT` per 100 000 rows from MariaDB's sequence engine, the columns as
 *   `SqlStoredUpStore.insert` writes them, `up` a real stored message of that device with its
 *   `received_at` and `f_cnt` made unique), then `queries` sequential requests of each kind: the
 *   newest 1000 (`?limit=1000&order=-received_at`), the newest 1000 of the last hour
 *   (`?last=3600s&…`), and the device's `/count`; p50/p99/max, each answer checked; and MariaDB's
 *   plan (EXPLAIN) of the store's statements for them.
 */
export interface StorageOptions extends RadioPhaseOptions {
  /** mysql:// URL of the AS's database. */
  asDatabaseUrl: string;
  /** Stored messages of the queried device. */
  rows: number;
  /** Requests of each query kind. */
  queries: number;
  /** Pairs of measurements (without, then with storage). */
  rounds: number;
}

export const STORAGE_NAMES: RadioNames = { label: 'storage', deviceIdPrefix: 'st', devEuiPrefix: '70B3D57ED0', gatewayIdPrefix: 'bench-st-gtw' };
const PACKAGE = 'storage-integration';
/** The association's FPort (any: the Storage Integration stores every FPort). */
const ASSOCIATION_F_PORT = 200;
/** The bound on a query of the newest 1000 messages of a device. */
const QUERY_TARGET_MS = 200;
const SEED_CHUNK = 100_000;
/** Seeded messages one every this many ms, ending a minute ago (inside the default 30-day retention for up to ~1.2 M rows). */
const SEED_STEP_MS = 2000;

type Unconfirmed = Awaited<ReturnType<typeof unconfirmedMeasurement>>;

/** The figures of one measurement that the comparison needs. */
function summary(u: Unconfirmed) {
  return {
    sent: u.sent,
    delivered: u.delivered,
    missing: u.missing,
    delivered_per_s: u.delivered_per_s,
    webhook_latency_ms: u.latency_ms,
    cpu_ms_per_uplink: u.cpu_ms_per_uplink,
    cpu_cores: u.cpu_cores,
    other_cores: u.other_cores,
  };
}

/** A GET answered 200, its body (the storage queries are streamed, without a Content-Length: not for `Connection`). */
async function getOk(o: HttpTarget, path: string): Promise<string> {
  const res = await fetch(o.baseUrl + path, { headers: o.auth });
  const body = await res.text();
  if (res.status !== 200) throw new Error(`GET ${path}: HTTP ${res.status} ${body.slice(0, 1000)}`);
  return body;
}

/** The median (of an even count, the mean of the middle two). */
function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return round(sorted.length % 2 ? sorted[mid] : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2, 3);
}

async function storedCount(conn: Connection, path: string): Promise<number> {
  const body = JSON.parse(await expect200(conn, 'GET', path)) as { count?: Record<string, number> };
  return Object.values(body.count ?? {}).reduce((a, b) => a + b, 0);
}

/** Storage off and on, `rounds` times: CPU per uplink and webhook p99 of each, and their ratios (medians over the rounds). */
async function writeCost(ready: UplinkLoad, o: StorageOptions, frames: Frame[][], conn: Connection) {
  const label = STORAGE_NAMES.label;
  const association = `/api/v3/as/applications/${o.applicationId}/packages/associations/${ASSOCIATION_F_PORT}`;
  const countPath = `/api/v3/as/applications/${o.applicationId}/packages/storage/uplink_message/count`;
  const rounds: Array<{ off: ReturnType<typeof summary>; on: ReturnType<typeof summary>; stored: number; store_wait_s: number }> = [];
  for (let r = 0; r < o.rounds; r++) {
    const off = await unconfirmedMeasurement(ready, o, frames[2 * r], `${label}: round ${r + 1}, storage off`);
    await settle(ready.stackPids);
    await expect200(conn, 'PUT', association, { default: { package_name: PACKAGE }, field_mask: { paths: ['package_name'] } });
    const storedBefore = await storedCount(conn, countPath);
    const on = await unconfirmedMeasurement(ready, o, frames[2 * r + 1], `${label}: round ${r + 1}, storage on`);
    // The writer's batches are off the message path: wait for the last of them.
    const waitStart = performance.now();
    let stored = 0;
    for (let i = 0; i < 100; i++) {
      stored = (await storedCount(conn, countPath)) - storedBefore;
      if (stored >= on.delivered) break;
      await sleep(100);
    }
    rounds.push({ off: summary(off), on: summary(on), stored, store_wait_s: round((performance.now() - waitStart) / 1000) });
    await expect200(conn, 'DELETE', association);
    await settle(ready.stackPids);
  }
  const ratio = (process: string) => median(rounds.map((x) => (x.on.cpu_ms_per_uplink[process] ?? 0) / Math.max(1e-9, x.off.cpu_ms_per_uplink[process] ?? 0)));
  // The AS against processes storage does not touch (NS + GS), in the same measurement: what the machine's other work moves alike cancels out.
  const asVsNsGs = (c: Record<string, number>) => (c.as ?? 0) / Math.max(1e-9, (c.ns ?? 0) + (c.gs ?? 0));
  return {
    rounds,
    /** Storage on ÷ off, medians over the rounds: the AS's and MariaDB's CPU per delivered uplink, the webhook's p99. */
    as_cpu_per_uplink_ratio: ratio('as'),
    /** The same of the AS's CPU ÷ the NS's and GS's (per uplink) in each measurement. */
    as_vs_ns_gs_ratio: median(rounds.map((x) => asVsNsGs(x.on.cpu_ms_per_uplink) / Math.max(1e-9, asVsNsGs(x.off.cpu_ms_per_uplink)))),
    mariadb_cpu_per_uplink_ratio: ratio('mariadbd') || ratio('mysqld'),
    webhook_p99_ms: { off: median(rounds.map((x) => x.off.webhook_latency_ms.p99)), on: median(rounds.map((x) => x.on.webhook_latency_ms.p99)) },
    every_uplink_stored: rounds.every((x) => x.stored >= x.on.delivered),
  };
}

/**
 * `rows` messages of `deviceId` straight into `stored_application_ups`, newest a minute ago, one
 * every SEED_STEP_MS, each a copy of `template` (a stored message of the device) with its own
 * `received_at` and `f_cnt`.
 */
async function seedStoredUps(databaseUrl: string, applicationId: string, deviceId: string, rows: number, template: Record<string, unknown>) {
  const db = await createConnection({ uri: databaseUrl });
  try {
    await db.query("SET time_zone = '+00:00'");
    const uplink = template.uplink_message as Record<string, unknown>;
    const json = JSON.stringify({ ...template, received_at: '\u0000', uplink_message: { ...uplink, f_cnt: '\u0001' } });
    const parts = json.split(/"\\u0000"|"\\u0001"/);
    if (parts.length !== 3) throw new Error('storage: the stored message template has no received_at or f_cnt');
    const timeFirst = json.indexOf('"\\u0000"') < json.indexOf('"\\u0001"');
    const newest = Date.now() - 60_000;
    const oldest = newest - (rows - 1) * SEED_STEP_MS;
    for (let from = 0; from < rows; from += SEED_CHUNK) {
      const n = Math.min(SEED_CHUNK, rows - from);
      // received_at (epoch ms) = oldest + (from + seq) × step; the JSON's RFC 3339 text of it, ms precision; the FCnt (16 bits) from the row's number.
      const at = `(${oldest} + (${from} + seq) * ${SEED_STEP_MS})`;
      const time = `CONCAT('"', DATE_FORMAT(FROM_UNIXTIME(${at} DIV 1000), '%Y-%m-%dT%H:%i:%s'), '.', LPAD(${at} MOD 1000, 3, '0'), 'Z"')`;
      const fCnt = `((${from} + seq) MOD 65536)`;
      const [first, second] = timeFirst ? [time, fCnt] : [fCnt, time];
      await db.query(
        `INSERT INTO stored_application_ups (application_id, device_id, type, received_at, f_port, up)
         SELECT ?, ?, 'uplink_message', ${at}, 1, CONCAT(?, ${first}, ?, ${second}, ?) FROM seq_0_to_${n - 1}`,
        [applicationId, deviceId, ...parts],
      );
    }
    await db.query('ANALYZE TABLE stored_application_ups');
  } finally {
    await db.end();
  }
}

/** MariaDB's plan of the store's statements (`SqlStoredUpStore`) for a device's newest page, the next page and the count. */
async function plans(databaseUrl: string, applicationId: string, deviceId: string, cursor: { receivedAt: number; id: number }) {
  const db = await createConnection({ uri: databaseUrl });
  try {
    const explain = async (sql: string, params: unknown[]) => {
      const [rows] = await db.query(`EXPLAIN ${sql}`, params);
      return (rows as Array<Record<string, unknown>>).map((r) => ({ type: r.type, key: r.key, key_len: r.key_len, ref: r.ref, rows: r.rows, extra: r.Extra }));
    };
    const where = 'application_id = ? AND device_id = ? AND type = ?';
    const ids = [applicationId, deviceId, 'uplink_message'];
    const [indexes] = await db.query('SHOW INDEX FROM stored_application_ups');
    const byName: Record<string, string[]> = {};
    for (const r of indexes as Array<{ Key_name: string; Column_name: string }>) (byName[r.Key_name] ??= []).push(r.Column_name);
    return {
      indexes: byName,
      first_page: await explain(`SELECT id, received_at, up FROM stored_application_ups WHERE ${where} ORDER BY received_at DESC, id DESC LIMIT 501`, ids),
      next_page: await explain(
        `SELECT id, received_at, up FROM stored_application_ups WHERE ${where} AND (received_at < ? OR (received_at = ? AND id < ?)) ORDER BY received_at DESC, id DESC LIMIT 501`,
        [...ids, cursor.receivedAt, cursor.receivedAt, cursor.id],
      ),
      count: await explain(`SELECT device_id, COUNT(*) AS n FROM stored_application_ups WHERE ${where} GROUP BY device_id ORDER BY device_id`, ids),
    };
  } finally {
    await db.end();
  }
}

interface StoredLine {
  result?: { received_at?: string; uplink_message?: { f_cnt?: number } };
}

interface QueryKind {
  path: string;
  /** Why the answer is wrong, or undefined. */
  check(body: string): string | undefined;
}

/**
 * `queries` rounds of sequential GETs, one of each kind per round (interleaved, so that what else
 * the machine does hits every kind alike), after one of each not counted; each answer checked:
 * p50/p99/max of request to last byte, per kind.
 */
async function timeQueries<K extends string>(
  o: HttpTarget,
  kinds: Record<K, QueryKind>,
  queries: number,
): Promise<Record<K, ReturnType<typeof latencyFigures>>> {
  const times = Object.fromEntries(Object.keys(kinds).map((k) => [k, [] as number[]])) as Record<K, number[]>;
  for (let i = 0; i <= queries; i++) {
    for (const [name, kind] of Object.entries(kinds) as Array<[K, QueryKind]>) {
      const t = performance.now();
      const body = await getOk(o, kind.path);
      if (i > 0) times[name].push(performance.now() - t);
      const wrong = kind.check(body);
      if (wrong) throw new Error(`storage: GET ${kind.path}: ${wrong}`);
    }
  }
  return Object.fromEntries(Object.entries(times).map(([k, v]) => [k, latencyFigures(v as number[])])) as Record<K, ReturnType<typeof latencyFigures>>;
}

/** The newest messages, newest first: `limit` lines (at most, when not `exact`), in descending `received_at`. */
function newestFirst(limit: number, exact = true) {
  return (body: string) => {
    const lines = body.split('\n').filter((l) => l.length > 0);
    if (exact ? lines.length !== limit : lines.length === 0 || lines.length > limit) return `${lines.length} results, not ${exact ? '' : 'up to '}${limit}`;
    const times = lines.map((l) => Date.parse((JSON.parse(l) as StoredLine).result?.received_at ?? ''));
    if (times.some((t, i) => Number.isNaN(t) || (i > 0 && times[i - 1] < t))) return 'results not in descending received_at';
    return undefined;
  };
}

async function queryTimes(ready: UplinkLoad, o: StorageOptions, conn: Connection) {
  const label = STORAGE_NAMES.label;
  const deviceId = ready.devices[ready.active[0]].deviceId;
  const base = `/api/v3/as/applications/${o.applicationId}/devices/${deviceId}/packages/storage/uplink_message`;
  // A real stored message of the device: the template of the seeded ones.
  const latest = (await getOk(o, `${base}?limit=1&order=-received_at`)).split('\n')[0];
  const template = (JSON.parse(latest) as { result: Record<string, unknown> }).result;
  if (!template?.uplink_message) throw new Error(`storage: no stored uplink of ${deviceId} to seed from`);
  log(`${label}: seeding ${o.rows} stored uplinks of ${deviceId} (${latest.length} bytes each) into ${o.asDatabaseUrl}`);
  const seedStart = performance.now();
  await seedStoredUps(o.asDatabaseUrl, o.applicationId, deviceId, o.rows, template);
  const seedS = (performance.now() - seedStart) / 1000;
  const count = await storedCount(conn, `${base}/count`);
  log(`${label}: seeded in ${round(seedS)}s; the device has ${count} stored uplinks`);
  if (count < o.rows) throw new Error(`storage: ${count} stored uplinks of ${deviceId} after seeding ${o.rows}`);
  const limit = Math.min(1000, o.rows);
  const timed = await timeQueries(
    o,
    {
      newest: { path: `${base}?limit=${limit}&order=-received_at`, check: newestFirst(limit) },
      // One message every SEED_STEP_MS: the last hour holds 1000 of them (once enough were seeded).
      last_hour: { path: `${base}?last=3600s&limit=${limit}&order=-received_at`, check: newestFirst(limit, o.rows * SEED_STEP_MS > 3_700_000) },
      count: {
        path: `${base}/count`,
        check: (body) => {
          const n = (JSON.parse(body) as { count?: Record<string, number> }).count?.[deviceId];
          return n === count ? undefined : `count ${n}, not ${count}`;
        },
      },
    },
    o.queries,
  );
  // The cursor of the second page (the store's pages are 500 rows).
  const page = (await getOk(o, `${base}?limit=500&order=-received_at`)).trim().split('\n');
  const cursorAt = Date.parse((JSON.parse(page[page.length - 1]) as StoredLine).result?.received_at ?? '');
  const plan = await plans(o.asDatabaseUrl, o.applicationId, deviceId, { receivedAt: cursorAt, id: Number.MAX_SAFE_INTEGER });
  const result = {
    device_rows: count,
    row_bytes: latest.length,
    seed_s: round(seedS),
    seed_rows_per_s: round(o.rows / seedS),
    queries: o.queries,
    newest_1000_ms: timed.newest,
    last_hour_1000_ms: timed.last_hour,
    count_ms: timed.count,
    target_ms: QUERY_TARGET_MS,
    meets_target: timed.newest.p99 < QUERY_TARGET_MS,
    explain: plan,
  };
  log(`${label}: queries ${JSON.stringify(result)}`);
  return result;
}

export async function storagePhase(o: StorageOptions) {
  const label = STORAGE_NAMES.label;
  const measuredUplinks = Math.round(o.rate * o.durationS);
  const ready = await openUplinkLoad(o, STORAGE_NAMES, 2 * o.rounds * measuredUplinks, 2 * o.rounds * o.durationS);
  const conn = new Connection(o.baseUrl, o.auth);
  try {
    const { devices, active } = ready;
    // In FCnt order: the warm-up, then each measurement's.
    const warmFrames = buildFrames(devices, active, o.warmup, false);
    const frames = Array.from({ length: 2 * o.rounds }, () => buildFrames(devices, active, measuredUplinks, false));
    const { warm } = await warmUp(ready, o, warmFrames, label);
    const write = await writeCost(ready, o, frames, conn);
    log(`${label}: write cost ${JSON.stringify({ ...write, rounds: undefined })}`);
    const queries = await queryTimes(ready, o, conn);
    return {
      devices: ready.figures.active_devices,
      gateways: o.gateways,
      rate: o.rate,
      duration_s: o.durationS,
      warmup: warm,
      write,
      queries,
    };
  } finally {
    conn.close();
    await ready.close();
  }
}
