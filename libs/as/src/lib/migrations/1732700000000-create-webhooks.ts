import { type MigrationInterface, type QueryRunner, Table } from 'typeorm';

/** The webhook registry: one row per webhook, its settings as JSON (MySQL/MariaDB and SQLite). */
export class CreateWebhooks1732700000000 implements MigrationInterface {
  name = 'CreateWebhooks1732700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'webhooks',
        columns: [
          { name: 'application_id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'webhook_id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'fields', type: 'text' },
          { name: 'created_at', type: 'varchar', length: '32' },
          { name: 'updated_at', type: 'varchar', length: '32' },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('webhooks');
  }
}
