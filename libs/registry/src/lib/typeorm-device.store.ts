import type { DataSource } from 'typeorm';
import { sqlToTimestamp, timestampToSql } from '@lorawan/api';
import { isDuplicateKeyError, readThenWrite, runStatement, type Statement } from '@lorawan/persistence';
import type { CreateResult, DeviceLookup, DeviceRecord, DeviceStore, ReplaceResult } from './device-record';
import { type DocumentEncoder, PLAIN_ENCODER } from './document-encoder';

const KEY_COLUMNS = 'application_id, device_id, dev_eui, join_eui, dev_addr, pending_dev_addr, created_at, updated_at, revision';
const COLUMNS = `${KEY_COLUMNS}, fields`;
/**
 * COLUMNS, with `fields` NULL for the device given as (application_id, device_id, revision,
 * created_at) while it is at that revision: its creation time tells a device deleted and created
 * again (by another replica, revision 1 again) from the one the caller knows.
 */
const KNOWN_COLUMNS = `${KEY_COLUMNS}, CASE WHEN application_id = ? AND device_id = ? AND revision = ? AND created_at = ? THEN NULL ELSE fields END AS fields`;
/** Enough to tell "one" from "several" without reading a whole DevAddr block. */
const CANDIDATE_LIMIT = 16;

interface Row {
  application_id: string;
  device_id: string;
  dev_eui: string | null;
  join_eui: string | null;
  dev_addr: string | null;
  pending_dev_addr: string | null;
  created_at: string | Date;
  updated_at: string | Date;
  revision: number | string;
  /** NULL only when the known record of `get` or `findBySessionDevAddr` is still current. */
  fields: string | null;
}

function toRecord(row: Row): DeviceRecord {
  const ids: DeviceRecord['ids'] = { device_id: row.device_id, application_ids: { application_id: row.application_id } };
  if (row.dev_eui) ids.dev_eui = row.dev_eui;
  if (row.join_eui) ids.join_eui = row.join_eui;
  if (row.dev_addr) ids.dev_addr = row.dev_addr;
  return {
    ids,
    created_at: sqlToTimestamp(row.created_at),
    updated_at: sqlToTimestamp(row.updated_at),
    revision: Number(row.revision),
    fields: JSON.parse(row.fields ?? '{}') as Record<string, unknown>,
  };
}

/** The parameters of KNOWN_COLUMNS for a known record (none: no row matches them). */
function knownParams(known: DeviceRecord | undefined): unknown[] {
  if (!known) return ['', '', -1, ''];
  return [known.ids.application_ids.application_id, known.ids.device_id, known.revision, known.created_at ? timestampToSql(known.created_at) : ''];
}

/** The known record when the row left its document out (the device is still at the known revision), else the row's record. */
function knownOrRecord(row: Row, known: DeviceRecord | undefined): DeviceRecord {
  return row.fields === null && known ? known : toRecord(row);
}

function toParams(r: DeviceRecord, encoder: DocumentEncoder): Statement['params'] {
  return [
    r.ids.application_ids.application_id,
    r.ids.device_id,
    r.ids.dev_eui ?? null,
    r.ids.join_eui ?? null,
    r.ids.dev_addr ?? null,
    pendingDevAddrOf(r),
    timestampToSql(r.created_at),
    timestampToSql(r.updated_at),
    r.revision,
    encoder.encode(r.fields),
  ];
}

/** The DevAddr of the record's pending session, if any (kept in its own indexed column). */
function pendingDevAddrOf(r: DeviceRecord): string | null {
  const pending = r.fields.pending_session as { dev_addr?: unknown } | undefined;
  return typeof pending?.dev_addr === 'string' ? pending.dev_addr : null;
}

/**
 * A JS/NS/AS registry's devices on TypeORM's connection: MySQL/MariaDB in distributed mode,
 * SQLite embedded. Fixed SQL statements (no query building on the hot paths). `encoder`: how a
 * record's fields become the `fields` text (`SharedTextEncoder` where documents are never changed
 * in place once written: the NS's, rewritten on every uplink).
 */
