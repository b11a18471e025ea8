import { type DataSource, type Repository } from 'typeorm';
import { sqlToTimestamp, timestampToSql } from '@lorawan/api';
import { isDuplicateKeyError, isMysql, readThenWrite, runAtomically, type Statement, timestampTransformer } from '@lorawan/persistence';
import { EndDeviceEntity } from './end-device.entity';
import { toDomain, toEntity } from './end-device.mapper';
import {
  type CreateConflict,
  type CreateManyResult,
  type CreateResult,
  type EndDeviceStore,
  type IsEndDevice,
  type ListOptions,
  SEARCH_COUNT_MAX,
  type SearchFilter,
} from './end-device.model';

/** Column each List order sorts by; every one is backed by an (application_id, column, device_id) index. */
const ORDER_COLUMNS: Record<ListOptions['order'], string> = {
  device_id: 'device_id',
  name: 'name',
  description: 'description_key',
  created_at: 'created_at',
  dev_eui: 'dev_eui',
  join_eui: 'join_eui',
};

const COLUMNS = ['application_id', 'device_id', 'dev_eui', 'join_eui', 'name', 'description', 'description_key', 'created_at', 'updated_at', 'fields'];
const SELECT_COLUMNS = COLUMNS.map((c) => `d.${c}`).join(', ');
const GET_SQL = `SELECT ${SELECT_COLUMNS} FROM end_devices d WHERE d.application_id = ? AND d.device_id = ?`;

const ROW_PLACEHOLDERS = `(${COLUMNS.map(() => '?').join(', ')})`;
const INSERT_SQL = `INSERT INTO end_devices (${COLUMNS.join(', ')}) VALUES `;

/** Rows of an application's count: an application's devices are the sum of its shards (see the migration). */
const COUNT_SHARDS = 16;
const COUNT_SQL = 'SELECT COALESCE(SUM(device_count), 0) AS total FROM end_device_counts WHERE application_id = ?';
const ADD_TO_COUNT_SQL = {
  mysql:
    'INSERT INTO end_device_counts (application_id, shard, device_count) VALUES (?, ?, ?) ON DUPLICATE KEY UPDATE device_count = device_count + VALUES(device_count)',
  sqlite:
    'INSERT INTO end_device_counts (application_id, shard, device_count) VALUES (?, ?, ?) ON CONFLICT (application_id, shard) DO UPDATE SET device_count = device_count + excluded.device_count',
};

/** The entity's column values, as TypeORM writes them (timestamps through the column transformer). */
function insertParams(row: EndDeviceEntity): unknown[] {
  const time = (value: string) => timestampTransformer.to(value) as unknown;
  return [
    row.application_id,
    row.device_id,
    row.dev_eui,
    row.join_eui,
    row.name,
    row.description,
    row.description_key,
    time(row.created_at),
    time(row.updated_at),
    row.fields,
  ];
}

type RawEndDeviceRow = Omit<EndDeviceEntity, 'created_at' | 'updated_at'> & { created_at: string | Date; updated_at: string | Date };

/** A raw row (timestamps as the driver returns them) as the entity the mapper takes. */
function fromRaw(raw: RawEndDeviceRow): EndDeviceEntity {
  return Object.assign(new EndDeviceEntity(), raw, { created_at: sqlToTimestamp(raw.created_at), updated_at: sqlToTimestamp(raw.updated_at) });
}

/**
 * List's deferred join (parameters: application, the `where` conditions' own, limit, offset,
 * application): the page's IDs from the order's index alone (a search's conditions on indexed
 * columns keep it so), `reversed` walking it from the other end, then their rows by primary key.
 */
export function listSql(join: 'STRAIGHT_JOIN' | 'CROSS JOIN', order: ListOptions['order'], descending: boolean, reversed: boolean, where = ''): string {
  const by = (alias: string, desc: boolean) => {
    const dir = desc ? 'DESC' : 'ASC';
    const column = ORDER_COLUMNS[order];
    return `${column === 'device_id' ? '' : `${alias}${column} ${dir}, `}${alias}device_id ${dir}`;
  };
  const page = `SELECT device_id FROM end_devices WHERE application_id = ?${where} ORDER BY ${by('', descending !== reversed)} LIMIT ? OFFSET ?`;
  return `SELECT ${SELECT_COLUMNS} FROM (${page}) page ${join} end_devices d ON d.application_id = ? AND d.device_id = page.device_id ORDER BY ${by('d.', descending)}`;
}

