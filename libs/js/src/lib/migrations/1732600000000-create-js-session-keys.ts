import { type MigrationInterface, type QueryRunner, Table } from 'typeorm';

/** The session-key registry: the keys of each accepted join, by JoinEUI, DevEUI and session key ID. */
export class CreateJsSessionKeys1732600000000 implements MigrationInterface {
  name = 'CreateJsSessionKeys1732600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.options.type === 'mysql';
    await queryRunner.createTable(
      new Table({
        name: 'session_keys',
        columns: [
          { name: 'join_eui', type: mysql ? 'char' : 'varchar', length: '16', isPrimary: true },
          { name: 'dev_eui', type: mysql ? 'char' : 'varchar', length: '16', isPrimary: true },
          { name: 'session_key_id', type: 'varchar', length: '64', isPrimary: true },
          { name: 'session_keys', type: 'text' },
          { name: 'created_at', type: mysql ? 'datetime(6)' : 'varchar(32)' },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('session_keys');
  }
}
