import { type MigrationInterface, type QueryRunner, Table, TableIndex } from 'typeorm';

/**
 * Embedded mode's webhook delivery queue (`SqlJobQueue`): one row per job, in the order it was
 * queued (`id`), with the earliest time it may be sent (`not_before`, epoch ms), whether it is
 * handed to the worker (`claimed`), and the job as JSON (the webhook's identifiers and the message,
 * never its headers or API keys). The index serves the queue's one hot read, the claimable jobs
 * due now, oldest first, without a sort (MySQL/MariaDB and SQLite).
 */
export class CreateWebhookJobs1733100000000 implements MigrationInterface {
  name = 'CreateWebhookJobs1733100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.options.type === 'mysql';
    await queryRunner.createTable(
      new Table({
        name: 'webhook_jobs',
        columns: [
          // SQLite autoincrements only an INTEGER PRIMARY KEY (a 64-bit rowid).
          { name: 'id', type: mysql ? 'bigint' : 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
          { name: 'not_before', type: 'bigint' },
          { name: 'claimed', type: 'smallint', default: 0 },
          { name: 'job', type: mysql ? 'longtext' : 'text' },
        ],
      }),
    );
    await queryRunner.createIndex('webhook_jobs', new TableIndex({ name: 'idx_webhook_jobs_due', columnNames: ['claimed', 'not_before', 'id'] }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('webhook_jobs');
  }
}