/** LIKE's escape character: a backslash would need escaping differently in MySQL and SQLite literals. */
const LIKE_ESCAPE = '!';

/** A LIKE pattern matching any text that contains `value` literally (its `%`, `_` and `!` escaped). */
export function containsPattern(value: string): string {
  return `%${value.replace(/[!%_]/g, (c) => LIKE_ESCAPE + c)}%`;
}

/**
 * A search's conditions, each ` AND …` after `application_id = ?`, and their parameters.
 * Case-insensitive: MySQL's columns are `utf8mb4_bin`, so both sides are lower-cased there; SQLite's
 * LIKE ignores the case of ASCII letters. EUIs are stored in upper-case hex, so the pattern is
 * upper-cased. Attribute values are read from the JSON document.
 */
export function searchConditions(filter: SearchFilter, mysql: boolean): { sql: string; params: string[] } {
  const params: string[] = [];
  const like = (expression: string, value: string, caseOf: 'text' | 'hex' = 'text'): string => {
    if (caseOf === 'hex') {
      params.push(containsPattern(value.toUpperCase()));
      return `${expression} LIKE ? ESCAPE '${LIKE_ESCAPE}'`;
    }
    params.push(containsPattern(mysql ? value.toLowerCase() : value));
    return `${mysql ? `LOWER(${expression})` : expression} LIKE ? ESCAPE '${LIKE_ESCAPE}'`;
  };
  const conditions: string[] = [];
  if (filter.query) {
    const q = filter.query;
    conditions.push(`(${[like('device_id', q), like('name', q), like('description', q), like('dev_eui', q, 'hex'), like('join_eui', q, 'hex')].join(' OR ')})`);
  }
  if (filter.id_contains) conditions.push(like('device_id', filter.id_contains));
  if (filter.name_contains) conditions.push(like('name', filter.name_contains));
  if (filter.description_contains) conditions.push(like('description', filter.description_contains));
  if (filter.dev_eui_contains) conditions.push(like('dev_eui', filter.dev_eui_contains, 'hex'));
  if (filter.join_eui_contains) conditions.push(like('join_eui', filter.join_eui_contains, 'hex'));
  for (const [key, value] of Object.entries(filter.attributes_contain ?? {})) {
    const attribute = mysql ? 'JSON_UNQUOTE(JSON_EXTRACT(fields, ?))' : 'json_extract(fields, ?)';
    params.push(`$.attributes.${JSON.stringify(key)}`);
    conditions.push(like(attribute, value));
  }
  return { sql: conditions.map((c) => ` AND ${c}`).join(''), params };
}

/** `?, ?, …` for `n` values. */
function placeholders(n: number): string {
  return Array.from({ length: n }, () => '?').join(', ');
}

/**
 * The IS end-device store on TypeORM: MySQL/MariaDB in distributed mode, SQLite embedded. Every
 * insert and delete of devices also adds its difference to the application's count
 * (`end_device_counts`), in the same transaction.
 */
export class TypeOrmEndDeviceStore implements EndDeviceStore {
  private readonly repo: Repository<EndDeviceEntity>;
  private readonly addToCountSql: string;
  /** MySQL has STRAIGHT_JOIN to read the page's IDs first; SQLite reads the tables of a CROSS JOIN in the order written. */
  private readonly pageJoin: 'STRAIGHT_JOIN' | 'CROSS JOIN';

  private readonly mysql: boolean;

  constructor(private readonly dataSource: DataSource) {
    this.repo = dataSource.getRepository(EndDeviceEntity);
    const mysql = isMysql(dataSource);
    this.mysql = mysql;
    this.addToCountSql = mysql ? ADD_TO_COUNT_SQL.mysql : ADD_TO_COUNT_SQL.sqlite;
    this.pageJoin = mysql ? 'STRAIGHT_JOIN' : 'CROSS JOIN';
  }

  async create(device: IsEndDevice): Promise<CreateResult> {
    // Fixed statements (building them with TypeORM's InsertQueryBuilder cost a quarter of a Create);
    // every column is given, so there is nothing to reload after the insert.
    const result = await this.insert([device]);
    return result.ok ? result : { ok: false, ...result.conflict };
  }

