import type { DataSource } from 'typeorm';
import { isMysql } from '@lorawan/persistence';

export const PACKAGE_ASSOCIATION_STORE = Symbol('PACKAGE_ASSOCIATION_STORE');

/**
 * An association of a package with an FPort: a device's (`deviceId` set) or an application's
 * default one (`deviceId` undefined). Plain data; the registry turns it into the contract's
 * messages.
 */
export interface PackageAssociationRecord {
  applicationId: string;
  deviceId?: string;
  fPort: number;
  packageName: string;
  data?: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

/** Where the associations are: one application's defaults, or one device's. */
export interface AssociationOwner {
  applicationId: string;
  deviceId?: string;
}

/** The package registry's storage (TTS `io/packages` registry). */
export interface PackageAssociationStore {
  get(owner: AssociationOwner, fPort: number): Promise<PackageAssociationRecord | undefined>;
  /** An owner's associations by FPort; a page of `limit` (0: all) from `offset`, with the total. */
  list(owner: AssociationOwner, limit: number, offset: number): Promise<{ items: PackageAssociationRecord[]; total: number }>;
  /** Inserts or replaces the association. */
  put(record: PackageAssociationRecord): Promise<void>;
  delete(owner: AssociationOwner, fPort: number): Promise<void>;
  /** Where an application uses each package it has associations with (one query). */
  usage(applicationId: string): Promise<ReadonlyMap<string, PackageUsage>>;
}

/** Where one package is associated in an application. */
export interface PackageUsage {
  /** A default association of the application names it: every device. */
  application: boolean;
  /** Devices with an association of their own that names it. */
  devices: ReadonlySet<string>;
}

interface Row {
  application_id: string;
  device_id: string;
  f_port: number | string;
  package_name: string;
  data: string | null;
  created_at: string;
  updated_at: string;
}

const COLUMNS = 'application_id, device_id, f_port, package_name, data, created_at, updated_at';

function toRecord(row: Row): PackageAssociationRecord {
  return {
    applicationId: row.application_id,
    ...(row.device_id === '' ? {} : { deviceId: row.device_id }),
    fPort: Number(row.f_port),
    packageName: row.package_name,
    ...(row.data === null ? {} : { data: JSON.parse(row.data) as Record<string, unknown> }),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The associations on the AS's own database: a default association has the device ID `''`. */
export class SqlPackageAssociationStore implements PackageAssociationStore {
  constructor(private readonly dataSource: DataSource) {}

  async get(owner: AssociationOwner, fPort: number): Promise<PackageAssociationRecord | undefined> {
    const rows = (await this.dataSource.query(`SELECT ${COLUMNS} FROM package_associations WHERE application_id = ? AND device_id = ? AND f_port = ?`, [
      owner.applicationId,
      owner.deviceId ?? '',
      fPort,
    ])) as Row[];
    return rows[0] ? toRecord(rows[0]) : undefined;
  }

  async list(owner: AssociationOwner, limit: number, offset: number): Promise<{ items: PackageAssociationRecord[]; total: number }> {
    const where = 'WHERE application_id = ? AND device_id = ?';
    const params = [owner.applicationId, owner.deviceId ?? ''];
    const page = limit > 0 ? ` LIMIT ${Math.floor(limit)} OFFSET ${Math.floor(offset)}` : '';
    const rows = (await this.dataSource.query(`SELECT ${COLUMNS} FROM package_associations ${where} ORDER BY f_port${page}`, params)) as Row[];
    const [{ total }] = (await this.dataSource.query(`SELECT COUNT(*) AS total FROM package_associations ${where}`, params)) as { total: number | string }[];
    return { items: rows.map(toRecord), total: Number(total) };
  }

  async put(r: PackageAssociationRecord): Promise<void> {
    const upsert = isMysql(this.dataSource)
      ? 'ON DUPLICATE KEY UPDATE package_name = VALUES(package_name), data = VALUES(data), created_at = VALUES(created_at), updated_at = VALUES(updated_at)'
      : 'ON CONFLICT (application_id, device_id, f_port) DO UPDATE SET package_name = excluded.package_name, data = excluded.data, created_at = excluded.created_at, updated_at = excluded.updated_at';
    const data = r.data === undefined ? null : JSON.stringify(r.data);
    await this.dataSource.query(`INSERT INTO package_associations (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?) ${upsert}`, [
      r.applicationId,
      r.deviceId ?? '',
      r.fPort,
      r.packageName,
      data,
      r.createdAt,
      r.updatedAt,
    ]);
  }

  async delete(owner: AssociationOwner, fPort: number): Promise<void> {
    await this.dataSource.query('DELETE FROM package_associations WHERE application_id = ? AND device_id = ? AND f_port = ?', [
      owner.applicationId,
      owner.deviceId ?? '',
      fPort,
    ]);
  }

  async usage(applicationId: string): Promise<ReadonlyMap<string, PackageUsage>> {
    const rows = (await this.dataSource.query('SELECT DISTINCT package_name, device_id FROM package_associations WHERE application_id = ?', [
      applicationId,
    ])) as { package_name: string; device_id: string }[];
    const usage = new Map<string, { application: boolean; devices: Set<string> }>();
    for (const row of rows) {
      let entry = usage.get(row.package_name);
      if (!entry) usage.set(row.package_name, (entry = { application: false, devices: new Set() }));
      if (row.device_id === '') entry.application = true;
      else entry.devices.add(row.device_id);
    }
    return usage;
  }
}
