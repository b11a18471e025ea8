import { type MigrationInterface, type QueryRunner, Table, TableIndex } from 'typeorm';

/**
 * Organizations, and accounts shared by users and organizations (TTS: a user and an organization
 * cannot have the same ID, one namespace of "accounts"):
 *
 * - `organizations`, shaped as the other IS entities (`1732600000000-create-identity-entities`);
 * - `accounts`: one row per user or organization not purged, its ID the primary key, so creating
 *   a user and an organization of the same ID cannot both succeed; filled with the existing users;
 * - `collaborators` name their member as an account: `user_id` becomes `account_id`, and
 *   `account_kind` says whether it is a user or an organization (the members of an organization
 *   are rows with `entity_kind = 'organization'`, always users).
 */
export class CreateOrganizations1732600006000 implements MigrationInterface {
  name = 'CreateOrganizations1732600006000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.options.type === 'mysql';
    const time = mysql ? 'datetime(6)' : 'varchar(32)';
    // Code-point order for names, whatever the database default (SQLite's BINARY matches).
    const text = mysql ? { charset: 'utf8mb4', collation: 'utf8mb4_bin' } : {};
    await queryRunner.createTable(
      new Table({
        name: 'organizations',
        columns: [
          { name: 'organization_id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'name', type: 'varchar', length: '50', default: "''", ...text },
          { name: 'created_at', type: time },
          { name: 'updated_at', type: time },
          { name: 'deleted_at', type: time, isNullable: true },
          { name: 'fields', type: mysql ? 'longtext' : 'text' },
        ],
        indices: ['', 'name', 'created_at'].map(
          (column) =>
            new TableIndex({
              name: `idx_organizations_deleted${column ? `_${column}` : ''}`,
              columnNames: ['deleted_at', ...(column ? [column] : []), 'organization_id'],
            }),
        ),
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'accounts',
        columns: [
          { name: 'account_id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'account_kind', type: 'varchar', length: '16' },
        ],
      }),
    );
    await queryRunner.query("INSERT INTO accounts (account_id, account_kind) SELECT user_id, 'user' FROM users");
    await queryRunner.query('ALTER TABLE collaborators RENAME COLUMN user_id TO account_id');
    await queryRunner.query("ALTER TABLE collaborators ADD COLUMN account_kind varchar(16) NOT NULL DEFAULT 'user'");
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query("DELETE FROM collaborators WHERE account_kind <> 'user'");
    await queryRunner.query('ALTER TABLE collaborators DROP COLUMN account_kind');
    await queryRunner.query('ALTER TABLE collaborators RENAME COLUMN account_id TO user_id');
    await queryRunner.dropTable('accounts');
    await queryRunner.dropTable('organizations');
  }
}
