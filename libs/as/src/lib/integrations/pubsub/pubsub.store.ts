import type { ApplicationPubSub } from '@lorawan/api';
import type { SecretBox, StoredSecret } from '@lorawan/crypto';
import type { DataSource } from 'typeorm';
import { isMysql } from '@lorawan/persistence';

export const PUBSUB_STORE = Symbol('PUBSUB_STORE');

/** The Pub/Sub registry's storage. Pub/Subs are plain `ApplicationPubSub` objects, secrets in the clear: the store seals them. */
export interface PubSubStore {
  get(applicationId: string, pubSubId: string): Promise<ApplicationPubSub | undefined>;
  /** All Pub/Subs of an application, ordered by ID. */
  list(applicationId: string): Promise<ApplicationPubSub[]>;
  /** Every Pub/Sub of every application (what an AS replica connects at start). */
  listAll(): Promise<ApplicationPubSub[]>;
  /** Inserts or replaces the whole Pub/Sub. */
  put(pubsub: ApplicationPubSub): Promise<void>;
  /** False when there was nothing to delete. */
  delete(applicationId: string, pubSubId: string): Promise<boolean>;
}

/** The secrets of a Pub/Sub: never in the `fields` column, sealed in `secrets` (see SecretBox). */
export const PUBSUB_SECRET_FIELDS = ['password', 'tls_client_key'] as const;
type SecretField = (typeof PUBSUB_SECRET_FIELDS)[number];

interface Row {
  application_id: string;
  pub_sub_id: string;
  fields: string;
  secrets: string;
  created_at: string;
  updated_at: string;
}

const COLUMNS = 'application_id, pub_sub_id, fields, secrets, created_at, updated_at';

/**
 * The Pub/Sub store on the AS's own database (MySQL/MariaDB or SQLite), fixed SQL through the
 * DataSource. The MQTT password and TLS client key are kept apart from the other fields, sealed
 * with the AS's KEK (`AS_KEK_LABEL` of `KEKS`; in the clear without one, as keys are).
 */
export class SqlPubSubStore implements PubSubStore {
  constructor(
    private readonly dataSource: DataSource,
    private readonly secrets: SecretBox,
  ) {}

  async get(applicationId: string, pubSubId: string): Promise<ApplicationPubSub | undefined> {
    const rows = (await this.dataSource.query(`SELECT ${COLUMNS} FROM pubsubs WHERE application_id = ? AND pub_sub_id = ?`, [
      applicationId,
      pubSubId,
    ])) as Row[];
    return rows[0] ? this.toPubSub(rows[0]) : undefined;
  }

  async list(applicationId: string): Promise<ApplicationPubSub[]> {
    const rows = (await this.dataSource.query(`SELECT ${COLUMNS} FROM pubsubs WHERE application_id = ? ORDER BY pub_sub_id`, [applicationId])) as Row[];
    return rows.map((row) => this.toPubSub(row));
  }

  async listAll(): Promise<ApplicationPubSub[]> {
    const rows = (await this.dataSource.query(`SELECT ${COLUMNS} FROM pubsubs ORDER BY application_id, pub_sub_id`)) as Row[];
    return rows.map((row) => this.toPubSub(row));
  }

  /** One upsert statement (see SqlWebhookStore.put). */
  async put(pubsub: ApplicationPubSub): Promise<void> {
    const { fields, secrets } = this.split(pubsub);
    const params = [pubsub.ids.application_ids.application_id, pubsub.ids.pub_sub_id, fields, secrets, pubsub.created_at, pubsub.updated_at];
    const upsert = isMysql(this.dataSource)
      ? 'ON DUPLICATE KEY UPDATE fields = VALUES(fields), secrets = VALUES(secrets), created_at = VALUES(created_at), updated_at = VALUES(updated_at)'
      : 'ON CONFLICT (application_id, pub_sub_id) DO UPDATE SET fields = excluded.fields, secrets = excluded.secrets, created_at = excluded.created_at, updated_at = excluded.updated_at';
    await this.dataSource.query(`INSERT INTO pubsubs (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?) ${upsert}`, params);
  }

  async delete(applicationId: string, pubSubId: string): Promise<boolean> {
    const existing = await this.get(applicationId, pubSubId);
    if (!existing) return false;
    await this.dataSource.query('DELETE FROM pubsubs WHERE application_id = ? AND pub_sub_id = ?', [applicationId, pubSubId]);
    return true;
  }

  private split(pubsub: ApplicationPubSub): { fields: string; secrets: string } {
    const { ids: _ids, created_at: _created, updated_at: _updated, ...fields } = pubsub;
    const sealed: Partial<Record<SecretField, StoredSecret>> = {};
    if (fields.mqtt) {
      const mqtt = { ...fields.mqtt };
      for (const field of PUBSUB_SECRET_FIELDS) {
        const value = mqtt[field];
        if (value !== undefined) sealed[field] = this.secrets.seal(value);
        delete mqtt[field];
      }
      fields.mqtt = mqtt;
    }
    return { fields: JSON.stringify(fields), secrets: JSON.stringify(sealed) };
  }

  private toPubSub(row: Row): ApplicationPubSub {
    const fields = JSON.parse(row.fields) as Omit<ApplicationPubSub, 'ids' | 'created_at' | 'updated_at'>;
    const sealed = JSON.parse(row.secrets) as Partial<Record<SecretField, StoredSecret>>;
    const pubsub: ApplicationPubSub = {
      ids: { application_ids: { application_id: row.application_id }, pub_sub_id: row.pub_sub_id },
      created_at: row.created_at,
      updated_at: row.updated_at,
      ...fields,
    };
    if (pubsub.mqtt) for (const field of PUBSUB_SECRET_FIELDS) if (sealed[field]) pubsub.mqtt[field] = this.secrets.open(sealed[field]);
    return pubsub;
  }
}
