import { type MigrationInterface, type QueryRunner, Table, TableIndex } from 'typeorm';

/**
 * OAuth clients, shaped as the other IS entities (`1732600000000-create-identity-entities`):
 * soft-deleted through `deleted_at`, one index per List order starting with `deleted_at` and ending
 * in the ID, the rest of the fields one JSON document; the secret only as a PBKDF2 hash. Their
 * collaborators are rows of `collaborators` with `entity_kind = 'client'`.
 */
export class CreateClients1732600005000 implements MigrationInterface {
  name = 'CreateClients1732600005000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.options.type === 'mysql';
    const time = mysql ? 'datetime(6)' : 'varchar(32)';
    // Code-point order for names, whatever the database default (SQLite's BINARY matches).
    const text = mysql ? { charset: 'utf8mb4', collation: 'utf8mb4_bin' } : {};
    await queryRunner.createTable(
      new Table({
        name: 'clients',
        columns: [
          { name: 'client_id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'name', type: 'varchar', length: '50', default: "''", ...text },
          { name: 'secret_hash', type: 'varchar', length: '200', isNullable: true },
          { name: 'created_at', type: time },
          { name: 'updated_at', type: time },
          { name: 'deleted_at', type: time, isNullable: true },
          { name: 'fields', type: mysql ? 'longtext' : 'text' },
        ],
        indices: ['', 'name', 'created_at'].map(
          (column) =>
            new TableIndex({ name: `idx_clients_deleted${column ? `_${column}` : ''}`, columnNames: ['deleted_at', ...(column ? [column] : []), 'client_id'] }),
        ),
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('clients');
  }
}
