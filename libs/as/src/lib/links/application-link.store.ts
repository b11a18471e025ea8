import type { ApplicationLink } from '@lorawan/api';
import type { DataSource } from 'typeorm';
import { isMysql } from '@lorawan/persistence';

export const LINK_STORE = Symbol('LINK_STORE');

/** An application's link as stored: its settings (plain JSON, TTS field names) and server times. */
export interface StoredLink {
  application_id: string;
  link: ApplicationLink;
  created_at: string;
  updated_at: string;
}

/** The application link registry's storage. */
export interface LinkStore {
  get(applicationId: string): Promise<StoredLink | undefined>;
  /** Inserts or replaces the link (a replace keeps the stored `created_at`). */
  put(link: StoredLink): Promise<void>;
  /** False when there was nothing to delete. */
  delete(applicationId: string): Promise<boolean>;
}

interface Row {
  application_id: string;
  fields: string;
  created_at: string;
  updated_at: string;
}

const COLUMNS = 'application_id, fields, created_at, updated_at';

/** The link store on the AS's own database (MySQL/MariaDB or SQLite), fixed SQL through the DataSource. */
export class SqlLinkStore implements LinkStore {
  constructor(private readonly dataSource: DataSource) {}

  async get(applicationId: string): Promise<StoredLink | undefined> {
    const rows = (await this.dataSource.query(`SELECT ${COLUMNS} FROM application_links WHERE application_id = ?`, [applicationId])) as Row[];
    const row = rows[0];
    return row
      ? { application_id: row.application_id, link: JSON.parse(row.fields) as ApplicationLink, created_at: row.created_at, updated_at: row.updated_at }
      : undefined;
  }

  /**
   * One upsert statement (no transaction: on SQLite a transaction held across awaits would take in
   * other requests' queries on the shared connection). Concurrent Sets: the last one wins, as TTS.
   */
  async put(link: StoredLink): Promise<void> {
    const params = [link.application_id, JSON.stringify(link.link), link.created_at, link.updated_at];
    const upsert = isMysql(this.dataSource)
      ? 'ON DUPLICATE KEY UPDATE fields = VALUES(fields), updated_at = VALUES(updated_at)'
      : 'ON CONFLICT (application_id) DO UPDATE SET fields = excluded.fields, updated_at = excluded.updated_at';
    await this.dataSource.query(`INSERT INTO application_links (${COLUMNS}) VALUES (?, ?, ?, ?) ${upsert}`, params);
  }

  async delete(applicationId: string): Promise<boolean> {
    const existing = await this.get(applicationId);
    if (!existing) return false;
    await this.dataSource.query('DELETE FROM application_links WHERE application_id = ?', [applicationId]);
    return true;
  }
}
