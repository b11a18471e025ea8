import type { ApplicationWebhook } from '@lorawan/api';
import type { DataSource } from 'typeorm';
import { isMysql } from '@lorawan/persistence';

export const WEBHOOK_STORE = Symbol('WEBHOOK_STORE');

/** The webhook registry's storage. Webhooks are plain `ApplicationWebhook` objects (ids and timestamps included). */
export interface WebhookStore {
  get(applicationId: string, webhookId: string): Promise<ApplicationWebhook | undefined>;
  /** All webhooks of an application, ordered by ID. */
  list(applicationId: string): Promise<ApplicationWebhook[]>;
  /** Delivery: the application's webhooks that are not paused (one query, then filtered in memory). */
  listActive(applicationId: string): Promise<ApplicationWebhook[]>;
  /** Inserts or replaces the whole webhook. */
  put(webhook: ApplicationWebhook): Promise<void>;
  /** Delivery: replaces `health_status` alone; false when the webhook does not exist. */
  setHealthStatus(applicationId: string, webhookId: string, healthStatus: Record<string, unknown> | undefined): Promise<boolean>;
  /** False when there was nothing to delete. */
  delete(applicationId: string, webhookId: string): Promise<boolean>;
}

interface Row {
  application_id: string;
  webhook_id: string;
  fields: string;
  created_at: string;
  updated_at: string;
}

const COLUMNS = 'application_id, webhook_id, fields, created_at, updated_at';

function toWebhook(row: Row): ApplicationWebhook {
  const fields = JSON.parse(row.fields) as Omit<ApplicationWebhook, 'ids' | 'created_at' | 'updated_at'>;
  return {
    ids: { application_ids: { application_id: row.application_id }, webhook_id: row.webhook_id },
    created_at: row.created_at,
    updated_at: row.updated_at,
    ...fields,
  };
}

function fieldsOf(webhook: ApplicationWebhook): string {
  const { ids: _ids, created_at: _created, updated_at: _updated, ...fields } = webhook;
  return JSON.stringify(fields);
}

/** The webhook store on the AS's own database (MySQL/MariaDB or SQLite), fixed SQL through the DataSource. */
export class SqlWebhookStore implements WebhookStore {
  constructor(private readonly dataSource: DataSource) {}

  async get(applicationId: string, webhookId: string): Promise<ApplicationWebhook | undefined> {
    const rows = (await this.dataSource.query(`SELECT ${COLUMNS} FROM webhooks WHERE application_id = ? AND webhook_id = ?`, [
      applicationId,
      webhookId,
    ])) as Row[];
    return rows[0] ? toWebhook(rows[0]) : undefined;
  }

  async list(applicationId: string): Promise<ApplicationWebhook[]> {
    const rows = (await this.dataSource.query(`SELECT ${COLUMNS} FROM webhooks WHERE application_id = ? ORDER BY webhook_id`, [applicationId])) as Row[];
    return rows.map(toWebhook);
  }

  async listActive(applicationId: string): Promise<ApplicationWebhook[]> {
    return (await this.list(applicationId)).filter((w) => !w.paused);
  }

  /**
   * One upsert statement (no transaction: on SQLite a transaction held across awaits would take in
   * other requests' queries on the shared connection); concurrent Sets of a new webhook cannot
   * collide on the key, the last one wins.
   */
  async put(webhook: ApplicationWebhook): Promise<void> {
    const params = [webhook.ids.application_ids.application_id, webhook.ids.webhook_id, fieldsOf(webhook), webhook.created_at, webhook.updated_at];
    const upsert = isMysql(this.dataSource)
      ? 'ON DUPLICATE KEY UPDATE fields = VALUES(fields), created_at = VALUES(created_at), updated_at = VALUES(updated_at)'
      : 'ON CONFLICT (application_id, webhook_id) DO UPDATE SET fields = excluded.fields, created_at = excluded.created_at, updated_at = excluded.updated_at';
    await this.dataSource.query(`INSERT INTO webhooks (${COLUMNS}) VALUES (?, ?, ?, ?, ?) ${upsert}`, params);
  }

  /** One statement that changes the JSON's `health_status` only (a concurrent Set of other fields is kept). */
  async setHealthStatus(applicationId: string, webhookId: string, healthStatus: Record<string, unknown> | undefined): Promise<boolean> {
    const mysql = isMysql(this.dataSource);
    // JSON_EXTRACT(?, '$') makes the value JSON on MySQL and MariaDB alike (MariaDB has no CAST AS JSON).
    const expression =
      healthStatus === undefined
        ? `${mysql ? 'JSON_REMOVE' : 'json_remove'}(fields, '$.health_status')`
        : mysql
          ? "JSON_SET(fields, '$.health_status', JSON_EXTRACT(:health, '$'))"
          : "json_set(fields, '$.health_status', json(:health))";
    const result = await this.dataSource
      .createQueryBuilder()
      .update('webhooks')
      .set({ fields: () => expression })
      .where('application_id = :applicationId AND webhook_id = :webhookId', { applicationId, webhookId })
      .setParameter('health', JSON.stringify(healthStatus ?? null))
      .execute();
    return (result.affected ?? 0) > 0;
  }

  async delete(applicationId: string, webhookId: string): Promise<boolean> {
    const existing = await this.get(applicationId, webhookId);
    if (!existing) return false;
    await this.dataSource.query('DELETE FROM webhooks WHERE application_id = ? AND webhook_id = ?', [applicationId, webhookId]);
    return true;
  }
}
