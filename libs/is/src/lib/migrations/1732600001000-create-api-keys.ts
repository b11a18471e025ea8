import { type MigrationInterface, type QueryRunner, Table, TableIndex } from 'typeorm';

/**
 * API keys of applications, gateways and users: the ID in clear (primary key, the credential
 * lookup), the secret only as a PBKDF2 hash. One index per List order within an entity, each ending
 * in the ID (the tiebreak), so listing never sorts.
 */
export class CreateApiKeys1732600001000 implements MigrationInterface {
  name = 'CreateApiKeys1732600001000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.options.type === 'mysql';
    const time = mysql ? 'datetime(6)' : 'varchar(32)';
    // Code-point order for names, whatever the database default (SQLite's BINARY matches).
    const text = mysql ? { charset: 'utf8mb4', collation: 'utf8mb4_bin' } : {};
    await queryRunner.createTable(
      new Table({
        name: 'api_keys',
        columns: [
          { name: 'id', type: 'varchar', length: '39', isPrimary: true },
          { name: 'secret_hash', type: 'varchar', length: '200' },
          { name: 'name', type: 'varchar', length: '50', default: "''", ...text },
          { name: 'rights', type: 'text' },
          { name: 'entity_kind', type: 'varchar', length: '16' },
          { name: 'entity_id', type: 'varchar', length: '36' },
          { name: 'created_at', type: time },
          { name: 'updated_at', type: time },
          { name: 'expires_at', type: time, isNullable: true },
        ],
      }),
    );
    const indexes: Array<[string, string[]]> = [
      ['idx_api_keys_entity', ['entity_kind', 'entity_id', 'id']],
      ['idx_api_keys_entity_name', ['entity_kind', 'entity_id', 'name', 'id']],
      ['idx_api_keys_entity_created_at', ['entity_kind', 'entity_id', 'created_at', 'id']],
      ['idx_api_keys_entity_expires_at', ['entity_kind', 'entity_id', 'expires_at', 'id']],
    ];
    for (const [name, columnNames] of indexes) {
      await queryRunner.createIndex('api_keys', new TableIndex({ name, columnNames }));
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('api_keys');
  }
}
