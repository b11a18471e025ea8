import { type MigrationInterface, type QueryRunner, Table, type TableColumnOptions, TableIndex } from 'typeorm';

/**
 * Users, applications, gateways and their collaborators. Rows are soft-deleted (`deleted_at`), so
 * every List order has an index starting with `deleted_at` (live rows are `deleted_at IS NULL`) and
 * ending in the ID, the tiebreak. Gateway EUIs are unique among the rows not purged (NULLs do not
 * collide). Collaborators are found by entity (primary key) and by user (the user's Lists).
 */
export class CreateIdentityEntities1732600000000 implements MigrationInterface {
  name = 'CreateIdentityEntities1732600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.options.type === 'mysql';
    const time = mysql ? 'datetime(6)' : 'varchar(32)';
    // Code-point order for names, whatever the database default (SQLite's BINARY matches).
    const text = mysql ? { charset: 'utf8mb4', collation: 'utf8mb4_bin' } : {};
    const id = (name: string): TableColumnOptions => ({ name, type: 'varchar', length: '36', isPrimary: true });
    const entityColumns: TableColumnOptions[] = [
      { name: 'name', type: 'varchar', length: '50', default: "''", ...text },
      { name: 'created_at', type: time },
      { name: 'updated_at', type: time },
      { name: 'deleted_at', type: time, isNullable: true },
      { name: 'fields', type: mysql ? 'longtext' : 'text' },
    ];
    const orderIndexes = (table: string, idColumn: string, extra: string[] = []) =>
      ['', 'name', 'created_at', ...extra].map(
        (column) =>
          new TableIndex({ name: `idx_${table}_deleted${column ? `_${column}` : ''}`, columnNames: ['deleted_at', ...(column ? [column] : []), idColumn] }),
      );

    await queryRunner.createTable(
      new Table({
        name: 'users',
        columns: [
          id('user_id'),
          { name: 'primary_email_address', type: 'varchar', length: '320', default: "''" },
          { name: 'admin', type: 'boolean', default: '0' },
          { name: 'state', type: 'int', default: '0' },
          { name: 'password_hash', type: 'varchar', length: '200', isNullable: true },
          ...entityColumns,
        ],
        indices: orderIndexes('users', 'user_id', ['primary_email_address']),
      }),
    );
    await queryRunner.createTable(
      new Table({ name: 'applications', columns: [id('application_id'), ...entityColumns], indices: orderIndexes('applications', 'application_id') }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'gateways',
        columns: [id('gateway_id'), { name: 'eui', type: mysql ? 'char' : 'varchar', length: '16', isNullable: true }, ...entityColumns],
        indices: [new TableIndex({ name: 'uq_gateways_eui', columnNames: ['eui'], isUnique: true }), ...orderIndexes('gateways', 'gateway_id', ['eui'])],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'collaborators',
        columns: [
          { name: 'entity_kind', type: 'varchar', length: '16', isPrimary: true },
          { name: 'entity_id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'user_id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'rights', type: 'text' },
          { name: 'created_at', type: time },
          { name: 'updated_at', type: time },
        ],
        indices: [new TableIndex({ name: 'idx_collaborators_user', columnNames: ['user_id', 'entity_kind', 'entity_id'] })],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['collaborators', 'gateways', 'applications', 'users']) await queryRunner.dropTable(table);
  }
}
