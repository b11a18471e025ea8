import { type MigrationInterface, type QueryRunner, Table } from 'typeorm';

/** The embedded event history: one row per event received, in the order received (`seq`). */
export class CreateEventHistory1734100000000 implements MigrationInterface {
  name = 'CreateEventHistory1734100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'event_history',
        columns: [
          { name: 'seq', type: 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
          { name: 'received_at', type: 'bigint' },
          { name: 'time_micros', type: 'bigint' },
          { name: 'event', type: 'text' },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('event_history');
  }
}
