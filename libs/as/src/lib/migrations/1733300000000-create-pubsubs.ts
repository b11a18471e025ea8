import { type MigrationInterface, type QueryRunner, Table } from 'typeorm';

/** The Pub/Sub registry: one row per Pub/Sub, its settings as JSON, its secrets sealed apart (MySQL/MariaDB and SQLite). */
export class CreatePubSubs1733300000000 implements MigrationInterface {
  name = 'CreatePubSubs1733300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'pubsubs',
        columns: [
          { name: 'application_id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'pub_sub_id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'fields', type: 'text' },
          { name: 'secrets', type: 'text' },
          { name: 'created_at', type: 'varchar', length: '32' },
          { name: 'updated_at', type: 'varchar', length: '32' },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('pubsubs');
  }
}
