import type { DataSource } from 'typeorm';
import { sqlToTimestamp, timestampToSql } from '@lorawan/api';
import { runStatement } from '@lorawan/persistence';
import type { KeyEnvelopeJson } from '@lorawan/registry';

/**
 * The Join Server's session-key registry (TTS `KeyRegistry`): the keys of every accepted join,
 * under (JoinEUI, DevEUI, session_key_id), so an AS can fetch its AppSKey by the ID later
 * (`AsJs.GetAppSKey`). Keys are stored sealed with the JS's own KEK when one is configured.
 */
export interface SessionKeyRecord {
  join_eui: string;
  dev_eui: string;
  /** Base64, as the contract writes it. */
  session_key_id: string;
  keys: Record<string, KeyEnvelopeJson>;
  created_at: string;
}

export interface SessionKeyStore {
  put(record: SessionKeyRecord): Promise<void>;
  get(joinEui: string, devEui: string, sessionKeyId: string): Promise<SessionKeyRecord | undefined>;
}

export const SESSION_KEY_STORE = Symbol('SESSION_KEY_STORE');

interface Row {
  join_eui: string;
  dev_eui: string;
  session_key_id: string;
  session_keys: string;
  created_at: string | Date;
}

export class TypeOrmSessionKeyStore implements SessionKeyStore {
  constructor(private readonly dataSource: DataSource) {}

  /** One fixed statement per accepted join (prepared on MySQL/MariaDB: `runStatement`). */
  async put(r: SessionKeyRecord): Promise<void> {
    await runStatement(this.dataSource, 'INSERT INTO session_keys (join_eui, dev_eui, session_key_id, session_keys, created_at) VALUES (?, ?, ?, ?, ?)', [
      r.join_eui,
      r.dev_eui,
      r.session_key_id,
      JSON.stringify(r.keys),
      timestampToSql(r.created_at),
    ]);
  }

  async get(joinEui: string, devEui: string, sessionKeyId: string): Promise<SessionKeyRecord | undefined> {
    const {
      rows: [row],
    } = await runStatement<Row>(
      this.dataSource,
      'SELECT join_eui, dev_eui, session_key_id, session_keys, created_at FROM session_keys WHERE join_eui = ? AND dev_eui = ? AND session_key_id = ?',
      [joinEui, devEui, sessionKeyId],
    );
    if (!row) return undefined;
    return {
      join_eui: row.join_eui,
      dev_eui: row.dev_eui,
      session_key_id: row.session_key_id,
      keys: JSON.parse(row.session_keys) as Record<string, KeyEnvelopeJson>,
      created_at: sqlToTimestamp(row.created_at),
    };
  }
}