  async createMany(devices: IsEndDevice[]): Promise<CreateManyResult> {
    if (devices.length === 0) return { ok: true };
    // The batch is one multi-row statement; a duplicate key fails it whole without saying which
    // device collided, so the devices are looked up one by one (in order) to name the first.
    const result = await this.insert(devices);
    return result.ok ? result : { ok: false, index: result.index, ...result.conflict };
  }

  /** Inserts devices of one application (and counts them) in one transaction; on a duplicate key, names the first device with a conflict. */
  private async insert(devices: IsEndDevice[]): Promise<{ ok: true } | { ok: false; index: number; conflict: CreateConflict }> {
    const applicationId = devices[0].ids.application_ids.application_id;
    const insert: Statement = {
      sql: INSERT_SQL + devices.map(() => ROW_PLACEHOLDERS).join(', '),
      params: devices.flatMap((d) => insertParams(toEntity(d))) as Statement['params'],
    };
    // A conflicting device may be gone by the time it is looked for: then the insert is tried again.
    for (let attempt = 0; ; attempt++) {
      try {
        await runAtomically(this.dataSource, [insert, this.addToCount(applicationId, devices.length)]);
        return { ok: true };
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
        const found = await this.firstConflict(devices);
        if (found || attempt >= 2) return found ?? { ok: false, index: 0, conflict: { conflict: 'id' } };
      }
    }
  }

  private async firstConflict(devices: IsEndDevice[]): Promise<{ ok: false; index: number; conflict: CreateConflict } | undefined> {
    const applicationId = devices[0].ids.application_ids.application_id;
    const taken = await this.existingIds(
      applicationId,
      devices.map((d) => d.ids.device_id),
    );
    for (const [index, device] of devices.entries()) {
      if (taken.has(device.ids.device_id)) return { ok: false, index, conflict: { conflict: 'id' } };
      const { dev_eui, join_eui } = device.ids;
      const holder = dev_eui && join_eui ? await this.findByEuis(join_eui, dev_eui) : undefined;
      if (holder) return { ok: false, index, conflict: { conflict: 'euis', holder: holder.ids } };
    }
    return undefined;
  }

  private async existingIds(applicationId: string, deviceIds: string[]): Promise<Set<string>> {
    const rows = (await this.dataSource.query(
      `SELECT device_id FROM end_devices WHERE application_id = ? AND device_id IN (${placeholders(deviceIds.length)})`,
      [applicationId, ...deviceIds],
    )) as Array<{ device_id: string }>;
    return new Set(rows.map((r) => r.device_id));
  }

  /** Adds `difference` to one shard of the application's count, picked at random so concurrent writers rarely share a row. */
  private addToCount(applicationId: string, difference: number): Statement {
    return { sql: this.addToCountSql, params: [applicationId, Math.floor(Math.random() * COUNT_SHARDS), difference] };
  }

  /** The hot path: one fixed primary-key statement (TypeORM's findOne rebuilds its query on every call). */
  async get(applicationId: string, deviceId: string): Promise<IsEndDevice | undefined> {
    const rows = (await this.dataSource.query(GET_SQL, [applicationId, deviceId])) as RawEndDeviceRow[];
    return rows.length > 0 ? toDomain(fromRaw(rows[0])) : undefined;
  }

  async getMany(applicationId: string, deviceIds: string[]): Promise<IsEndDevice[]> {
    if (deviceIds.length === 0) return [];
    const rows = (await this.dataSource.query(
      `SELECT ${SELECT_COLUMNS} FROM end_devices d WHERE d.application_id = ? AND d.device_id IN (${placeholders(deviceIds.length)}) ORDER BY d.device_id`,
      [applicationId, ...deviceIds],
    )) as RawEndDeviceRow[];
    return rows.map((row) => toDomain(fromRaw(row)));
  }

  async findByEuis(joinEui: string, devEui: string): Promise<IsEndDevice | undefined> {
    const row = await this.repo.findOne({ where: { join_eui: joinEui, dev_eui: devEui } });
    return row ? toDomain(row) : undefined;
  }

  /**
   * A deferred join: the page's device IDs are read from the order's (application_id, column,
   * device_id) index alone (skipping `offset` index entries, not rows), then only those rows are
   * read by primary key. A page past the middle is read from the other end of the index, so the
   * last pages cost what the first do. The total is the application's kept count.
   */
  async list(applicationId: string, options: ListOptions): Promise<{ devices: IsEndDevice[]; total: number }> {
    const total = await this.count(applicationId);
    return { devices: await this.page(applicationId, options, total, { sql: '', params: [] }), total };
  }