export class TypeOrmDeviceStore implements DeviceStore {
  constructor(
    private readonly dataSource: DataSource,
    private readonly encoder: DocumentEncoder = PLAIN_ENCODER,
  ) {}

  private async select(where: string, params: unknown[], limit?: number): Promise<DeviceRecord[]> {
    const { rows } = await runStatement<Row>(this.dataSource, `SELECT ${COLUMNS} FROM end_devices WHERE ${where}${limit ? ` LIMIT ${limit}` : ''}`, params);
    return rows.map(toRecord);
  }

  async get(applicationId: string, deviceId: string, known?: DeviceRecord): Promise<DeviceRecord | undefined> {
    if (!known) {
      const [record] = await this.select('application_id = ? AND device_id = ?', [applicationId, deviceId]);
      return record;
    }
    // One statement either way: the document is left out while the device is at the known revision.
    const { rows } = await runStatement<Row>(this.dataSource, `SELECT ${KNOWN_COLUMNS} FROM end_devices WHERE application_id = ? AND device_id = ?`, [
      ...knownParams(known),
      applicationId,
      deviceId,
    ]);
    return rows.map((row) => knownOrRecord(row, known))[0];
  }

  async findCandidates(lookup: DeviceLookup): Promise<DeviceRecord[]> {
    const alternatives = ['device_id = ?'];
    const params: unknown[] = [lookup.application_id, lookup.device_id];
    if (lookup.dev_eui) {
      alternatives.push(lookup.join_eui ? '(dev_eui = ? AND join_eui = ?)' : 'dev_eui = ?');
      params.push(lookup.dev_eui, ...(lookup.join_eui ? [lookup.join_eui] : []));
    }
    if (lookup.dev_addr) {
      alternatives.push('dev_addr = ?');
      params.push(lookup.dev_addr);
    }
    return this.select(`application_id = ? AND (${alternatives.join(' OR ')})`, params, CANDIDATE_LIMIT);
  }

  findByDevAddr(devAddr: string): Promise<DeviceRecord[]> {
    return this.select('dev_addr = ?', [devAddr], CANDIDATE_LIMIT);
  }

  async findBySessionDevAddr(devAddr: string, limit: number, known?: DeviceRecord): Promise<DeviceRecord[]> {
    // One statement either way: the known device's document is left out while it is at the known revision.
    const { rows } = await runStatement<Row>(
      this.dataSource,
      `SELECT ${KNOWN_COLUMNS} FROM end_devices WHERE dev_addr = ? OR pending_dev_addr = ? LIMIT ${Math.max(1, Math.floor(limit))}`,
      [...knownParams(known), devAddr, devAddr],
    );
    return rows.map((row) => knownOrRecord(row, known));
  }

  findByEuis(joinEui: string, devEui: string): Promise<DeviceRecord[]> {
    return this.select('join_eui = ? AND dev_eui = ?', [joinEui, devEui], CANDIDATE_LIMIT);
  }

  async create(record: DeviceRecord): Promise<CreateResult> {
    try {
      const { sql, params } = insertAllOf([record], this.encoder);
      await runStatement(this.dataSource, sql, [...params]);
      return { ok: true };
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
      if (await this.get(record.ids.application_ids.application_id, record.ids.device_id)) return { ok: false, conflict: 'id' };
      const { join_eui, dev_eui } = record.ids;
      const [holder] = join_eui && dev_eui ? await this.findByEuis(join_eui, dev_eui) : [];
      return { ok: false, conflict: 'euis', holder: holder?.ids };
    }
  }

  async replace(record: DeviceRecord): Promise<ReplaceResult> {
    // A fixed, prepared statement: the uplink path writes a device per uplink.
    const { sql, params } = updateOf(record, this.encoder);
    try {
      const { affected } = await runStatement(this.dataSource, sql, [...params]);
      return affected > 0 ? 'ok' : 'stale';
    } catch (err) {
      if (isDuplicateKeyError(err)) return 'euis';
      throw err;
    }
  }

