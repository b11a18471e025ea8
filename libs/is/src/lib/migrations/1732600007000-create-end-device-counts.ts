import { type MigrationInterface, type QueryRunner, Table } from 'typeorm';

/**
 * Per-application device counts, for List's `X-Total-Count` without counting the rows on every
 * call. An application's count is the sum of its rows, one per shard: every transaction that
 * inserts or deletes devices adds its difference to one shard of its choosing, so concurrent
 * writers of one application rarely wait on the same row. Filled from the existing devices.
 */
export class CreateEndDeviceCounts1732600007000 implements MigrationInterface {
  name = 'CreateEndDeviceCounts1732600007000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'end_device_counts',
        columns: [
          { name: 'application_id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'shard', type: 'int', isPrimary: true },
          { name: 'device_count', type: 'bigint', default: 0 },
        ],
      }),
    );
    await queryRunner.query(
      'INSERT INTO end_device_counts (application_id, shard, device_count) SELECT application_id, 0, COUNT(*) FROM end_devices GROUP BY application_id',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('end_device_counts');
  }
}