  /**
   * List's deferred join over the matching devices. The matches are counted first by a query that
   * stops at SEARCH_COUNT_MAX (a count of a million devices' substrings is not bounded otherwise);
   * below that bound the count is exact and a page past the middle is read from the other end.
   */
  async search(applicationId: string, filter: SearchFilter, options: ListOptions): Promise<{ devices: IsEndDevice[]; total: number }> {
    const where = searchConditions(filter, this.mysql);
    const [row] = (await this.dataSource.query(`SELECT COUNT(*) AS total FROM (SELECT 1 FROM end_devices WHERE application_id = ?${where.sql} LIMIT ?) m`, [
      applicationId,
      ...where.params,
      SEARCH_COUNT_MAX,
    ])) as Array<{ total: number | string }>;
    const total = Number(row?.total ?? 0);
    // At the bound the count is not the number of matches: a page is then read from the start only.
    return { devices: await this.page(applicationId, options, total, where, total < SEARCH_COUNT_MAX), total };
  }

  /** A page of `total` devices (those matching `where`); read from the index's other end past the middle when `total` is exact. */
  private async page(
    applicationId: string,
    options: ListOptions,
    total: number,
    where: { sql: string; params: string[] },
    exact = true,
  ): Promise<IsEndDevice[]> {
    const { limit, offset } = options;
    if (offset >= total || limit <= 0) return [];
    const fromEnd = total - offset - limit;
    const reversed = exact && fromEnd < offset;
    const scan = reversed ? { limit: limit + Math.min(fromEnd, 0), offset: Math.max(fromEnd, 0) } : { limit, offset };
    const sql = listSql(this.pageJoin, options.order, options.descending, reversed, where.sql);
    const rows = (await this.dataSource.query(sql, [applicationId, ...where.params, scan.limit, scan.offset, applicationId])) as RawEndDeviceRow[];
    return rows.map((row) => toDomain(fromRaw(row)));
  }

  private async count(applicationId: string): Promise<number> {
    const [row] = (await this.dataSource.query(COUNT_SQL, [applicationId])) as Array<{ total: number | string }>;
    return Number(row?.total ?? 0);
  }

  async replace(device: IsEndDevice, expectedUpdatedAt: string): Promise<boolean> {
    const row = toEntity(device);
    const result = await this.repo
      .createQueryBuilder()
      .update(EndDeviceEntity)
      .set({ name: row.name, description: row.description, description_key: row.description_key, updated_at: row.updated_at, fields: row.fields })
      .where('application_id = :a AND device_id = :d AND updated_at = :u', {
        a: row.application_id,
        d: row.device_id,
        u: timestampToSql(expectedUpdatedAt),
      })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  async delete(applicationId: string, deviceId: string): Promise<boolean> {
    return (await this.deleteMany(applicationId, [deviceId])).length > 0;
  }

  async deleteMany(applicationId: string, deviceIds: string[]): Promise<Array<IsEndDevice['ids']>> {
    if (deviceIds.length === 0) return [];
    const ids = placeholders(deviceIds.length);
    // The locking read holds the rows until the commit, so a concurrent delete of the same device
    // waits and then finds it gone: each deleted device is counted once.
    return readThenWrite(
      this.dataSource,
      [
        {
          sql: `SELECT application_id, device_id, dev_eui, join_eui FROM end_devices WHERE application_id = ? AND device_id IN (${ids}) ORDER BY device_id`,
          params: [applicationId, ...deviceIds],
          lock: true,
        },
      ],
      ([rows]) => {
        const found = rows as Array<Pick<EndDeviceEntity, 'application_id' | 'device_id' | 'dev_eui' | 'join_eui'>>;
        if (found.length === 0) return { result: [], writes: [] };
        const deleted = found.map((r) => r.device_id);
        return {
          result: found.map(({ device_id, dev_eui, join_eui }) => ({
            device_id,
            application_ids: { application_id: applicationId },
            ...(dev_eui ? { dev_eui } : {}),
            ...(join_eui ? { join_eui } : {}),
          })),
          writes: [
            { sql: `DELETE FROM end_devices WHERE application_id = ? AND device_id IN (${placeholders(deleted.length)})`, params: [applicationId, ...deleted] },
            this.addToCount(applicationId, -deleted.length),
          ],
        };
      },
    );
  }
}
