import type { DataSource } from 'typeorm';
import { isMysql } from '@lorawan/persistence';

export const STORED_UP_STORE = Symbol('STORED_UP_STORE');

/** One stored ApplicationUp: where it belongs, its type, when it was received (epoch ms), its FPort, the message as JSON. */
export interface StoredUpRow {
  applicationId: string;
  deviceId: string;
  type: string;
  receivedAt: number;
  fPort?: number;
  up: string;
}

/** What a query or count selects: an application's messages, or one device's; bounds exclusive. */
export interface StoredUpFilter {
  applicationId: string;
  deviceId?: string;
  /** Undefined: every type. */
  type?: string;
  /** Received after / before these (epoch ms, exclusive). */
  after?: number;
  before?: number;
  fPort?: number;
}

export interface StoredUpQuery extends StoredUpFilter {
  descending: boolean;
  /** The most rows to read. */
  limit: number;
  /** Continue past this row (the last one a previous page gave): the rows after it in the order asked. */
  cursor?: { receivedAt: number; id: number };
}

export interface StoredUpResult {
  id: number;
  receivedAt: number;
  up: string;
}

/** The Storage Integration's messages. */
export interface StoredUpStore {
  /** All rows in one multi-row INSERT. */
  insert(rows: readonly StoredUpRow[]): Promise<void>;
  /** Rows in `received_at` order (then write order), ascending or descending. */
  query(query: StoredUpQuery): Promise<StoredUpResult[]>;
  /** How many rows match, by device ID. */
  count(filter: StoredUpFilter): Promise<Record<string, number>>;
  /** Deletes at most `limit` rows received before `cutoff` (epoch ms); returns how many went. */
  deleteReceivedBefore(cutoff: number, limit: number): Promise<number>;
}

/** The WHERE clause of a filter and its parameters. */
function where(filter: StoredUpFilter): { sql: string; params: unknown[] } {
  const parts = ['application_id = ?'];
  const params: unknown[] = [filter.applicationId];
  const add = (sql: string, value: unknown) => {
    parts.push(sql);
    params.push(value);
  };
  if (filter.deviceId !== undefined) add('device_id = ?', filter.deviceId);
  if (filter.type !== undefined) add('type = ?', filter.type);
  if (filter.after !== undefined) add('received_at > ?', filter.after);
  if (filter.before !== undefined) add('received_at < ?', filter.before);
  if (filter.fPort !== undefined) add('f_port = ?', filter.fPort);
  return { sql: parts.join(' AND '), params };
}

/** The stored messages on the AS's own database (MySQL/MariaDB or SQLite), fixed SQL through the DataSource. */
export class SqlStoredUpStore implements StoredUpStore {
  constructor(private readonly dataSource: DataSource) {}

  async insert(rows: readonly StoredUpRow[]): Promise<void> {
    if (rows.length === 0) return;
    const values = rows.map(() => '(?, ?, ?, ?, ?, ?)').join(', ');
    const params = rows.flatMap((r) => [r.applicationId, r.deviceId, r.type, r.receivedAt, r.fPort ?? null, r.up]);
    await this.dataSource.query(`INSERT INTO stored_application_ups (application_id, device_id, type, received_at, f_port, up) VALUES ${values}`, params);
  }

  async query(query: StoredUpQuery): Promise<StoredUpResult[]> {
    const { sql, params } = where(query);
    const dir = query.descending ? 'DESC' : 'ASC';
    let cursor = '';
    if (query.cursor) {
      const op = query.descending ? '<' : '>';
      cursor = ` AND (received_at ${op} ? OR (received_at = ? AND id ${op} ?))`;
      params.push(query.cursor.receivedAt, query.cursor.receivedAt, query.cursor.id);
    }
    const rows = (await this.dataSource.query(
      `SELECT id, received_at, up FROM stored_application_ups WHERE ${sql}${cursor} ORDER BY received_at ${dir}, id ${dir} LIMIT ${Math.max(0, Math.floor(query.limit))}`,
      params,
    )) as { id: number | string; received_at: number | string; up: string }[];
    return rows.map((r) => ({ id: Number(r.id), receivedAt: Number(r.received_at), up: r.up }));
  }

  async count(filter: StoredUpFilter): Promise<Record<string, number>> {
    const { sql, params } = where(filter);
    const rows = (await this.dataSource.query(
      `SELECT device_id, COUNT(*) AS n FROM stored_application_ups WHERE ${sql} GROUP BY device_id ORDER BY device_id`,
      params,
    )) as { device_id: string; n: number | string }[];
    return Object.fromEntries(rows.map((r) => [r.device_id, Number(r.n)]));
  }

  async deleteReceivedBefore(cutoff: number, limit: number): Promise<number> {
    const n = Math.max(1, Math.floor(limit));
    // MySQL/MariaDB take a LIMIT on DELETE but not in an IN subquery; SQLite (without its optional LIMIT clause) the other way round.
    const sql = isMysql(this.dataSource)
      ? `DELETE FROM stored_application_ups WHERE received_at < ? ORDER BY received_at LIMIT ${n}`
      : `DELETE FROM stored_application_ups WHERE id IN (SELECT id FROM stored_application_ups WHERE received_at < ? ORDER BY received_at LIMIT ${n})`;
    const runner = this.dataSource.createQueryRunner();
    try {
      const result = (await runner.query(sql, [cutoff], true)) as { affected?: number };
      return result.affected ?? 0;
    } finally {
      await runner.release();
    }
  }
}