  async writeAll<T>(
    applicationId: string,
    deviceIds: readonly string[],
    decide: (stored: ReadonlyMap<string, DeviceRecord>) => { result: T; records: readonly DeviceRecord[] },
  ): Promise<{ ok: true; result: T } | { ok: false; conflict: 'id' | 'euis' }> {
    try {
      const result = await readThenWrite<T, Row>(this.dataSource, [this.lockingRead(applicationId, deviceIds)], ([rows]) => {
        const stored = new Map(rows.map((row) => toRecord(row)).map((r) => [r.ids.device_id, r]));
        const { result, records } = decide(stored);
        // The new devices in one multi-row INSERT (one statement, not one round trip per device), then the updates.
        const created = records.filter((r) => r.revision === 1);
        const writes = [
          ...(created.length > 0 ? [insertAllOf(created, this.encoder)] : []),
          ...records.filter((r) => r.revision !== 1).map((r) => updateOf(r, this.encoder)),
        ];
        return { result, writes };
      });
      return { ok: true, result };
    } catch (err) {
      if (isDuplicateKeyError(err)) return { ok: false, conflict: isPrimaryKeyError(err) ? 'id' : 'euis' };
      throw err;
    }
  }

  deleteAll(applicationId: string, deviceIds: readonly string[]): Promise<DeviceRecord[]> {
    return readThenWrite<DeviceRecord[], Row>(this.dataSource, [this.lockingRead(applicationId, deviceIds)], ([rows]) => {
      const records = rows.map((row) => toRecord(row));
      const found = records.map((r) => r.ids.device_id);
      const writes =
        found.length === 0
          ? []
          : [{ sql: `DELETE FROM end_devices WHERE application_id = ? AND device_id IN (${marks(found.length)})`, params: [applicationId, ...found] }];
      return { result: records, writes };
    });
  }

  /** The rows of some devices of an application, locked until the transaction ends (MySQL; SQLite's are serial). */
  private lockingRead(applicationId: string, deviceIds: readonly string[]) {
    return {
      sql: `SELECT ${COLUMNS} FROM end_devices WHERE application_id = ? AND device_id IN (${marks(deviceIds.length)})`,
      params: [applicationId, ...deviceIds],
      lock: true,
    };
  }

  async delete(applicationId: string, deviceId: string, revision?: number): Promise<boolean> {
    const query = this.dataSource
      .createQueryBuilder()
      .delete()
      .from('end_devices')
      .where('application_id = :applicationId AND device_id = :deviceId', { applicationId, deviceId });
    if (revision !== undefined) query.andWhere('revision = :revision', { revision });
    const result = await query.execute();
    return (result.affected ?? 0) > 0;
  }
}

const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ');

/** One INSERT of every record (the rows' order is the records'). */
function insertAllOf(records: readonly DeviceRecord[], encoder: DocumentEncoder): Statement {
  const row = `(${marks(10)})`;
  return { sql: `INSERT INTO end_devices (${COLUMNS}) VALUES ${records.map(() => row).join(', ')}`, params: records.flatMap((r) => toParams(r, encoder)) };
}

/**
 * The replace of a record if the stored one is still at the revision before it and was created
 * when the record says (not deleted and created again since, which starts again at revision 1).
 */
function updateOf(r: DeviceRecord, encoder: DocumentEncoder): Statement {
  const [application_id, device_id, dev_eui, join_eui, dev_addr, pending_dev_addr, created_at, updated_at, revision, fields] = toParams(r, encoder);
  return {
    sql:
      'UPDATE end_devices SET dev_eui = ?, join_eui = ?, dev_addr = ?, pending_dev_addr = ?, updated_at = ?, revision = ?, fields = ? ' +
      'WHERE application_id = ? AND device_id = ? AND revision = ? AND created_at = ?',
    params: [dev_eui, join_eui, dev_addr, pending_dev_addr, updated_at, revision, fields, application_id, device_id, r.revision - 1, created_at],
  };
}

/** A duplicate-key error of the primary key (application_id, device_id), not of the EUIs. */
function isPrimaryKeyError(err: unknown): boolean {
  const e = err as { code?: string; message?: string; driverError?: { code?: string; message?: string } };
  const code = e?.driverError?.code ?? e?.code;
  return code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || /for key '(?:\w+\.)?PRIMARY'/.test(e?.driverError?.message ?? e?.message ?? '');
}
